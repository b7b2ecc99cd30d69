import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Chain from "../../src/kernel/Chain.js"
import { cases, findEscape, prepare } from "../support/Ordering.js"

describe("the shipped chain's order", () => {
  it.effect(
    "nothing but the gates' own reads precedes Permission and Jail; their denials are theirs, with no effect after",
    () =>
      Effect.gen(function* () {
        const escape = yield* findEscape(Chain.stages, yield* prepare(cases(400, 18)))
        assert.strictEqual(escape === undefined ? undefined : `${escape.why} on ${JSON.stringify(escape.case)}`, undefined)
      }),
    // CPU-bound (400 cases through the shipped chain): 4 s alone, past 60 s at load 12 on the 2-core CI machine.
    180_000
  )

  it("the list is the one order, and the gates are its prefix up to Validation", () => {
    assert.deepStrictEqual(Chain.stages.map((s) => s.name), ["permission", "jail", "guard", "validation", "approval", "journal"])
    assert.deepStrictEqual(Chain.gateStages.map((s) => s.name), ["permission", "jail", "guard", "validation"])
  })
})
