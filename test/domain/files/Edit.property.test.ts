/**
 * edit_file round-trips BOMs and line endings byte for byte (issue 40 item 3). Generated files, with or without a
 * BOM, in LF, CRLF, CR or mixed line endings, hold one to three copies of a passage (a `§` marks it: nothing else
 * has one, so where old_string can match is known); old_string is the passage written with `\n`, with `\r\n`, or as
 * the first copy's exact bytes. The expected file is built beside it: every byte outside the replaced copies is
 * unchanged, the BOM is kept, and each replacement's line breaks are those of the copy it replaces (else of the
 * line it lands in).
 */
import { describe, expect, it } from "@effect/vitest"
import { Either, FastCheck as fc } from "effect"
import * as Edit from "../../../src/domain/files/Edit.js"

type Ending = "\r\n" | "\n" | "\r"
const enc = new TextEncoder()
const bomBytes = [0xef, 0xbb, 0xbf]

const text = fc.string({ unit: fc.constantFrom("a", "b", " ", "é", "\t", "€", "x"), minLength: 1, maxLength: 6 })
const style = fc.constantFrom<"lf" | "crlf" | "cr" | "mixed">("lf", "crlf", "cr", "mixed")
const ending = fc.constantFrom<Ending>("\n", "\r\n", "\r")

/** A passage: texts with a break between each two; its first text holds the `§`. */
const passage = fc.tuple(fc.array(text, { minLength: 1, maxLength: 4 }), fc.nat({ max: 5 })).map(([texts, at]) => {
  const first = texts[0] ?? "a"
  const cut = at % (first.length + 1)
  return [first.slice(0, cut) + "§" + first.slice(cut), ...texts.slice(1)]
})

const scenario = fc.record({
  bom: fc.boolean(),
  style,
  passage,
  copies: fc.integer({ min: 1, max: 3 }),
  /** Lines (text + break) before each copy and after the last. */
  fillers: fc.array(fc.array(text, { maxLength: 3 }), { minLength: 4, maxLength: 4 }),
  /** For mixed files, the ending of each break, taken in turn. */
  mixed: fc.array(ending, { minLength: 64, maxLength: 64 }),
  replacement: fc.array(fc.string({ unit: fc.constantFrom("N", "e", "w", " ", "ü"), maxLength: 5 }), { minLength: 1, maxLength: 3 }),
  replacementBreak: fc.constantFrom("\n", "\r\n"),
  oldForm: fc.constantFrom<"lf" | "crlf" | "exact">("lf", "crlf", "exact"),
  replaceAll: fc.boolean()
})

const majority = (es: ReadonlyArray<Ending>): Ending | undefined => {
  if (es.length === 0) return undefined
  const n = (e: Ending) => es.filter((x) => x === e).length
  return n("\n") >= n("\r\n") && n("\n") >= n("\r") ? "\n" : n("\r\n") >= n("\r") ? "\r\n" : "\r"
}

