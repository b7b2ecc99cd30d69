/**
 * One suite for every Allowlist adapter: configured entries come first and stay, `add` is idempotent, entries are
 * kept exactly (argv, paths), and a store that persists shows them to a second instance over the same storage.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import type { AllowEntry } from "../../src/domain/core/Allowlist.js"
import type { AllowlistShape } from "../../src/ports/Allowlist.js"

export interface Fixture {
  /** A fresh, empty store with `configured` entries for the session; `reopen` opens the same storage again. */
  readonly make: (configured: ReadonlyArray<AllowEntry>) => Effect.Effect<{
    readonly store: AllowlistShape
    /** Omitted for a store that does not persist. */
    readonly reopen?: Effect.Effect<AllowlistShape>
  }>
}

const configured: ReadonlyArray<AllowEntry> = [{ tool: "bash", argv: ["npm", "test"] }]

export const contract = (name: string, fixture: Fixture) =>
  describe(`Allowlist contract: ${name}`, () => {
    it.effect("a fresh store holds the configured entries only", () =>
      Effect.gen(function* () {
        const { store } = yield* fixture.make(configured)
        assert.deepStrictEqual(yield* store.entries, configured)
        const empty = yield* fixture.make([])
        assert.deepStrictEqual(yield* empty.store.entries, [])
      }))

    it.effect("add appends after the configured entries, keeps them exactly, and is idempotent", () =>
      Effect.gen(function* () {
        const { store } = yield* fixture.make(configured)
        yield* store.add({ tool: "git_commit" })
        yield* store.add({ tool: "bash", argv: ["make", "check"] })
        yield* store.add({ tool: "git_commit" })
        yield* store.add({ tool: "bash", argv: ["make", "check"] })
        assert.deepStrictEqual(yield* store.entries, [...configured, { tool: "git_commit" }, { tool: "bash", argv: ["make", "check"] }])
      }))

    it.effect("two builds do not share state; a persistent store shows saved entries to a second instance", () =>
      Effect.gen(function* () {
        const first = yield* fixture.make([])
        yield* first.store.add({ tool: "git_commit" })
        const other = yield* fixture.make([])
        assert.deepStrictEqual(yield* other.store.entries, [])
        if (first.reopen !== undefined) {
          const again = yield* first.reopen
          assert.deepStrictEqual(yield* again.entries, [{ tool: "git_commit" }])
        }
      }))
  })
