/**
 * `Visible`, the pure function every text the CLI prints from the workspace or a process goes through, and
 * `shownPath`, which quotes a name with a control character: tables of the characters that act on a terminal, and
 * properties over any string (nothing that acts survives; what needs nothing is untouched; JSON stays exact).
 */
import { assert, describe, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import * as Visible from "../../../src/domain/core/Visible.js"
import { shownPath } from "../../../src/domain/files/ShownPath.js"

/** Every character a terminal obeys rather than shows (C0 but tab and newline, DEL, C1, bidi controls). */
const acting = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/
const isActing = (c: string) => acting.test(c) || c === "\r"

/** Strings rich in the characters that matter, mixed with ordinary text. */
const risky = fc.string({
  unit: fc.oneof(
    fc.constantFrom("\x1b", "\x07", "\r", "\n", "\t", "\x00", "\x08", "\x7f", "\u0085", "\u009b", "\u202e", "\u2066", "\u2069", "\u200f", "\u2028", "]", "[", "\\", '"'),
    fc.string({ minLength: 1, maxLength: 1, unit: "grapheme" })
  ),
  maxLength: 40
})

describe("Visible.text: content as a terminal may show it", () => {
  it("escapes ESC, BEL, other C0, DEL, C1 and bidi controls; keeps tabs, newlines and a CR before a newline", () => {
    const table: ReadonlyArray<readonly [string, string]> = [
      ["a\x1b]52;c;aGVsbG8=\x07b", "a\\u001b]52;c;aGVsbG8=\\u0007b"],
      ["\x1b[2J\x1b[H", "\\u001b[2J\\u001b[H"],
      ["x\ty\nz\r\n", "x\ty\nz\r\n"],
      ["progress\rforged", "progress\\rforged"],
      ["del\x7f c1\u009b31m nel\u0085", "del\\u007f c1\\u009b31m nel\\u0085"],
      ["abc\u202etxt.exe \u2066x\u2069 \u200f", "abc\\u202etxt.exe \\u2066x\\u2069 \\u200f"],
      ["plain ünïcødé ✓ 日本", "plain ünïcødé ✓ 日本"]
    ]
    for (const [input, shown] of table) assert.strictEqual(Visible.text(input), shown)
  })

  it("leaves nothing that acts (a CR only before a newline), and changes nothing that needs no change", () =>
    fc.assert(
      fc.property(risky, (s) => {
        const shown = Visible.text(s)
        for (let i = 0; i < shown.length; i++) {
          const c = shown[i] ?? ""
          if (c === "\r") assert.strictEqual(shown[i + 1], "\n")
          else assert.isFalse(acting.test(c), `${JSON.stringify(c)} left in ${JSON.stringify(shown)}`)
        }
        if (![...s].some(isActing)) assert.strictEqual(shown, s)
        // The lines of content are the lines of the text: nothing adds or removes one.
        assert.strictEqual(shown.split("\n").length, s.split("\n").length)
      })
    ))
})

describe("Visible.line: one line, for a prompt or a status", () => {
  it("shows newlines and tabs too, so a command or a name cannot start a line of its own", () => {
    assert.strictEqual(Visible.line("x\nminicode: approved\t\x1b[2J"), "x\\nminicode: approved\\t\\u001b[2J")
    fc.assert(fc.property(risky, (s) => assert.isFalse(/[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/.test(Visible.line(s)))))
  })
})

describe("Visible.json: JSON text kept exact", () => {
  it("escapes what JSON.stringify leaves raw, and the text parses back to the very same value", () =>
    fc.assert(
      fc.property(risky, (s) => {
        const text = Visible.json(JSON.stringify({ text: s }))
        assert.isFalse(acting.test(text) || text.includes("\r"))
        assert.deepStrictEqual(JSON.parse(text), { text: s })
      })
    ))
})

describe("shownPath: a name as one item of a listing", () => {
  it("is the name as it is when it holds no control, else a JSON string of it with every control escaped", () => {
    assert.strictEqual(shownPath("src/index.ts"), "src/index.ts")
    assert.strictEqual(shownPath("x\nminicode: approved"), '"x\\nminicode: approved"')
    assert.strictEqual(shownPath("g\u202etxt.exe"), '"g\\u202etxt.exe"')
    assert.strictEqual(shownPath('"quoted"'), '"\\"quoted\\""')
    fc.assert(
      fc.property(risky, (name) => {
        const shown = shownPath(name)
        assert.isFalse(acting.test(shown) || shown.includes("\r") || shown.includes("\n"))
        assert.strictEqual(shown.startsWith('"') ? JSON.parse(shown) : shown, name)
      })
    )
  })
})
