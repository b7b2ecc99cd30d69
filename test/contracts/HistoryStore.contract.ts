/**
 * One suite for every HistoryStore adapter: what the git tools' history walk relies on. A load that finds nothing,
 * or anything doubtful, gives undefined (the walk then runs again), never a failure or a defect; what is saved under
 * a key is loaded under that key by a later process, whole; the latest save is the one entry (an older key is gone);
 * a save that cannot be made is not an error (the walk runs again next time).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import type { HistoryStoreShape } from "../../src/ports/HistoryStore.js"

export interface Fixture {
  /** A fresh store, and how to open it again as a later process would. */
  readonly make: Effect.Effect<{ readonly store: HistoryStoreShape; readonly reopen: () => HistoryStoreShape }>
  /** Spoils what was saved (the stored entry made unreadable), where the adapter keeps it somewhere that can be. */
  readonly spoil?: (() => void) | undefined
  /** Makes every later save impossible, where the adapter can be refused. */
  readonly refuseSaves?: (() => void) | undefined
}

const id = (n: number) => n.toString(16).padStart(40, "0")
const blobs = new Set(Array.from({ length: 300 }, (_, i) => id(i * 7919 + 1)))

export const contract = (name: string, fixture: Fixture) =>
  describe(`HistoryStore contract: ${name}`, () => {
    it.effect("nothing saved loads undefined", () =>
      Effect.gen(function* () {
        const { store } = yield* fixture.make
        assert.isUndefined(yield* store.load("refs: main=abc"))
      }))

    it.effect("what is saved under a key loads whole under it, in this process and a later one; an empty set too", () =>
      Effect.gen(function* () {
        const { reopen, store } = yield* fixture.make
        yield* store.save("refs: main=abc", blobs)
        assert.deepStrictEqual([...((yield* store.load("refs: main=abc")) ?? [])].sort(), [...blobs].sort())
        assert.deepStrictEqual([...((yield* reopen().load("refs: main=abc")) ?? [])].sort(), [...blobs].sort())
        yield* store.save("refs: empty", new Set())
        assert.deepStrictEqual((yield* reopen().load("refs: empty")) && [...(yield* reopen().load("refs: empty"))!], [])
      }))

    it.effect("another key loads undefined; the latest save is the one entry", () =>
      Effect.gen(function* () {
        const { reopen, store } = yield* fixture.make
        yield* store.save("refs: main=abc", blobs)
        assert.isUndefined(yield* store.load("refs: main=abd"))
        yield* store.save("refs: main=abd", new Set([id(1)]))
        assert.isUndefined(yield* reopen().load("refs: main=abc"))
        assert.deepStrictEqual([...((yield* reopen().load("refs: main=abd")) ?? [])], [id(1)])
      }))

    it.effect("ids that are not object ids are doubtful: never loaded as found", () =>
      Effect.gen(function* () {
        const { reopen, store } = yield* fixture.make
        yield* store.save("refs: odd", new Set(["not-an-id", "../../etc"]))
        assert.isUndefined(yield* reopen().load("refs: odd"))
      }))

    it.effect.skipIf(fixture.spoil === undefined)("a spoiled entry loads undefined, never a failure or a defect", () =>
      Effect.gen(function* () {
        const { reopen, store } = yield* fixture.make
        yield* store.save("refs: main=abc", blobs)
        fixture.spoil?.()
        const exit = yield* Effect.exit(reopen().load("refs: main=abc"))
        assert.isTrue(Exit.isSuccess(exit) && exit.value === undefined, String(exit))
      }))

    it.effect.skipIf(fixture.refuseSaves === undefined)("a save that cannot be made is no failure; the next load finds nothing", () =>
      Effect.gen(function* () {
        const { reopen, store } = yield* fixture.make
        fixture.refuseSaves?.()
        const exit = yield* Effect.exit(store.save("refs: main=abc", blobs))
        assert.isTrue(Exit.isSuccess(exit), String(exit))
        assert.isUndefined(yield* reopen().load("refs: main=abc"))
      }))
  })
