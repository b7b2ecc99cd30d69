/**
 * The streamed window (tools/ReadWindow) against the whole-file listing it stands in for: for generated files (a BOM
 * or not, LF/CRLF/CR, multibyte and invalid UTF-8, long lines, a last line with or without a break) cut into chunks
 * of any size, the lines shown, their cuts and lengths, the line count (when read to the end), past-the-end and the
 * binary rule are those of decoding and splitting the whole file, and reading stops once the window is complete.
 */
import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import * as ReadWindow from "../../src/tools/ReadWindow.js"

const lineChars = 5

/** What read_file shows of a line: as the whole-file path cuts it. */
const shown = (line: string, length = line.length) => (length > lineChars ? `${line.slice(0, lineChars)} [${length}]` : line)

const piece = fc.oneof(
  fc.constantFrom("a", "bc", "é", "€", "😀", "\n", "\r\n", "\r", "\t", " "),
  fc.constantFrom(new Uint8Array([0xff]), new Uint8Array([0xe2, 0x82]), new Uint8Array([0xef, 0xbb, 0xbf])),
  fc.string({ minLength: 6, maxLength: 40 })
)

const file = fc
  .tuple(fc.boolean(), fc.array(piece, { maxLength: 60 }), fc.boolean())
  .map(([bom, pieces, nul]) => {
    const parts = pieces.map((p) => (typeof p === "string" ? Buffer.from(p) : Buffer.from(p)))
    return Buffer.concat([bom ? Buffer.from([0xef, 0xbb, 0xbf]) : Buffer.alloc(0), ...parts, nul ? Buffer.from([0]) : Buffer.alloc(0)])
  })

describe("ReadWindow", () => {
  it("shows what the whole-file listing shows, and stops once the window is complete", () => {
    fc.assert(
      fc.property(file, fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 8 }), fc.integer({ min: 3, max: 50 }), (bytes, first, limit, chunk) => {
        const r = ReadWindow.reader(first, limit, lineChars)
        let pushed = 0
        for (let at = 0; at < bytes.length; at += chunk) {
          pushed = at + chunk
          if (!r.push(bytes.subarray(at, at + chunk))) break
        }
        const w = r.end()
        // The whole-file path (FileTools.readFile): binary by a NUL in the first 8 KiB, decoded (a leading BOM dropped), split.
        if (bytes.subarray(0, 8192).includes(0)) {
          expect(w._tag).toBe("Binary")
          return
        }
        const text = new TextDecoder().decode(bytes)
        if (text === "") {
          expect(w._tag).toBe("Empty")
          return
        }
        const all = text.endsWith("\n") ? text.slice(0, -1).split("\n") : text.split("\n")
        if (first > all.length) {
          expect(w).toEqual({ _tag: "PastEnd", lines: all.length })
          return
        }
        const want = all.slice(first - 1, first - 1 + limit)
        expect(w._tag).toBe("Lines")
        if (w._tag !== "Lines") return
        expect(w.lines.map((l, i) => shown(l, w.lengths[i]))).toEqual(want.map((l) => shown(l)))
        expect(w.bom).toBe(bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf)
        const last = first + want.length - 1
        if (w.total === undefined) {
          // Stopped after the window: there was more, and it was not read to the end.
          expect(last).toBeLessThan(all.length)
          expect(pushed).toBeLessThan(bytes.length + chunk)
        } else expect(w.total).toBe(all.length)
      }),
      { numRuns: 1500 }
    )
  })

  it("stops at the window's last line once the first 8 KiB are seen: no chunk after is asked for", () => {
    const r = ReadWindow.reader(2, 2, 100)
    // Once the binary rule's 8 KiB are seen too (a first chunk of 1 MiB covers them).
    expect(r.push(Buffer.from("one\ntwo\nthree\nfour\n"))).toBe(true)
    expect(r.push(Buffer.from("x".repeat(9000)))).toBe(false)
    expect(r.end()).toEqual({ _tag: "Lines", lines: ["two", "three"], lengths: [undefined, undefined], total: undefined, bom: false })
  })

  it("keeps no more lines than the output's cap can show: a huge limit ends the window there", () => {
    const r = ReadWindow.reader(1, 1_000_000, 100, 50)
    expect(r.push(Buffer.from(("x".repeat(20) + "\n").repeat(500)))).toBe(false)
    const w = r.end()
    // 28 characters a line counted (number, tab, text): the second line passes 50, and the window ends there.
    expect(w._tag === "Lines" && [w.lines.length, w.total]).toEqual([2, undefined])
  })

  it("a line of many chunks keeps only what is shown and counts the rest", () => {
    const r = ReadWindow.reader(1, 1, 4)
    r.push(Buffer.from("ab€"))
    for (let i = 0; i < 1000; i++) r.push(Buffer.from("😀😀"))
    const w = r.end()
    // Cut where the whole-file path cuts (`slice`, here inside the first emoji's surrogate pair).
    expect(w).toEqual({ _tag: "Lines", lines: ["ab€\uD83D"], lengths: [3 + 4000], total: 1, bom: false })
  })
})
