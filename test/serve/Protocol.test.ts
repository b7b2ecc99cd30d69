/**
 * The rules of `mcp serve` as plain data, without fibers: admission and the in-flight cap, refusals before the
 * chain, identities and request keys, the verdicts, and the replay table's transitions (claim, duplicates,
 * conflicts, finishing, fingerprinting past the recent window, eviction within the budget).
 */
import { Either, FastCheck as fc } from "effect"
import { describe, expect, it } from "vitest"
import { ErrorCodes } from "../../src/domain/mcp/JsonRpcFraming.js"
import * as Scopes from "../../src/domain/mcp/McpScopes.js"
import type { JournalRecord } from "../../src/ports/Journal.js"
import * as P from "../../src/serve/Protocol.js"
import * as ReplayTable from "../../src/serve/ReplayTable.js"

const settings = (flags: ReadonlyArray<string> = []) => Either.getOrThrow(Scopes.parse(flags, { allowAll: false, allTools: false }))
const clean = (text: string) => text
/** A stand-in digest: plain data, so the table's rules are checked apart from any hash function. */
const hash = (text: string) => `h${text.length}:${text.slice(0, 8)}`
const fingerprint = (r: P.TextResult) => P.fingerprintOf(r, hash)
const budget = (over: Partial<ReplayTable.Budget> = {}): ReplayTable.Budget => ({
  replayBytes: 1 << 20,
  replayEntries: 100,
  replayWholeReadBytes: 1 << 20,
  fingerprint,
  ...over
})

const code = (o: P.Outcome | "admitted") => (typeof o === "string" || o._tag !== "RpcError" ? undefined : o.code)

describe("Protocol: admission", () => {
  it("admits up to the cap, refuses the next as busy, admits again once one is released", () => {
    let g = P.openGate
    for (let i = 0; i < 3; i++) {
      const [verdict, next] = P.admit(g, 3)
      expect(verdict).toBe("admitted")
      g = next
    }
    expect(g.inFlight).toBe(3)
    const [refused, same] = P.admit(g, 3)
    expect(code(refused)).toBe(ErrorCodes.Busy)
    expect(same).toBe(g)
    const [again, after] = P.admit(P.release(g), 3)
    expect(again).toBe("admitted")
    expect(after).toEqual({ accepting: true, inFlight: 3, admitted: 4 })
  })

  it("refuses everything once it stops accepting, whatever is in flight", () => {
    const g = P.stopAccepting(P.openGate)
    const [verdict] = P.admit(g, 32)
    expect(code(verdict)).toBe(ErrorCodes.ShuttingDown)
  })

  it("in-flight never exceeds the cap and never goes negative over any sequence of admits and releases", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5 }), fc.array(fc.boolean(), { maxLength: 60 }), (cap, ops) => {
        let g = P.openGate
        let held = 0
        for (const admit of ops) {
          if (admit) {
            const [v, next] = P.admit(g, cap)
            if (v === "admitted") held++
            else expect(held).toBe(cap)
            g = next
          } else if (held > 0) {
            held--
            g = P.release(g)
          }
          expect(g.inFlight).toBe(held)
          expect(g.inFlight).toBeLessThanOrEqual(cap)
        }
      })
    )
  })
})

