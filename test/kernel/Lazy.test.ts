import { assert, describe, it } from "@effect/vitest"
import { Effect, Ref } from "effect"
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

  it.effect("a failure is kept like Effect.cached keeps it: the build is not run again", () =>
    Effect.gen(function* () {
      const builds = yield* Ref.make(0)
      const get = yield* Lazy.onFirstUse(Effect.flatMap(Ref.update(builds, (n) => n + 1), () => Effect.fail("no")))
      assert.deepStrictEqual(yield* Effect.either(get), yield* Effect.either(get))
      assert.strictEqual(yield* Ref.get(builds), 1)
    })
  )
})
