import { Context, type Effect, type Option } from "effect"
import type { FileState, PathChange } from "../domain/journal/Undo.js"
import type { JournalError } from "./Journal.js"

export type { FileState, PathChange }

export type CheckpointStatus = "applied" | "undone" | "undoing" | "redoing"

/** One journaled turn that changed files: what `minicode checkpoints` lists and `undo --turn N` restores. */
export interface Checkpoint {
  readonly session: string
  readonly turn: number
  readonly firstSeq: number
  readonly lastSeq: number
  readonly createdAt: number
  readonly finalized: boolean
  readonly paths: ReadonlyArray<string>
  /** From the last undo/redo record aimed at it: `undoing`/`redoing` when that one never completed. */
  readonly status: CheckpointStatus
}

/** The file side of the journal: before/after images, content-addressed (sha256). */
export interface CheckpointsShape {
  /** Newest first. */
  readonly list: Effect.Effect<ReadonlyArray<Checkpoint>, JournalError>
  /** Every path change of a turn's calls (not of undo/redo records), in seq order. */
  readonly changes: (session: string, turn: number) => Effect.Effect<ReadonlyArray<PathChange>, JournalError>
  readonly blob: (hash: string) => Effect.Effect<Option.Option<Uint8Array>, JournalError>
  /** The content address the store uses (sha256, hex), to compare a file on disk with a snapshot. */
  readonly address: (content: Uint8Array) => string
}

export class Checkpoints extends Context.Tag("minicode/Checkpoints")<Checkpoints, CheckpointsShape>() {}