describe("Protocol: refusals before the chain", () => {
  it("an unknown tool and a client tool are JSON-RPC errors; a long name is shortened", () => {
    const unknown = P.prepare(settings(), "x".repeat(500), {}, clean)
    expect(Either.isLeft(unknown) && code(unknown.left)).toBe(ErrorCodes.InvalidParams)
    expect(Either.isLeft(unknown) && unknown.left._tag === "RpcError" && unknown.left.message.length).toBeLessThan(120)
    const client = P.prepare(settings(), "server.tool", {}, clean)
    expect(Either.isLeft(client) && client.left._tag === "RpcError" && client.left.message).toContain("MCP client tool")
    // Inherited object keys are no tool names.
    const proto = P.prepare(settings(), "constructor", {}, clean)
    expect(Either.isLeft(proto) && code(proto.left)).toBe(ErrorCodes.InvalidParams)
  })

  it("bad arguments are an error result naming the field; a scope turned off refuses the call", () => {
    const bad = P.prepare(settings(), "read_file", { path: 5 }, clean)
    expect(Either.isLeft(bad) && bad.left._tag === "Result" && bad.left.result.isError).toBe(true)
    expect(Either.isLeft(bad) && bad.left._tag === "Result" && bad.left.result.text).toMatch(/^invalid arguments for read_file: .*path/)
    const off = P.prepare(settings(["shell=off"]), "bash", { command: "ls" }, clean)
    expect(Either.isLeft(off) && off.left._tag === "Result" && off.left.result.text).toMatch(/^refused \(/)
    const ok = P.prepare(settings(), "read_file", { path: "a.txt" }, clean)
    expect(Either.isRight(ok) && P.rerunnable(ok.right)).toBe(true)
    const write = P.prepare(settings(), "write_file", { path: "a.txt", content: "x" }, clean)
    expect(Either.isRight(write) && P.rerunnable(write.right)).toBe(false)
  })
})

describe("Protocol: identities and verdicts", () => {
  it("the request key tells 5 from \"5\" and other arguments apart; a long identity is hashed", () => {
    expect(P.requestKey(5, "{}")).not.toBe(P.requestKey("5", "{}"))
    expect(P.requestKey(5, '{"a":1}')).not.toBe(P.requestKey(5, '{"a":2}'))
    expect(P.requestKey(5, '{"a":1}')).toBe(P.requestKey(5, '{"a":1}'))
    expect(P.identityOf("short", hash)).toBe("short")
    const long = "y".repeat(65)
    expect(P.identityOf(long, hash)).toBe(`sha256:${hash(long)}`)
  })

  const record = (state: JournalRecord["state"]): JournalRecord => ({
    id: "r",
    seq: 7,
    session: "mcp-server",
    turn: 1,
    tool: "write_file",
    capability: "write",
    paths: ["a.txt"],
    argsHash: "",
    requestId: "k",
    remote: false,
    state,
    note: null,
    createdAt: 0,
    updatedAt: 0,
    finalized: false,
    answered: false,
    resolution: null,
    restores: null
  })

  it("a journal record answers with what became of it, never running the call again", () => {
    const committed = P.journalVerdict(3, record("committed"), false)
    expect(committed._tag === "RpcError" && committed.code).toBe(ErrorCodes.AlreadyHandled)
    expect(committed._tag === "RpcError" && committed.message).toContain("executed successfully")
    const failed = P.journalVerdict(3, record("failed"), true)
    expect(failed._tag === "RpcError" && failed.message).toContain("by an earlier run")
    expect(failed._tag === "RpcError" && failed.message).toContain("new request id")
    for (const state of ["pending", "unknown"] as const) {
      const v = P.journalVerdict(3, record(state), false)
      expect(v._tag === "RpcError" && v.message).toContain("outcome is unknown")
    }
  })

  it("a cancelled mutation says its effect is unknown; a cancelled read just that it was cancelled", () => {
    const m = P.cancelledWhileRunning(1, true)
    expect(m._tag === "RpcError" && m.message).toContain("may or may not have happened")
    expect(P.cancelledWhileRunning(1, false)).toEqual(P.gone(1))
  })

  it("a re-run read answers only with the very same result", () => {
    const first = P.result("same")
    const kept = fingerprint({ text: "same", isError: false })
    expect(P.rerunVerdict(1, P.result("same"), kept, fingerprint)).toEqual(first)
    const changed = P.rerunVerdict(1, P.result("other"), kept, fingerprint)
    expect(changed._tag === "RpcError" && changed.message).toContain("different result")
    // An error result with the same text is not the same answer.
    expect(P.rerunVerdict(1, P.result("same", true), kept, fingerprint)._tag).toBe("RpcError")
  })
})

type T = ReplayTable.Table<string, string>

describe("ReplayTable", () => {
  const own = (t: T, wire: string, identity = "call", rerunnable = false, owner = `fiber-${wire}`) => {
    const [claim, next] = ReplayTable.claim(t, wire, { identity, rerunnable, owner })
    if (claim._tag !== "Own") throw new Error(`expected Own, got ${claim._tag}`)
    return { entry: claim.entry, table: next }
  }

  it("a new id is owned; a duplicate while it runs joins it; other arguments under the id conflict", () => {
    const { entry, table } = own(ReplayTable.empty(), "1")
    const [dup] = ReplayTable.claim(table, "1", { identity: "call", rerunnable: false, owner: "other" })
    expect(dup).toEqual({ _tag: "Join", seq: entry.seq, owner: "fiber-1" })
    const [conflict] = ReplayTable.claim(table, "1", { identity: "another", rerunnable: false, owner: "other" })
    expect(conflict._tag).toBe("Conflict")
    expect(ReplayTable.running(table)).toEqual(["fiber-1"])
  })

  it("finishing hands the outcome to the waiters and keeps it for a retry; not kept, the id is free again", () => {
    const { entry, table } = own(ReplayTable.empty(), "1")
    const [joined, waiting] = ReplayTable.join(table, "1", entry.seq, "waiter-a")
    expect(joined._tag).toBe("Wait")
    const [waiters, done] = ReplayTable.finish(waiting, "1", entry, P.result("ok"), true, budget())
    expect(waiters).toEqual(["waiter-a"])
    expect(ReplayTable.claim(done, "1", { identity: "call", rerunnable: false, owner: "x" })[0]).toEqual({ _tag: "Replay", outcome: P.result("ok") })
    expect(ReplayTable.join(done, "1", entry.seq, "late")[0]).toEqual({ _tag: "Now", outcome: P.result("ok") })
    expect(ReplayTable.running(done)).toEqual([])

    const second = own(done, "2")
    const [, dropped] = ReplayTable.finish(second.table, "2", second.entry, P.gone(2), false, budget())
    expect(ReplayTable.join(dropped, "2", second.entry.seq, "w")[0]._tag).toBe("Gone")
    expect(ReplayTable.claim(dropped, "2", { identity: "call", rerunnable: false, owner: "y" })[0]._tag).toBe("Own")
  })

  it("finishing an entry that was replaced (a newer seq) changes nothing", () => {
    const first = own(ReplayTable.empty(), "1")
    const [, freed] = ReplayTable.finish(first.table, "1", first.entry, P.gone(1), false, budget())
    const second = own(freed, "1")
    const [waiters, same] = ReplayTable.finish(second.table, "1", first.entry, P.result("stale"), true, budget())
    expect(waiters).toEqual([])
    expect(ReplayTable.running(same)).toEqual(["fiber-1"])
  })

  it("reads past the recent window keep only a fingerprint, a retry re-runs them; writes stay whole", () => {
    const b = budget({ replayWholeReadBytes: 2000 })
    let t: T = ReplayTable.empty()
    for (let i = 0; i < 10; i++) {
      const o = own(t, `r${i}`, `read${i}`, true)
      t = ReplayTable.finish(o.table, `r${i}`, o.entry, P.result(`text ${i} `.repeat(20)), true, b)[1]
    }
    const w = own(t, "w", "write", false)
    t = ReplayTable.finish(w.table, "w", w.entry, P.result("written"), true, b)[1]
    const [oldest] = ReplayTable.claim(t, "r0", { identity: "read0", rerunnable: true, owner: "x" })
    expect(oldest).toEqual({ _tag: "Rerun", fingerprint: fingerprint({ text: "text 0 ".repeat(20), isError: false }) })
    const [newest] = ReplayTable.claim(t, "r9", { identity: "read9", rerunnable: true, owner: "x" })
    expect(newest._tag).toBe("Replay")
    expect(ReplayTable.claim(t, "w", { identity: "write", rerunnable: false, owner: "x" })[0]._tag).toBe("Replay")
    expect(t.recentBytes).toBeLessThanOrEqual(2000)
  })

  it("stays within its entry budget, dropping the oldest finished first and never a running one", () => {
    const b = budget({ replayEntries: 8 })
    let t: T = ReplayTable.empty()
    const running = own(t, "keep")
    t = running.table
    for (let i = 0; i < 40; i++) {
      const o = own(t, `${i}`)
      t = ReplayTable.finish(o.table, `${i}`, o.entry, P.result(`${i}`), true, b)[1]
      expect(t.entries.size).toBeLessThanOrEqual(9)
    }
    expect(ReplayTable.running(t)).toEqual(["fiber-keep"])
    expect(ReplayTable.claim(t, "0", { identity: "call", rerunnable: false, owner: "x" })[0]._tag).toBe("Own")
    expect(ReplayTable.claim(t, "39", { identity: "call", rerunnable: false, owner: "x" })[0]._tag).toBe("Replay")
  })

  it("stays within its byte budget over any sequence of results", () => {
    fc.assert(
      fc.property(fc.array(fc.record({ size: fc.integer({ min: 0, max: 400 }), read: fc.boolean() }), { maxLength: 80 }), (calls) => {
        const b = budget({ replayBytes: 4000, replayEntries: 1000, replayWholeReadBytes: 1500 })
        let t: T = ReplayTable.empty()
        for (const [i, c] of calls.entries()) {
          const o = own(t, `${i}`, `c${i}`, c.read)
          t = ReplayTable.finish(o.table, `${i}`, o.entry, P.result("x".repeat(c.size)), true, b)[1]
          // One result may push it over before the eviction (which goes down to three quarters) runs.
          expect(t.bytes).toBeLessThanOrEqual(4000)
          expect(t.bytes).toBeGreaterThanOrEqual(0)
        }
      })
    )
  })
})
