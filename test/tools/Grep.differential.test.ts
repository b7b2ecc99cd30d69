/**
 * grep's matches equal JavaScript's RegExp, line by line, over generated patterns and texts (issue 40, item 1):
 * the own walk (LineSearch: the required-literal prefilter, then the regex) and ripgrep (the pattern rewritten by
 * RustRegex.fromJs; a pattern it cannot rewrite goes to the own walk). The grammar holds escapes whose payload must
 * never be read as text (`\uXXXX`, `\u{…}`, `\xHH`, `\cX`, `\p{…}`, `\k<name>`, back-references, octal), classes
 * (`[]` and `[^]` too), groups of every kind, look-around, alternation and quantifiers; the texts hold what those
 * escapes match and what their payload spells (`00a0`, `{Lu}`, `k<n>`). grep promises JavaScript's meaning
 * (README: rg's pattern "rewritten from JavaScript syntax", the same results as the own walk): case-sensitive
 * patterns compile with no flag, ignore_case with `iu` when the pattern means the same with it, else `i`.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { FastCheck as fc } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as RegexLiteral from "../../src/domain/files/RegexLiteral.js"
import * as RustRegex from "../../src/domain/files/RustRegex.js"
import * as RipgrepSearch from "../../src/adapters/search/RipgrepSearch.js"
import * as Unavailable from "../../src/adapters/Unavailable.js"
import { runTool } from "../../src/index.js"
import * as LineSearch from "../../src/tools/LineSearch.js"

/** The regex grep means (LineSearch's compile, restated): `iu` for ignore_case when valid and free of `\u{`. */
export const oracle = (pattern: string, ignoreCase: boolean): RegExp => {
  if (!ignoreCase) return new RegExp(pattern, "")
  if (!pattern.includes("\\u{")) {
    try {
      return new RegExp(pattern, "iu")
    } catch {
      // not valid with u
    }
  }
  return new RegExp(pattern, "i")
}

const valid = (pattern: string, ignoreCase: boolean) => {
  try {
    oracle(pattern, ignoreCase)
    return true
  } catch {
    return false
  }
}

const chars = ["a", "b", "A", "B", "é", "É", "0", "7", " ", "-", "_", "{", "}", "<", ">", ",", "\t", "\u00a0", "z"]
const escapes = [
  "\\u00a0", "\\u0061", "\\u0041", "\\u00e9", "\\x61", "\\x41", "\\xe9", "\\x20", "\\cI", "\\ci", "\\c1",
  "\\p{Lu}", "\\p{L}", "\\P{Ll}", "\\p{Nd}", "\\u{61}", "\\u{2}", "\\k<n>", "\\1", "\\2", "\\0", "\\01", "\\7",
  "\\d", "\\D", "\\w", "\\W", "\\s", "\\S", "\\b", "\\B", "\\.", "\\-", "\\{", "\\}", "\\a", "\\e", "\\t", "\\/"
]
const classes = ["[abc]", "[^a]", "[a-c]", "[\\d_]", "[\\u0061-\\u0062]", "[\\x41B]", "[]", "[^]", "[\\p{Lu}]", "[é-ê]", "[\\]a]", "[{]"]

const atom: fc.Arbitrary<string> = fc.letrec<{ atom: string; seq: string; alt: string }>((tie) => ({
  atom: fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...chars) },
    { weight: 5, arbitrary: fc.constantFrom(...escapes) },
    { weight: 2, arbitrary: fc.constantFrom(...classes) },
    { weight: 1, arbitrary: fc.constantFrom(".", "^", "$") },
    {
      weight: 2,
      arbitrary: fc
        .tuple(fc.constantFrom("(", "(?:", "(?<n>", "(?=", "(?!", "(?<=", "(?<!"), tie("alt"))
        .map(([open, body]) => `${open}${body})`)
    }
  ),
  seq: fc
    .array(fc.tuple(tie("atom"), fc.constantFrom("", "", "", "*", "+", "?", "{2}", "{1,2}", "*?", "+?", "{0}")), { minLength: 1, maxLength: 4, depthIdentifier: "re" })
    .map((items) => items.map(([a, q]) => a + q).join("")),
  alt: fc.array(tie("seq"), { minLength: 1, maxLength: 3, depthIdentifier: "re" }).map((bs) => bs.join("|"))
})).alt

const fragments = [...chars, "p{Lu}", "{Lu}", "k<n>", "00a0", "41", "e9", "u{61}", "uu", "cI", "aa", "ab", "aA", "é", "Ab7", "{2}", "\\"]
const line = fc.array(fc.constantFrom(...fragments), { maxLength: 8 }).map((f) => f.join(""))
const text = fc.array(line, { minLength: 1, maxLength: 5 }).map((ls) => ls.join("\n"))

const patternArb = (ignoreCase: boolean) => atom.filter((p) => p.length <= 60 && valid(p, ignoreCase))

/** A text's lines as grep numbers them (a final newline ends the last line, adds none; an empty file has none). */
const linesOf = (t: string) => {
  if (t === "") return []
  const ls = t.split("\n")
  if (t.endsWith("\n")) ls.pop()
  return ls
}

