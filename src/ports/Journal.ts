import { Context, type Effect, type Option, Schema } from "effect"
import type { Damage, RecoveryPlan, Resolution } from "../domain/journal/Recovery.js"
import type { Capability } from "../domain/core/Tools.js"

export type Terminal = "committed" | "failed" | "unknown"
export type JournalState = "pending" | Terminal
export type { Damage, RecoveryPlan, Resolution }

/** The checkpoint an undo or redo call restores (set only on the journal's own restore records). */
export interface RestoreTarget {
  readonly action: "undo" | "redo"
  readonly session: string
  readonly turn: number
}

export interface Intent {
  readonly session: string
  readonly turn: number
  readonly tool: string
  readonly capability: Capability
  /** Workspace-relative paths the call touches. */
  readonly paths: ReadonlyArray<string>
  /** Canonical JSON of the arguments: adapters store only its hash, never the text (it may hold secrets). */
  readonly canonicalArgs: string
  readonly requestId?: string | undefined
  /** The effect happens elsewhere (an MCP server): its success is "the server says so". */
  readonly remote: boolean
  /** Only for undo/redo records written by the Undo program. */
  readonly restores?: RestoreTarget | undefined
  /** What the call did in words, already redacted and short (bash: its command), for `minicode journal`. */
  readonly summary?: string | undefined
}

export interface JournalRecord {
  readonly id: string
  readonly seq: number
  readonly session: string
  readonly turn: number
  readonly tool: string
  readonly capability: Capability
  readonly paths: ReadonlyArray<string>
  readonly argsHash: string
  readonly requestId: string | null
  readonly remote: boolean
  readonly state: JournalState
  readonly note: string | null
  readonly createdAt: number
  readonly updatedAt: number
  readonly finalized: boolean
  /**
   * The reply to its request was written (see `answered`). False for a record whose process stopped before it
   * answered (killed, crashed), and for records no reply was marked for (calls of no request: the CLI's).
   */
  readonly answered: boolean
  /** Set when a human or client resolved a non-committed record (`recover resolve SEQ applied|absent`). */
  readonly resolution: Resolution | null
  readonly restores: RestoreTarget | null
  /** The intent's summary (bash: the redacted command), when it had one. */
  readonly summary?: string
  /** The process that wrote it (`PID:STARTTICKS`), where that can be known: recover asks whether it still runs. */
  readonly writer?: string
}

/**
 * A file's content at one moment (null: it did not exist), kept for undo. `path` is workspace-relative.
 * Passed to `begin` as the state before the call, and optionally as the state the call intends to leave.
 */
export interface Snapshot {
  readonly path: string
  readonly content: Uint8Array | null
  readonly mode: number | null
}

export class JournalError extends Schema.TaggedError<JournalError>()("JournalError", {
  reason: Schema.String
}) {
  override get message() {
    return `journal: ${this.reason}`
  }
}

/**
 * Durable intents: `begin` writes `pending` before the effect, `complete` the terminal state after it.
 * Reads are not journaled.
 */
export interface JournalShape {
  /**
   * Writes the intent (`pending`) with the before-images of the paths it will mutate, durably, before the
   * effect. `intended`: the content the call means to leave, when known in advance (write_file, edit_file,
   * delete_file): it lets undo accept a file whose call crashed after its effect.
   */
  readonly begin: (
    intent: Intent,
    snapshots: ReadonlyArray<Snapshot>,
    intended?: ReadonlyArray<Snapshot>
  ) => Effect.Effect<JournalRecord, JournalError>
  readonly complete: (id: string, state: Terminal, note?: string) => Effect.Effect<void, JournalError>
  readonly finalizeTurn: (session: string, turn: number) => Effect.Effect<void, JournalError>
  readonly findByRequest: (session: string, requestId: string) => Effect.Effect<Option.Option<JournalRecord>, JournalError>
  /**
   * The reply to request `requestId` of `session` has been written: its records are marked answered. One small
   * update with no sync of its own (a mark lost with the machine's power errs towards refusing a retry).
   */
  readonly answered: (session: string, requestId: string) => Effect.Effect<void, JournalError>
  /** The highest finalised turn of `session` (the last run that ended cleanly), or 0. */
  readonly lastFinalizedTurn: (session: string) => Effect.Effect<number, JournalError>
  /** The highest turn a record of `session` has (retention may have pruned older ones), or 0. */
  readonly lastTurn: (session: string) => Effect.Effect<number, JournalError>
  readonly list: (filter?: {
    readonly turn?: number
    readonly state?: JournalState
    readonly session?: string
  }) => Effect.Effect<ReadonlyArray<JournalRecord>, JournalError>
  /** The recovery plan of the unfinalised records, with every damage found reported as `ambiguous`. Never acts. */
  readonly recover: Effect.Effect<RecoveryPlan, JournalError>
  /**
   * A human's or client's verdict on a non-committed record. Journaled as its own (finalised) record
   * `recover.resolve`; returns that record. Fails on a committed, finalised or unknown seq.
   */
  readonly resolve: (seq: number, outcome: Resolution, by?: string) => Effect.Effect<JournalRecord, JournalError>
  /**
   * Housekeeping for a quiet moment, which the caller knows (nothing of its own is running): the SQLite journal
   * copies its write-ahead log into the database here, rather than in the middle of a call. Never fails, never
   * waits for another process, and costs little when there is nothing to do.
   */
  readonly idle: Effect.Effect<void>
}

export class Journal extends Context.Tag("minicode/Journal")<Journal, JournalShape>() {}
