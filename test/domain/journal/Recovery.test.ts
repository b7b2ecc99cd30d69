import { assert, describe, it } from "@effect/vitest"
import { FastCheck } from "effect"
import * as Recovery from "../../../src/domain/journal/Recovery.js"

const StateArb = FastCheck.constantFrom("pending", "committed", "failed", "unknown") satisfies FastCheck.Arbitrary<Recovery.RecordState>

const RecordArb = FastCheck.record({
  seq: FastCheck.integer({ min: 1, max: 200 }),
  session: FastCheck.constantFrom("s1", "s2"),
  turn: FastCheck.integer({ min: 0, max: 5 }),
  tool: FastCheck.constantFrom("write_file", "edit_file", "mcp_call", Recovery.integrityTool),
  paths: FastCheck.array(FastCheck.constantFrom("a.txt", "src/b.ts"), { maxLength: 2 }),
  remote: FastCheck.boolean(),
  state: StateArb,
  finalized: FastCheck.boolean(),
  note: FastCheck.constant(null),
  resolution: FastCheck.constantFrom<Recovery.Resolution | null>(null, "applied", "absent")
})
const RecordsArb = FastCheck.uniqueArray(RecordArb, { selector: (r) => r.seq, maxLength: 30 })
const DamageArb = FastCheck.array(
  FastCheck.record({ seq: FastCheck.option(FastCheck.integer({ min: 1, max: 200 }), { nil: null }), reason: FastCheck.constant("x") }),
  { maxLength: 3 }
)

/** The only ways a call may be reported done: the journal committed a local effect, or a human said applied. */
const verifiedDone = (r: Recovery.RecoveryInput): boolean =>
  r.resolution === "applied" ||
  (r.resolution == null && r.tool !== Recovery.integrityTool && r.state === "committed" && !r.remote)

describe("Recovery.plan", () => {
  it.prop("never reports an unverified or damaged record as done", { records: RecordsArb, damage: DamageArb }, ({ damage, records }) => {
    const plan = Recovery.plan(records, damage)
    const damaged = new Set(damage.map((d) => d.seq))
    for (const item of plan.items) {
      if (item.classification !== "done") continue
      const record = records.find((r) => r.seq === item.seq)
      assert.isDefined(record)
      if (record === undefined) continue
      assert.isTrue(verifiedDone(record), `#${record.seq} reported done`)
      assert.isFalse(damaged.has(record.seq))
    }
  })

  it.prop("lists every unfinalised record once, no finalised one, and is clean only when all are done", { records: RecordsArb, damage: DamageArb }, ({ damage, records }) => {
    const plan = Recovery.plan(records, damage)
    const open = records.filter((r) => !r.finalized).map((r) => r.seq)
    const listed = plan.items.filter((i) => i.classification !== "ambiguous").map((i) => i.seq)
    for (const seq of listed) assert.include(open, seq)
    for (const seq of open) assert.isTrue(plan.items.some((i) => i.seq === seq) || damage.some((d) => d.seq === seq))
    assert.strictEqual(plan.items.filter((i) => i.classification === "ambiguous").length >= damage.length, true)
    assert.strictEqual(plan.clean, plan.items.every((i) => i.classification === "done"))
    if (damage.length > 0) assert.isFalse(plan.clean)
  })

  it("classifies each case with its advice", () => {
    const base = { seq: 1, session: "s", turn: 1, tool: "write_file", paths: ["a.txt"], remote: false, finalized: false, note: null }
    const cases: ReadonlyArray<readonly [Partial<Recovery.RecoveryInput>, Recovery.Classification]> = [
      [{ state: "committed" }, "done"],
      [{ state: "pending" }, "verify"],
      [{ state: "unknown" }, "verify"],
      [{ state: "failed" }, "failed"],
      [{ state: "committed", remote: true }, "read-back"],
      [{ state: "pending", remote: true }, "read-back"],
      [{ state: "pending", resolution: "applied" }, "done"],
      [{ state: "unknown", resolution: "absent" }, "failed"],
      [{ state: "unknown", tool: Recovery.integrityTool }, "ambiguous"]
    ]
    for (const [over, expected] of cases) {
      const item = Recovery.plan([{ ...base, state: "pending", ...over }]).items[0]
      assert.strictEqual(item?.classification, expected, JSON.stringify(over))
    }
    assert.include(Recovery.plan([{ ...base, state: "pending" }]).items[0]?.advice ?? "", "a.txt")
  })
})

// A model of a process running calls and crashing anywhere: the journal as a list, the world as a set of
// applied calls. Whatever the crash points, a call reported done has really happened.
type Crash = "none" | "before-intent" | "after-intent" | "after-effect" | "after-terminal"
const RunArb = FastCheck.array(
  FastCheck.record({
    remote: FastCheck.boolean(),
    fails: FastCheck.boolean(),
    crash: FastCheck.constantFrom<Crash>("none", "none", "before-intent", "after-intent", "after-effect", "after-terminal"),
    finalizeAfter: FastCheck.boolean()
  }),
  { maxLength: 25 }
)

describe("Recovery.plan over crashing runs", () => {
  it.prop("for any interleaving of calls and crashes, an unverified call is never done", { run: RunArb }, ({ run }) => {
    const journal: Array<{ seq: number; session: string; turn: number; tool: string; paths: ReadonlyArray<string>; remote: boolean; state: Recovery.RecordState; finalized: boolean; note: null }> = []
    const applied = new Set<number>()
    let turn = 1
    let seq = 0
    for (const call of run) {
      if (call.crash === "before-intent") { turn += 1; continue }
      seq += 1
      const record = { seq, session: "s", turn, tool: call.remote ? "mcp_call" : "write_file", paths: ["f"], remote: call.remote, state: "pending" as Recovery.RecordState, finalized: false, note: null }
      journal.push(record)
      if (call.crash === "after-intent") { turn += 1; continue }
      if (!call.fails) applied.add(seq)
      if (call.crash === "after-effect") { turn += 1; continue }
      record.state = call.fails ? "failed" : "committed"
      if (call.crash === "after-terminal") { turn += 1; continue }
      if (call.finalizeAfter) {
        for (const r of journal) if (r.turn === turn) r.finalized = true
        turn += 1
      }
    }
    const plan = Recovery.plan(journal)
    for (const item of plan.items) {
      if (item.classification === "done") assert.isTrue(item.seq !== null && applied.has(item.seq))
      if (item.seq !== null && !applied.has(item.seq)) assert.notStrictEqual(item.classification, "done")
    }
    // Every unfinalised call is accounted for: nothing lost.
    assert.strictEqual(plan.items.length, journal.filter((r) => !r.finalized).length)
  })
})
