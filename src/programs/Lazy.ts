/**
 * Values made on first use. `Effect.cached` memoizes an effect, but reading it costs a few µs each time (a
 * synchronized read and a Deferred); a hot path that asks on every call (the journal three times per write, the
 * chain once per `mcp serve` call) reads a Ref instead once the value is there.
 */
import { Effect, Option, Ref } from "effect"

/** `build` runs once, on first use (concurrent first uses share it; a failure is cached as `Effect.cached` does). */
export const onFirstUse = <A, E, R>(build: Effect.Effect<A, E, R>): Effect.Effect<Effect.Effect<A, E, R>> =>
  Effect.gen(function* () {
    const once = yield* Effect.cached(build)
    const made = yield* Ref.make(Option.none<A>())
    return Effect.flatMap(Ref.get(made), (found) =>
      Option.isSome(found) ? Effect.succeed(found.value) : Effect.tap(once, (a) => Ref.set(made, Option.some(a)))
    )
  })