describe("Edit.applyTo", () => {
  it("keeps every byte outside the replaced copies, the BOM, and writes the replacement in the file's own line endings", () => {
    fc.assert(
      fc.property(scenario, (s) => {
        let next = 0
        const breakOf = (): Ending =>
          s.style === "lf" ? "\n" : s.style === "crlf" ? "\r\n" : s.style === "cr" ? "\r" : (s.mixed[next++ % s.mixed.length] ?? "\n")
        // The file as pieces: plain bytes, or a copy of the passage (its text with its own breaks).
        type Piece = { readonly kind: "plain"; readonly text: string; readonly breaks: ReadonlyArray<Ending> } | { readonly kind: "copy"; readonly text: string; readonly breaks: ReadonlyArray<Ending> }
        const pieces: Array<Piece> = []
        const fillerPiece = (lines: ReadonlyArray<string>) => {
          const breaks = lines.map(() => breakOf())
          pieces.push({ kind: "plain", text: lines.map((l, i) => l + breaks[i]).join(""), breaks })
        }
        for (let c = 0; c < s.copies; c++) {
          fillerPiece(s.fillers[c] ?? [])
          const breaks = s.passage.slice(1).map(() => breakOf())
          pieces.push({ kind: "copy", text: s.passage.map((t, i) => (i === 0 ? t : (breaks[i - 1] ?? "") + t)).join(""), breaks })
        }
        fillerPiece(s.fillers[3] ?? [])
        const copies = pieces.filter((p) => p.kind === "copy")
        const firstCopy = copies[0]?.text ?? ""
        const old = s.oldForm === "lf" ? s.passage.join("\n") : s.oldForm === "crlf" ? s.passage.join("\r\n") : firstCopy
        // Which copies old_string matches: byte for byte first when it holds a CR, else (or when that finds none) all.
        const exact = copies.filter((p) => p.text === old)
        const matched: ReadonlyArray<Piece> = old.includes("\r") && exact.length > 0 ? exact : copies
        const replacement = s.replacement.join(s.replacementBreak)
        const before = new Uint8Array([...(s.bom ? bomBytes : []), ...enc.encode(pieces.map((p) => p.text).join(""))])
        const outcome = Edit.applyTo(before, { old_string: old, new_string: replacement, replace_all: s.replaceAll })
        if (matched.length > 1 && !s.replaceAll) {
          expect(Either.isLeft(outcome) && outcome.left).toMatchObject({ _tag: "Ambiguous", matches: matched.length })
          return
        }
        // The style a replaced copy is written in: its own breaks, else the next break after it, else the one before.
        const styleOf = (i: number): Ending | undefined => {
          const own = majority(pieces[i]?.breaks ?? [])
          if (own !== undefined) return own
          for (let j = i + 1; j < pieces.length; j++) if ((pieces[j]?.breaks.length ?? 0) > 0) return pieces[j]?.breaks[0]
          for (let j = i - 1; j >= 0; j--) {
            const b = pieces[j]?.breaks ?? []
            if (b.length > 0) return b[b.length - 1]
          }
          return undefined
        }
        const expected = pieces
          .map((p, i) => {
            if (!matched.includes(p)) return p.text
            const st = styleOf(i)
            return st === undefined ? replacement : replacement.replace(/\r\n|\n/g, st)
          })
          .join("")
        expect(Either.isRight(outcome), JSON.stringify(Either.isLeft(outcome) ? outcome.left : "")).toBe(true)
        if (Either.isRight(outcome)) {
          expect(outcome.right.replacements).toBe(matched.length)
          expect(Buffer.from(outcome.right.after).toString("hex")).toBe(Buffer.from([...(s.bom ? bomBytes : []), ...enc.encode(expected)]).toString("hex"))
        }
      }),
      { numRuns: 400 }
    )
  })

  it("keeps bytes that are not UTF-8 outside the edit, and a BOM whatever the strings say of it", () => {
    const latin = new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x0a, 0x6f, 0x6c, 0x64, 0x0a, 0xff, 0x0a])
    const edited = Edit.applyTo(latin, { old_string: "old", new_string: "new" })
    expect(Either.isRight(edited) && [...edited.right.after]).toEqual([0x63, 0x61, 0x66, 0xe9, 0x0a, 0x6e, 0x65, 0x77, 0x0a, 0xff, 0x0a])
    const withBom = new Uint8Array([...bomBytes, ...enc.encode("a\nb\n")])
    for (const [o, n] of [["\uFEFFa\nb\n", "\uFEFFc\n"], ["\uFEFFa", "c"], ["a\nb\n", "\uFEFFc\n"], ["a\nb\n", "c\n"]] as const) {
      const r = Edit.applyTo(withBom, { old_string: o, new_string: n })
      expect(Either.isRight(r) && Buffer.from(r.right.after).toString("hex"), `${JSON.stringify(o)} -> ${JSON.stringify(n)}`).toBe(
        Buffer.from([...bomBytes, ...enc.encode(o === "\uFEFFa" ? "c\nb\n" : "c\n")]).toString("hex")
      )
    }
  })

  it("a CR in old_string means that CR: `foo\\r` on a CRLF file does not take the line break with it", () => {
    const r = Edit.applyTo(enc.encode("foo\r\nbar\r\n"), { old_string: "foo\r", new_string: "foo" })
    expect(Either.isRight(r) && new TextDecoder().decode(r.right.after)).toBe("foo\nbar\r\n")
  })

  it("says why an old_string was not found or is ambiguous once line endings are compared loosely", () => {
    const crlf = Edit.applyTo(enc.encode("a\r\nb\r\n"), { old_string: "a\nc", new_string: "x" })
    expect(Either.isLeft(crlf) && crlf.left).toMatchObject({ _tag: "NotFound", endings: "CRLF line endings" })
    const mixed = Edit.applyTo(enc.encode("a\nb\r\na\r\nb\n"), { old_string: "a\nb", new_string: "x" })
    expect(Either.isLeft(mixed) && mixed.left).toMatchObject({ _tag: "Ambiguous", matches: 2, endings: "mixed CRLF, LF line endings" })
    const lf = Edit.applyTo(enc.encode("a\nb\n"), { old_string: "zz", new_string: "x" })
    expect(Either.isLeft(lf) && lf.left).toMatchObject({ _tag: "NotFound", endings: undefined })
  })

  it("write_file over a file with a BOM keeps it, unless the content brings its own", () => {
    const prev = new Uint8Array([...bomBytes, 0x61])
    expect([...Edit.written(prev, "b").bytes]).toEqual([...bomBytes, 0x62])
    expect([...Edit.written(prev, "\uFEFFb").bytes]).toEqual([...bomBytes, 0x62])
    expect([...Edit.written(enc.encode("a"), "b").bytes]).toEqual([0x62])
    expect([...Edit.written(undefined, "b").bytes]).toEqual([0x62])
  })
})
