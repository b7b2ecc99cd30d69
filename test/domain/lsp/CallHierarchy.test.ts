import { describe, expect, it } from "vitest"
import * as CallHierarchy from "../../../src/domain/lsp/CallHierarchy.js"

const range = (line: number, character: number) => ({ start: { line, character }, end: { line, character: character + 3 } })
const item = (name: string, uri: string, line: number): CallHierarchy.Item => ({ name, kind: 12, uri, range: range(line, 0), selectionRange: range(line, 9) })
const at = (text: string, line: number, character: number, snippet?: string) => ({ text, line, character, snippet, inside: true })

describe("CallHierarchy", () => {
  it("puts incoming call sites in the caller's file and outgoing ones in the asked function's", () => {
    const asked = item("total", "file:///w/main.ts", 2)
    const caller = item("report", "file:///w/report.ts", 6)
    const incoming = CallHierarchy.callsOf("incoming", asked, [{ from: caller, fromRanges: [range(7, 14), range(8, 19)] }])
    expect(incoming).toEqual([{ item: caller, sites: [{ uri: "file:///w/report.ts", range: range(7, 14) }, { uri: "file:///w/report.ts", range: range(8, 19) }] }])
    const callee = item("area", "file:///w/shapes.ts", 5)
    const outgoing = CallHierarchy.callsOf("outgoing", asked, [{ to: callee, fromRanges: [range(3, 30)] }])
    expect(outgoing).toEqual([{ item: callee, sites: [{ uri: "file:///w/main.ts", range: range(3, 30) }] }])
    // An entry of the other direction's shape (a server's mistake) is no call; null is none.
    expect(CallHierarchy.callsOf("incoming", asked, [{ to: callee, fromRanges: [range(1, 1)] }])).toEqual([])
    expect(CallHierarchy.callsOf("outgoing", asked, null)).toEqual([])
  })

  it("says what it found, and what it did not, in words", () => {
    const calls = [{ name: "report", kind: 12, at: at("report.ts", 6, 16), sites: [at("report.ts", 7, 14, "const all = total([])"), at("report.ts", 8, 19)] }]
    expect(CallHierarchy.format("incoming calls of total (main.ts:3:17)", "incoming", 1, calls).text).toBe(
      "incoming calls of total (main.ts:3:17): 2 calls from 1 function\nfunction report  report.ts:7:17\n  report.ts:8:15  const all = total([])\n  report.ts:9:20"
    )
    expect(CallHierarchy.format("outgoing calls of main (m.ts:1:1)", "outgoing", 1, calls).text).toMatch(/: 1 function called, at 2 sites\nfunction report {2}report\.ts:7:17\n {2}called at report\.ts:8:15/)
    expect(CallHierarchy.format("incoming calls of m.ts:2:1", "incoming", 0, []).text).toBe("incoming calls of m.ts:2:1: no function or method here (the server prepared no call hierarchy item)")
    expect(CallHierarchy.format("incoming calls of x", "incoming", 1, []).text).toBe("incoming calls of x: no callers found")
    expect(CallHierarchy.format("outgoing calls of x", "outgoing", 1, []).text).toBe("outgoing calls of x: no calls found")
  })

  it("truncates at the limit and says how many call sites it left out", () => {
    const sites = Array.from({ length: 5 }, (_, i) => at("a.ts", i, 0))
    const r = CallHierarchy.format("incoming calls of f", "incoming", 1, [{ name: "g", kind: 12, at: at("a.ts", 0, 0), sites }], 3)
    expect(r.truncated).toBe(true)
    expect(r.text.split("\n").filter((l) => l.startsWith("  "))).toHaveLength(3)
    expect(r.text).toMatch(/\[truncated: 2 more call sites\]$/)
  })
})
