/**
 * write_file through the shipped chain (`Kernel.layer`: Permission → … → Journal → Executor) on the real file
 * system, journaled by the Journal in the context: what the journal tests, the crash child and the bench need,
 * with no copy of what the Journal stage does. `phases` wraps that Journal to mark each boundary of a call
 * (a crash test kills the process there).
 */
import { Effect, Layer } from "effect"
import * as MemoryNetGuard from "../../src/adapters/net/MemoryNetGuard.js"
import * as Kernel from "../../src/kernel/Kernel.js"
import * as Runner from "../../src/kernel/Runner.js"
import { Journal, type JournalRecord, type JournalShape } from "../../src/ports/Journal.js"
import { nodeAdapters } from "./Adapters.js"

export type Phase = "before-intent" | "after-intent" | "after-effect" | "after-terminal"

/** The journal, with `at` called around its begin (the intent) and its complete (the terminal record). */
export const phases = (journal: JournalShape, at: (phase: Phase) => Effect.Effect<void>): JournalShape => ({
  ...journal,
  begin: (intent, before, intended) =>
    Effect.zipRight(at("before-intent"), Effect.tap(journal.begin(intent, before, intended), () => at("after-intent"))),
  complete: (id, state, note) => Effect.zipRight(at("after-effect"), Effect.tap(journal.complete(id, state, note), () => at("after-terminal")))
})

export const chainWrite = (options: {
  readonly root: string
  readonly session: string
  readonly turn: number
  readonly path: string
  readonly content: string
  readonly at?: (phase: Phase) => Effect.Effect<void>
}): Effect.Effect<JournalRecord, unknown, Journal> =>
  Effect.gen(function* () {
    const journal = yield* Journal
    const at = options.at
    const adapters = nodeAdapters({
      netGuard: MemoryNetGuard.layer(),
      journal: Layer.succeed(Journal, at === undefined ? journal : phases(journal, at))
    })
    const session = { workspace: options.root, workMode: "BUILD" as const, sessionId: options.session, turn: options.turn }
    yield* Runner.invoke({ tool: "write_file", args: { path: options.path, content: options.content } }).pipe(Effect.provide(Kernel.layer(session, adapters)))
    const mine = yield* journal.list({ session: options.session })
    const record = mine[mine.length - 1]
    return record === undefined ? yield* Effect.dieMessage("the chain journaled nothing") : record
  })
