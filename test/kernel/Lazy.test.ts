import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, FastCheck, Fiber, Ref } from "effect"
import * as Lazy from "../../src/kernel/Lazy.js"

describe("Lazy.onFirstUse", () => {
  it.live("builds nothing until asked, once for concurrent first uses, and never again", () =>
    Effect.gen(function* () {
      const builds = yield* Ref.make(0)
      const get = yield* Lazy.onFirstUse(Effect.flatMap(Ref.updateAndGet(builds, (n) => n + 1), (n) => Effect.as(Effect.sleep("5 millis"), { n })))
      assert.strictEqual(yield* Ref.get(builds), 0)
      const first = yield* Effect.all([get, get, get], { concurrency: "unbounded" })
      const later = yield* get
      assert.strictEqual(yield* Ref.get(builds), 1)
      for (const value of [...first, later]) assert.strictEqual(value, first[0])
    })
  )

  it.effect("a failure is not kept: the next use builds again, and a success is then kept", () =>
    Effect.gen(function* () {
      const builds = yield* Ref.make(0)
      const lazy = yield* Lazy.lazily(
        Effect.flatMap(Ref.updateAndGet(builds, (n) => n + 1), (n) => (n < 3 ? Effect.fail(`no ${n}`) : Effect.succeed(`yes ${n}`)))
      )
      assert.deepStrictEqual(yield* Effect.flip(lazy.get), "no 1")
      assert.isTrue((yield* lazy.made)._tag === "None")
      assert.deepStrictEqual(yield* Effect.flip(lazy.get), "no 2")
      assert.strictEqual(yield* lazy.get, "yes 3")
      assert.strictEqual(yield* lazy.get, "yes 3")
      assert.strictEqual(yield* Ref.get(builds), 3)
    })
  )

  it.live("uses that wait on a build that fails share its failure; the use after them builds again", () =>
    Effect.gen(function* () {
      const builds = yield* Ref.make(0)
      const gate = yield* Deferred.make<void>()
      const lazy = yield* Lazy.lazily(
        Effect.flatMap(Ref.updateAndGet(builds, (n) => n + 1), (n) => (n === 1 ? Effect.zipRight(Deferred.await(gate), Effect.fail("locked")) : Effect.succeed(n)))
      )
      const waiting = yield* Effect.fork(Effect.all([Effect.flip(lazy.get), Effect.flip(lazy.get)], { concurrency: "unbounded" }))
      yield* Effect.sleep("20 millis")
      yield* Deferred.succeed(gate, undefined)
      assert.deepStrictEqual(yield* Fiber.join(waiting), ["locked", "locked"])
      assert.strictEqual(yield* Ref.get(builds), 1)
      assert.strictEqual(yield* lazy.get, 2)
    })
  )

  it.effect.prop(
    "whatever run of failures comes first, every later use gets the first success's value, built once more per failure",
    { failures: FastCheck.integer({ min: 0, max: 6 }), uses: FastCheck.integer({ min: 1, max: 4 }) },
    ({ failures, uses }) =>
      Effect.gen(function* () {
        const builds = yield* Ref.make(0)
        const get = yield* Lazy.onFirstUse(Effect.flatMap(Ref.updateAndGet(builds, (n) => n + 1), (n) => (n <= failures ? Effect.fail(n) : Effect.succeed(n))))
        for (let i = 0; i < failures; i++) assert.strictEqual(yield* Effect.flip(get), i + 1)
        for (let i = 0; i < uses; i++) assert.strictEqual(yield* get, failures + 1)
        assert.strictEqual(yield* Ref.get(builds), failures + 1)
      })
  )
})
