import type { Effect } from "effect"

/**
 * Where the git tools keep the result of their history walk (the blob ids that ever sat at a protected path) across
 * processes, keyed by the ref tips' fingerprint (`RefTips`). Given with the git runners (a sandboxed session's), not a
 * service of its own: only the walk uses it. A load that finds nothing, or anything doubtful, gives undefined.
 */
export interface HistoryStoreShape {
  readonly load: (key: string) => Effect.Effect<ReadonlySet<string> | undefined>
  readonly save: (key: string, blobs: ReadonlySet<string>) => Effect.Effect<void>
}
