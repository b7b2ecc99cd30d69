import { Cause, Effect, Option, Ref } from "effect"
import { JournalUnavailable } from "../../domain/core/Errors.js"
import * as Jail from "../../domain/jail/Jail.js"
import { nameOf } from "../../domain/core/Tools.js"
import { FileSystem } from "../../ports/FileSystem.js"
import { Journal, type Snapshot as JournalSnapshot } from "../../ports/Journal.js"
import { Session } from "../../ports/Session.js"
import { type MutationDoneShape, ToolExecutor } from "../../ports/ToolExecutor.js"
import { wrap } from "./Stage.js"
import { canonicalArgs } from "../../domain/core/Canonical.js"
import * as Summary from "../../domain/journal/Summary.js"
import { planOf } from "../../domain/journal/Intended.js"

/** Journal: a mutating call is recorded pending before its effect and committed / failed / unknown after it. */
export const JournalStage = wrap((next) =>
  Effect.gen(function* () {
    const session = yield* Session
    const journal = yield* Journal
    const fs = yield* FileSystem
    const journalError = (e: { readonly reason: string }) => new JournalUnavailable({ reason: e.reason })
    const snapshot = (facts: Jail.PathFacts): Effect.Effect<JournalSnapshot, JournalUnavailable> => {
      const path = Jail.display(session, facts.entry)
      if (facts.kind !== "file") return Effect.succeed({ path, content: null, mode: null })
      // The mode is the one the jail saw; the write itself re-checks that the file is still the one the jail saw.
      return fs.readFile(facts.real).pipe(
        Effect.map((content) => ({ path, content, mode: facts.mode })),
        // Without the old content, undo could not restore it: refuse rather than mutate unrecoverably.
        Effect.mapError((e) => new JournalUnavailable({ reason: `cannot snapshot ${path} before changing it: ${e.reason}` }))
      )
    }
    return ToolExecutor.of({
      run: (inv) =>
        !inv.facts.mutates
          ? next(inv)
          : Effect.gen(function* () {
              const writes = inv.facts.paths.filter((p) => p.access !== "read").flatMap((p) => {
                const facts = inv.resolved[p.field]
                return facts === undefined ? [] : [{ field: p.field, facts }]
              })
              // In order, one after the other (a call writes one or two paths: no need for forEach's machinery).
              const snapshots = yield* writes.reduce<Effect.Effect<ReadonlyArray<JournalSnapshot>, JournalUnavailable>>(
                (taken, w) => Effect.flatMap(taken, (done) => Effect.map(snapshot(w.facts), (s) => [...done, s])),
                Effect.succeed([])
              )
              const byPath = new Map(snapshots.map((s) => [s.path, s] as const))
              const shown = (field: string) => {
                const facts = inv.resolved[field]
                return facts === undefined ? undefined : Jail.display(session, facts.entry)
              }
              const plan = planOf(inv.facts.call, byPath, shown)
              const record = yield* journal
                .begin(
                  {
                    session: session.id,
                    turn: session.turn,
                    tool: nameOf(inv.facts.call),
                    capability: inv.facts.capability,
                    paths: snapshots.map((s) => s.path),
                    canonicalArgs: inv.canonicalArgs ?? canonicalArgs(inv.facts.call),
                    requestId: inv.requestId,
                    summary: Summary.of(inv.facts.call),
                    remote: inv.facts.capability === "external"
                  },
                  snapshots,
                  plan.intended
                )
                .pipe(Effect.mapError(journalError))
              // Settled once: early by the executor (`mutationDone`) when the mutation is done before the call ends.
              const settled = yield* Ref.make(false)
              const once = (settle: Effect.Effect<void>) => Effect.flatMap(Ref.getAndSet(settled, true), (was) => (was ? Effect.void : settle))
              const mutationDone: MutationDoneShape = {
                done: ({ isError }) => once(journal.complete(record.id, isError ? "failed" : "committed").pipe(Effect.ignore))
              }
              const planned = { ...(plan.edited === undefined ? {} : { edited: plan.edited }), ...(plan.written === undefined ? {} : { written: plan.written }) }
              return yield* next({ ...inv, ...planned, mutationDone }).pipe(
                Effect.onExit((exit) => {
                  if (exit._tag === "Success") {
                    return once(journal.complete(record.id, exit.value.isError === true ? "failed" : "committed").pipe(Effect.ignore))
                  }
                  const interrupted = Cause.isInterruptedOnly(exit.cause)
                  const failedCleanly = Cause.failureOption(exit.cause).pipe(
                    Option.map((e) => e._tag === "ToolDenied" || e._tag === "InvalidArguments" || (e._tag === "ToolFailed" && inv.facts.capability !== "exec" && inv.facts.capability !== "external")),
                    Option.getOrElse(() => false)
                  )
                  const note = !interrupted
                    ? Cause.pretty(exit.cause).split("\n")[0]
                    : inv.facts.capability === "external"
                      ? "interrupted: cancellation sent to the server, which may already have acted"
                      : "interrupted"
                  // A file tool that failed before writing left nothing; anything else may have happened halfway.
                  return once(journal.complete(record.id, failedCleanly ? "failed" : "unknown", note).pipe(Effect.ignore))
                })
              )
            })
    })
  })
)
