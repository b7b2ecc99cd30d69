/**
 * Values made on first use. A hot path that asks on every call (the journal three times per write, the chain once
 * per `mcp serve` call) reads a Ref once the value is there (a few µs less than `Effect.cached`'s synchronized read
 * and Deferred).
 *
 * A failed build is not kept: the uses waiting on that build get its failure, and the next use builds again. (Kept,
 * one failed journal open, say another process's lock held past the busy timeout, failed every later call of an
 * `mcp serve` for the rest of its life, though the lock was long gone: issue 40, item 9.)
 */
import { Deferred, Effect, Exit, Option, Ref, SynchronizedRef } from "effect"

export interface Lazy<A, E, R> {
  /** The value: built by the first use (concurrent uses share one build); a failure is not kept. */
  readonly get: Effect.Effect<A, E, R>
  /** The value if a use already built it; never builds it. */
  readonly made: Effect.Effect<Option.Option<A>>
}

export const lazily = <A, E, R>(build: Effect.Effect<A, E, R>): Effect.Effect<Lazy<A, E, R>> =>
  Effect.gen(function* () {
    const made = yield* Ref.make(Option.none<A>())
    // The build under way, which concurrent uses wait for instead of starting their own.
    const building = yield* SynchronizedRef.make(Option.none<Deferred.Deferred<A, E>>())
    type Turn = { readonly deferred: Deferred.Deferred<A, E>; readonly mine: boolean }
    const take: Effect.Effect<Turn> = SynchronizedRef.modifyEffect(
      building,
      (current): Effect.Effect<readonly [Turn, Option.Option<Deferred.Deferred<A, E>>]> =>
        Option.isSome(current)
          ? Effect.succeed([{ deferred: current.value, mine: false }, current])
          : Effect.map(Deferred.make<A, E>(), (deferred) => [{ deferred, mine: true }, Option.some(deferred)])
    )
    const finish = (deferred: Deferred.Deferred<A, E>, exit: Exit.Exit<A, E>) =>
      Effect.all([
        Exit.isSuccess(exit) ? Ref.set(made, Option.some(exit.value)) : Effect.void,
        SynchronizedRef.set(building, Option.none()),
        Deferred.done(deferred, exit)
      ])
    const join: Effect.Effect<A, E, R> = Effect.uninterruptibleMask((restore) =>
      Effect.flatMap(take, ({ deferred, mine }) =>
        mine
          ? Effect.flatMap(Effect.exit(restore(build)), (exit) => Effect.zipRight(finish(deferred, exit), exit))
          : restore(Deferred.await(deferred))
      )
    )
    return {
      get: Effect.flatMap(Ref.get(made), (found) => (Option.isSome(found) ? Effect.succeed(found.value) : join)),
      made: Ref.get(made)
    }
  })

/** `build` runs on first use, and again on the use after a failed build, until one succeeds. */
export const onFirstUse = <A, E, R>(build: Effect.Effect<A, E, R>): Effect.Effect<Effect.Effect<A, E, R>> =>
  Effect.map(lazily(build), (lazy) => lazy.get)
