/**
 * Values made on first use. `Effect.cached` memoizes an effect, but reading it costs a few µs each time (a
 * synchronized read and a Deferred); a hot path that asks on every call (the journal three times per write, the
 * chain once per `mcp serve` call) reads a Ref instead once the value is there.
 */
import { Effect, Option, Ref } from "effect"

export interface Lazy<A, E, R> {
  /** The value: built by the first use (concurrent first uses share it; a failure is cached as `Effect.cached` does). */
  readonly get: Effect.Effect<A, E, R>
  /** The value if a use already built it; never builds it. */
  readonly made: Effect.Effect<Option.Option<A>>
}

export const lazily = <A, E, R>(build: Effect.Effect<A, E, R>): Effect.Effect<Lazy<A, E, R>> =>
  Effect.gen(function* () {
    const once = yield* Effect.cached(build)
    const made = yield* Ref.make(Option.none<A>())
    return {
      get: Effect.flatMap(Ref.get(made), (found) =>
        Option.isSome(found) ? Effect.succeed(found.value) : Effect.tap(once, (a) => Ref.set(made, Option.some(a)))
      ),
      made: Ref.get(made)
    }
  })

/** `build` runs once, on first use. */
export const onFirstUse = <A, E, R>(build: Effect.Effect<A, E, R>): Effect.Effect<Effect.Effect<A, E, R>> =>
  Effect.map(lazily(build), (lazy) => lazy.get)
