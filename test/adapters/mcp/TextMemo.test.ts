import { FastCheck as fc } from "effect"
import { describe, expect, it } from "vitest"
import * as TextMemo from "../../../src/adapters/mcp/TextMemo.js"

describe("TextMemo", () => {
  it("derives once for an admitted text, every time for any other, within its bounds (against a reference list)", () => {
    // Texts of a few lengths, many of the same length, so finding one means comparing.
    const text = fc.tuple(fc.integer({ min: 0, max: 5 }), fc.constantFrom("ab", "ba", "aa")).map(([n, s]) => s.repeat(n + 1))
    const op = fc.oneof(fc.record({ admit: fc.constant(true), text }), fc.record({ admit: fc.constant(false), text }))
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5 }), fc.integer({ min: 8, max: 40 }), fc.array(op, { maxLength: 60 }), (maxEntries, maxChars, ops) => {
        const memo = TextMemo.empty<string>({ maxEntries, maxChars })
        let kept: Array<{ text: string; made: number }> = []
        let calls = 0
        const make = (t: string) => `${t}#${++calls}`
        for (const o of ops) {
          if (o.admit) {
            if (o.text.length <= maxChars / 8 && !kept.some((k) => k.text === o.text)) {
              kept.push({ text: o.text, made: 0 })
              while (kept.length > maxEntries || kept.reduce((n, k) => n + k.text.length, 0) > maxChars) kept = kept.slice(1)
            }
            TextMemo.admit(memo, o.text)
          } else {
            const before = calls
            const value = TextMemo.derive(memo, o.text, make)
            const slot = kept.find((k) => k.text === o.text)
            if (slot === undefined) expect(calls).toBe(before + 1)
            else {
              if (slot.made === 0) slot.made = calls
              expect(value).toBe(`${o.text}#${slot.made}`)
            }
          }
          expect(TextMemo.size(memo)).toBe(kept.length)
          expect(memo.chars).toBe(kept.reduce((n, k) => n + k.text.length, 0))
        }
      }),
      { numRuns: 300 }
    )
  })

  it("tells apart texts of one length that differ only at the end", () => {
    const memo = TextMemo.empty<number>({ maxEntries: 4, maxChars: 1 << 20 })
    const a = `${"x".repeat(20_000)}a`
    const b = `${"x".repeat(20_000)}b`
    TextMemo.admit(memo, a)
    expect(TextMemo.derive(memo, a, () => 1)).toBe(1)
    expect(TextMemo.derive(memo, b, () => 2)).toBe(2)
    expect(TextMemo.derive(memo, `${"x".repeat(20_000)}a`, () => 3)).toBe(1)
  })
})
