/**
 * When `mcp serve` answers a request from the journal instead of running it: what a retry across a restart is.
 *
 * Every MCP client numbers its request ids afresh in each session, so the same id with the same arguments in a
 * later session is, as a rule, a new call. It is a retry only when an earlier run of the server received the
 * request and never answered it (that run was killed or crashed while the call ran): the client, or its user, sends
 * it again. So a record of an earlier run gives a verdict only when
 * - it was never answered (the reply was never written: see `Journal.answered`),
 * - its run did not end cleanly (its turn is not finalised) and no run ended cleanly after it (its turn is above
 *   the session's last finalised turn): a clean end drains or answers every call, and a later clean run is a
 *   session that went on without retrying,
 * - it is at most `windowMs` old.
 * A record of this run (made since it started, in its turn) keeps the in-connection behaviour: the journal answers
 * for it. A record made since this run started in another turn is another server's, running beside this one in the
 * same workspace: never a reason to refuse.
 * The verdict is itself the answer to the request: once written, it marks the record answered, so a further
 * session's same call runs.
 */
import { Effect, Option } from "effect"
import type { JournalError, JournalRecord, JournalShape } from "../ports/Journal.js"

/** How long an unanswered call of an earlier run stays a retry's: 24 hours. */
export const windowMs = 24 * 60 * 60 * 1000

export interface Window {
  /** When this run started (ms since the epoch): records made since are its own. */
  readonly startedAt: number
  readonly now: number
  readonly windowMs: number
  /**
   * This run's turn (none before its first write). Without it, every record made since the start is this run's
   * (a core not run by `serve`, as in tests).
   */
  readonly ownTurn?: Option.Option<number>
}

export type Judgement =
  /** Made by this run: the journal answers, as for any retry within the connection. */
  | "ThisRun"
  /** Of an earlier run, unanswered and recent: a retry, if no run ended cleanly after it. */
  | "Unanswered"
  /** Answered, or of a run that ended cleanly, or too old: not a reason to refuse the call. */
  | "NewCall"

/** The part of the rule that needs only the record (pure). */
export const judge = (record: Pick<JournalRecord, "createdAt" | "answered" | "finalized" | "turn">, at: Window): Judgement => {
  if (record.createdAt >= at.startedAt) {
    const own = at.ownTurn
    return own === undefined || (Option.isSome(own) && own.value === record.turn) ? "ThisRun" : "NewCall"
  }
  if (record.answered || record.finalized || at.now - record.createdAt > at.windowMs) return "NewCall"
  return "Unanswered"
}

/** Whether `record` (found by the request's key) answers the request instead of running it. */
export const answersFor = (
  journal: JournalShape,
  record: JournalRecord,
  at: Window
): Effect.Effect<"ThisRun" | "EarlierRun" | "NewCall", JournalError> => {
  const judged = judge(record, at)
  if (judged === "ThisRun" || judged === "NewCall") return Effect.succeed(judged)
  return Effect.map(journal.lastFinalizedTurn(record.session), (clean) => (record.turn > clean ? "EarlierRun" : "NewCall"))
}
