/**
 * grep's own search of a line longer than it keeps (`maxCarry`): the first `maxCarry` bytes are searched, the rest
 * only looked at for the pattern's required literal; the file is named as searched in part only when a match could
 * lie in what was not kept. ripgrep keeps any line whole: on a sparse file's 70 MB line of NULs it says nothing, and
 * neither does grep now (test/tools/Grep.parity.test.ts, the odd tree's edge/huge-sparse.dat).
 */
import { describe, expect, it } from "vitest"
import * as LineSearch from "../../src/tools/LineSearch.js"

const chunk = 1024 * 1024

/** Searches `bytes` fed in 1 MiB chunks, as FileSystem.scan hands them over. */
const search = (pattern: string, bytes: Buffer, ignoreCase = false) => {
  const hits: Array<number> = []
  const s = LineSearch.fileSearch(LineSearch.matcher(pattern, ignoreCase), (line) => {
    hits.push(line)
    return true
  })
  for (let at = 0; at < bytes.byteLength; at += chunk) {
    if (!s.feed(bytes.subarray(at, at + chunk), at === 0, at + chunk >= bytes.byteLength)) break
  }
  return { hits, longLine: s.longLine() }
}

/** Line 1: short; line 2: `size` bytes of `x` with `word` at `at`; line 3: short. */
const tree = (size: number, word: string, at: number) => {
  const long = Buffer.alloc(size, "x")
  long.write(word, at)
  return Buffer.concat([Buffer.from("short\n"), long, Buffer.from("\nend NEEDLE\n")])
}

describe("a line longer than grep keeps", () => {
  const size = LineSearch.maxCarry + 3 * chunk
  const far = LineSearch.maxCarry + chunk + 7

  it("a literal only past what is kept: the line matches, whole, no note", () => {
    expect(search("NEEDLE", tree(size, "NEEDLE", far)), "far").toEqual({ hits: [2, 3], longLine: false })
    // Cut between two chunks.
    expect(search("NEEDLE", tree(size, "NEEDLE", LineSearch.maxCarry + chunk - 3)), "chunks").toEqual({ hits: [2, 3], longLine: false })
    // Cut between what is kept and what is not.
    expect(search("NEEDLE", tree(size, "NEEDLE", LineSearch.maxCarry - 3)), "kept").toEqual({ hits: [2, 3], longLine: false })
    // Case-insensitive, the literal is found in a Latin-1 view of the bytes, loosely: the line is named instead.
    expect(search("needle", tree(size, "NEEDLE", far), true)).toEqual({ hits: [3], longLine: true })
  })

  it("a literal nowhere in the line: it cannot match, no note", () => {
    expect(search("NEEDLE", tree(size, "OTHER", far))).toEqual({ hits: [3], longLine: false })
    expect(search("end NE+DLE", tree(size, "OTHER", far))).toEqual({ hits: [3], longLine: false })
  })

  it("an alternation: each branch's literal is looked for", () => {
    expect(search("^OTHER|QUUX$", tree(size, "NEEDLE", far))).toEqual({ hits: [], longLine: false })
    expect(search("^OTHER|NE+DLE$", tree(size, "NEEDLE", far))).toEqual({ hits: [3], longLine: true })
    expect(search("(a|b)q|j(?:y|z)", tree(size, "NEEDLE", far))).toEqual({ hits: [], longLine: false })
    expect(search("^OTHER|\\d", tree(size, "NEEDLE", far))).toEqual({ hits: [], longLine: true })
  })

  it("a regex whose literal lies past what is kept, or with no literal: named as searched in part", () => {
    expect(search("NE+DLE$", tree(size, "NEEDLE", far))).toEqual({ hits: [3], longLine: true })
    expect(search("^\\d+$", tree(size, "OTHER", far))).toEqual({ hits: [], longLine: true })
  })

  it("a match in what is kept: the line matches, no note", () => {
    expect(search("NE+DLE", tree(size, "NEEDLE", 100))).toEqual({ hits: [2, 3], longLine: false })
    expect(search("^x", tree(size, "OTHER", far))).toEqual({ hits: [2], longLine: false })
  })

  it("a line between maxCarry and one chunk more is named too (was: its dropped bytes went unseen)", () => {
    expect(search("NE+DLE", tree(LineSearch.maxCarry + chunk + chunk / 2, "NEEDLE", LineSearch.maxCarry + chunk / 2))).toEqual({ hits: [3], longLine: true })
  })
})
