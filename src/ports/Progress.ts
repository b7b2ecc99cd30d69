import { Context, Effect, Option } from "effect"

export type LogLevel = "info" | "warning" | "error"

/**
 * What a running call can tell whoever started it, while it runs: its latest state in a few words (the last line
 * of a command's output, "indexing 300 files"), and things the user should know (bash ran without a sandbox, a
 * language server died). The front end decides when and whether to send them (`mcp serve`: notifications/progress
 * when the call carries a progressToken, notifications/message at the client's logging level). Both are
 * synchronous and cheap, so a stream's data callback may call them.
 */
export interface ProgressShape {
  /** Whether anyone reads notes (a tool may skip the work of making them otherwise). */
  readonly watched: boolean
  readonly note: (message: string) => void
  readonly log: (level: LogLevel, message: string) => void
  /**
   * A command's raw output, chunk by chunk as it arrives (stdout and stderr interleaved), for a front end that
   * shows it as it comes (the CLI's `tool bash`, on stderr); absent when nobody streams it. The listener redacts.
   */
  readonly output?: (chunk: string) => void
}

/** Provided per call by a front end that listens; absent otherwise (see `current`). */
export class Progress extends Context.Tag("minicode/Progress")<Progress, ProgressShape>() {}

const silent: ProgressShape = { watched: false, note: () => undefined, log: () => undefined }

/** The running call's listener, or one that drops everything: what a tool or adapter reads at call time. */
export const current: Effect.Effect<ProgressShape> = Effect.map(Effect.serviceOption(Progress), Option.getOrElse(() => silent))
