/** `stringify`: the reply serialiser of `mcp serve`, which must write exactly what JSON.stringify writes. */
import { FastCheck as fc } from "effect"
import { describe, expect, it } from "vitest"
import { stringify } from "../../../src/domain/mcp/JsonRpcFraming.js"

describe("stringify", () => {
  // Every string of 2 chars or more goes through the memo here, which must not change a byte.
  const memo = () => {
    const kept = new Map<string, string>()
    let asked = 0
    return {
      escape: (text: string) => {
        asked++
        const found = kept.get(text) ?? JSON.stringify(text)
        kept.set(text, found)
        return found
      },
      asked: () => asked
    }
  }

  it("gives JSON.stringify's text for any value, odd ones included", () => {
    const m = memo()
    fc.assert(
      fc.property(
        fc.anything({ withBoxedValues: true, withMap: true, withSet: true, withSparseArray: true, withNullPrototype: true, withTypedArray: true, withDate: true, withObjectString: true }),
        (value) => {
          expect(stringify(value, m.escape, 2)).toBe(JSON.stringify(value))
          expect(stringify({ result: { content: [{ type: "text", text: value }] }, jsonrpc: "2.0", id: 1 }, m.escape, 2)).toBe(
            JSON.stringify({ result: { content: [{ type: "text", text: value }] }, jsonrpc: "2.0", id: 1 })
          )
        }
      ),
      { numRuns: 500 }
    )
    expect(m.asked()).toBeGreaterThan(100)
  })

  it("writes long strings, lone surrogates and all, through the escaper, and short ones without it", () => {
    const m = memo()
    const text = `${"\u0000\t\n\"\\\ud800 é 😀".repeat(10)}\udc00`
    const reply = { result: { content: [{ type: "text", text }], isError: false }, jsonrpc: "2.0", id: "7" }
    expect(stringify(reply, m.escape, 64)).toBe(JSON.stringify(reply))
    expect(m.asked()).toBe(1)
    expect(stringify(reply, m.escape, 64)).toBe(JSON.stringify(reply))
    expect(m.asked()).toBe(2)
    expect(JSON.parse(stringify(reply, m.escape, 64) ?? "")).toEqual(reply)
  })
})
