/**
 * How `mcp serve` ends (end of input or SIGTERM): new calls are refused; on a signal, read-only calls in flight are
 * interrupted at once (they change nothing, and one may be a search that would run for minutes); the others (all of
 * them at the end of input) get until the drain deadline, then whatever still runs is interrupted (a running process group is killed; a call that changes things
 * is journaled `unknown`) and answered as such. Waiting for those interruptions is bounded too, so the drain ends
 * within its deadline plus `cancelGraceMs` whatever runs.
 */
import { Effect, Ref } from "effect"
import * as Deadline from "../domain/core/Deadline.js"
import * as Framing from "../domain/mcp/JsonRpcFraming.js"

export const cancelGraceMs = 1_000

/** What the drain needs of the core. */
export interface Drainable {
  readonly stopAccepting: Effect.Effect<void>
  readonly busy: Effect.Effect<number>
  readonly cancelAll: Effect.Effect<void>
  /** Interrupts the read-only calls in flight. */
  readonly cancelReads: Effect.Effect<void>
}

export interface Shutdown {
  /**
   * "reads" once the drain started and stopped the read-only calls, "all" once the deadline passed and the calls left
   * are being interrupted; false before.
   */
  readonly interrupting: Ref.Ref<false | "reads" | "all">
  readonly deadlineMs: number
}

export const makeShutdown = (deadlineMs: number): Effect.Effect<Shutdown> =>
  Effect.map(Ref.make<false | "reads" | "all">(false), (interrupting) => ({ interrupting, deadlineMs }))

/** The answer of a call interrupted by the drain (a call the client cancelled gets none: the SDK sends nothing). */
export const interruptedAnswer = (id: Framing.WireId, shutdown: false | "reads" | "all", deadlineMs: number) =>
  shutdown === "reads"
    ? {
        code: Framing.ErrorCodes.ShuttingDown,
        message: `minicode shut down while request ${JSON.stringify(id)} ran: a read-only call is stopped at once (it changed nothing); send it again once minicode runs`
      }
    : shutdown === "all"
    ? {
        code: Framing.ErrorCodes.ShuttingDown,
        message: `minicode shut down while request ${JSON.stringify(id)} ran: it was interrupted at the drain deadline of ${Deadline.describe(deadlineMs)}; a call that changes things may or may not have had its effect (journaled unknown: see minicode journal)`
      }
    : { code: Framing.ErrorCodes.AlreadyHandled, message: `request ${JSON.stringify(id)} was cancelled` }

export const drain = (core: Drainable, shutdown: Shutdown, options: { readonly stopReads: boolean }) =>
  Effect.gen(function* () {
    yield* core.stopAccepting
    if (options.stopReads) {
      yield* Ref.set(shutdown.interrupting, "reads")
      yield* Effect.ignore(Effect.timeout(core.cancelReads, cancelGraceMs))
      // Their answers are made in promise callbacks: let them reach the transport before it may close.
      yield* Effect.sleep("20 millis")
    }
    const until = Date.now() + shutdown.deadlineMs
    while ((yield* core.busy) > 0 && Date.now() < until) yield* Effect.sleep("20 millis")
    if ((yield* core.busy) === 0) return
    yield* Ref.set(shutdown.interrupting, "all")
    // Each interruption is started at once; waiting for them to finish is bounded (one stuck in an uninterruptible
    // step does not hold the process).
    yield* Effect.ignore(Effect.timeout(core.cancelAll, cancelGraceMs))
    // The interrupted calls' answers are made in promise callbacks: let them reach the transport before it closes.
    yield* Effect.sleep("20 millis")
  })
