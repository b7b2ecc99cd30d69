import { Context, type Effect, type Option, Schema } from "effect"
import type { Capability } from "../domain/Tools.js"

export type Terminal = "committed" | "failed" | "unknown"
export type JournalState = "pending" | Terminal

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
}

/** A file's content before a mutation (null: it did not exist), kept for undo. */
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
  readonly begin: (intent: Intent, snapshots: ReadonlyArray<Snapshot>) => Effect.Effect<JournalRecord, JournalError>
  readonly complete: (id: string, state: Terminal, note?: string) => Effect.Effect<void, JournalError>
  readonly finalizeTurn: (session: string, turn: number) => Effect.Effect<void, JournalError>
  readonly findByRequest: (session: string, requestId: string) => Effect.Effect<Option.Option<JournalRecord>, JournalError>
  readonly list: (filter?: {
    readonly turn?: number
    readonly state?: JournalState
  }) => Effect.Effect<ReadonlyArray<JournalRecord>, JournalError>
}

export class Journal extends Context.Tag("minicode/Journal")<Journal, JournalShape>() {}