const expected = (pattern: string, ignoreCase: boolean, t: string) => {
  const re = oracle(pattern, ignoreCase)
  return linesOf(t).flatMap((l, i) => (re.test(l) ? [i + 1] : []))
}

/** The own walk's search of one file, fed as one chunk or split at `cut`. */
const ownHits = (pattern: string, ignoreCase: boolean, t: string, cut?: number) => {
  const hits: Array<number> = []
  const s = LineSearch.fileSearch(LineSearch.matcher(pattern, ignoreCase), (n) => {
    hits.push(n)
    return true
  })
  const bytes = Buffer.from(t, "utf8")
  if (cut === undefined || cut <= 0 || cut >= bytes.byteLength) s.feed(bytes, true, true)
  else if (s.feed(bytes.subarray(0, cut), true, false)) s.feed(bytes.subarray(cut), false, true)
  return hits
}

describe("the required-literal prefilter reads no escape's payload as text", () => {
  it.each([
    ["\\u00a0", "a\u00a0b"],
    ["x\\u0041y", "xAy"],
    ["\\x41BC", "ABC"],
    ["Q\\cIR", "Q\tR"],
    ["(?<d>7)\\k<d>", "77"],
    ["(a)\\1", "aa"],
    ["a\\u{2}", "auu"],
    ["x[]|abc]", "abc]"],
    ["zz[^]ab]", "zzQab]"]
  ])("%s finds its match", (pattern, line) => {
    expect(ownHits(pattern, false, `${line}\n`)).toEqual([1])
    expect(expected(pattern, false, `${line}\n`)).toEqual([1])
  })

  it("\\p{Lu} with ignore_case (the u flag: a property, not the text {Lu})", () => {
    expect(ownHits("x\\p{Lu}y", true, "xAy\n")).toEqual([1])
  })

  it("a literal only from what it understands", () => {
    expect(RegexLiteral.requiredLiteral("foo\\.bar")).toBe("foo.bar")
    expect(RegexLiteral.requiredLiteral("foo\\dbarbaz")).toBe("barbaz")
    expect(RegexLiteral.requiredLiteral("abc\\u0041")).toBe("")
    expect(RegexLiteral.requiredLiteral("abc\\p{Lu}")).toBe("")
  })

  it("property: the own walk's lines are JavaScript's, case-sensitive and not", () => {
    let cases = 0
    fc.assert(
      fc.property(fc.boolean(), fc.nat(200), fc.boolean().chain((ic) => fc.tuple(fc.constant(ic), patternArb(ic), text)), (_b, cut, [ic, pattern, t]) => {
        cases++
        expect(ownHits(pattern, ic, t), `/${pattern}/${ic ? "i" : ""} over ${JSON.stringify(t)}`).toEqual(expected(pattern, ic, t))
        expect(ownHits(pattern, ic, t, cut)).toEqual(expected(pattern, ic, t))
      }),
      { numRuns: 3000 }
    )
    expect(cases).toBe(3000)
  })
})

const hasRg = spawnSync("rg", ["--version"], { stdio: "ignore" }).status === 0

describe("grep's two engines against JavaScript", () => {
  let base: string
  beforeAll(() => {
    base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "minicode-grep-diff-")))
  })
  afterAll(() => fs.rmSync(base, { recursive: true, force: true }))

  const grepLines = async (engine: "rg" | "node", root: string, pattern: string, ignoreCase: boolean) => {
    const textSearch = engine === "rg" ? RipgrepSearch.layer() : Unavailable.textSearch
    const r = await runTool({ workspace: root, tool: "grep", args: { pattern, ignore_case: ignoreCase }, adapters: { textSearch } })
    expect(r.ok, JSON.stringify(r)).toBe(true)
    const out = r.ok ? r.text : ""
    if (out.startsWith("no matches")) return []
    return out.split("\n").map((l) => Number(l.split(":")[1]))
  }

  it.skipIf(!hasRg)("property: rg and the own walk show JavaScript's lines", async () => {
    let n = 0
    let viaRg = 0
    await fc.assert(
      fc.asyncProperty(fc.boolean().chain((ic) => fc.tuple(fc.constant(ic), patternArb(ic), text)), async ([ic, pattern, t]) => {
        const root = path.join(base, `ws${n++}`)
        fs.mkdirSync(root)
        fs.writeFileSync(path.join(root, "t.txt"), t)
        const want = expected(pattern, ic, t)
        const label = `/${pattern}/${ic ? "i" : ""} over ${JSON.stringify(t)}`
        if (RustRegex.fromJs(pattern) !== undefined) viaRg++
        expect(await grepLines("node", root, pattern, ic), `own walk ${label}`).toEqual(want)
        expect(await grepLines("rg", root, pattern, ic), `rg ${label}`).toEqual(want)
        fs.rmSync(root, { recursive: true, force: true })
      }),
      { numRuns: 150 }
    )
    console.log(`engines' differential: ${n} cases, ${viaRg} of them through rg's rewrite`)
  }, 240_000)
})
