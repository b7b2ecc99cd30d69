/** Failures of the chain's own services keep their types: a broken journal or allowlist is not a "tool" failing. */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Layer } from "effect"
import * as Runner from "../../src/kernel/Runner.js"
import * as Kernel from "../../src/kernel/Kernel.js"
import { Allowlist, AllowlistError } from "../../src/ports/Allowlist.js"
import { Journal, JournalError } from "../../src/ports/Journal.js"
import * as MemoryJournal from "../../src/adapters/journal/MemoryJournal.js"
import { memoryAdapters } from "../support/Fakes.js"

const failureOf = <A, E>(exit: Exit.Exit<A, E>) => (Exit.isFailure(exit) && exit.cause._tag === "Fail" ? exit.cause.error : undefined)

const run = (adapters: Kernel.Adapters, request: { tool: string; args: unknown }, options: Partial<Kernel.SessionOptions> = {}) =>
  Runner.invoke(request).pipe(Effect.provide(Kernel.layer({ workspace: "/ws", workMode: "BUILD", ...options }, adapters)), Effect.exit)

describe("typed errors through the chain", () => {
  it.effect("a journal that cannot record fails the write as JournalUnavailable", () =>
    Effect.gen(function* () {
      const broken = Layer.effect(
        Journal,
        Effect.map(MemoryJournal.make(), ({ journal }) => Journal.of({ ...journal, begin: () => Effect.fail(new JournalError({ reason: "disk full" })) }))
      )
      const exit = yield* run({ ...memoryAdapters(), journal: broken }, { tool: "write_file", args: { path: "new.txt", content: "x" } })
      const error = failureOf(exit)
      assert.strictEqual(error?._tag, "JournalUnavailable")
      assert.strictEqual(error?.message, "journal failed: disk full")
    })
  )

  it.effect("an allowlist that cannot be read fails a bash call under policy allowlist as AllowlistUnreadable", () =>
    Effect.gen(function* () {
      const unreadable = Layer.succeed(
        Allowlist,
        Allowlist.of({ entries: Effect.fail(new AllowlistError({ reason: "corrupt file" })), add: () => Effect.void })
      )
      const exit = yield* run({ ...memoryAdapters(), allowlist: unreadable }, { tool: "bash", args: { command: "npm test" } }, { policy: "allowlist" })
      const error = failureOf(exit)
      assert.strictEqual(error?._tag, "AllowlistUnreadable")
      assert.strictEqual(error?.message, "allowlist failed: corrupt file")
    })
  )
})
