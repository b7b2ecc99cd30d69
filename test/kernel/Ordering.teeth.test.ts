/** The ordering property has teeth: every order that puts any stage ahead of Permission or Jail is caught. */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Chain from "../../src/kernel/Chain.js"
import { cases, findEscape, prepare } from "../support/Ordering.js"

const permutations = <A>(xs: ReadonlyArray<A>): ReadonlyArray<ReadonlyArray<A>> =>
  xs.length <= 1 ? [xs] : xs.flatMap((x, i) => permutations([...xs.slice(0, i), ...xs.slice(i + 1)]).map((rest) => [x, ...rest]))

/** Every permutation of the shipped list that does not start Permission, Jail. */
const unsafe = permutations(Chain.stages).filter((p) => !(p[0] === Chain.Permission && p[1] === Chain.Jail))

describe("the ordering property's teeth", () => {
  it("there are 696 unsafe orders of the six stages", () => {
    assert.strictEqual(unsafe.length, 720 - 24)
  })

  it.effect(
    "finds an escape in every order that puts a stage ahead of Permission or Jail",
    () =>
      Effect.gen(function* () {
        const sample = yield* prepare(cases(200, 18))
        const missed: Array<string> = []
        for (const order of unsafe) {
          // 696 orders × 200 calls keep the CPU busy for long: let vitest's worker answer its runner between orders.
          yield* Effect.promise(() => new Promise((r) => setImmediate(r)))
          const escape = yield* findEscape(order, sample)
          if (escape === undefined) missed.push(order.map((s) => s.name).join(" → "))
        }
        assert.deepStrictEqual(missed, [])
      }),
    // ~60 s of CPU on a quiet 2-core machine; a loaded CI runs three other files beside it.
    400_000
  )
})
