/**
 * The git tools' history walk kept in `.minicode/secret-history` (`StateFile`: private, ours, checksummed, masked
 * in every sandbox): the blob ids found, under a sha256 of the ref tips' fingerprint (`RefTips`: HEAD, packed-refs,
 * refs, reflogs, index, shallow of the git folder and the common one). One entry: the latest history walked.
 */
import { createHash } from "node:crypto"
import { Effect } from "effect"
import type { HistoryStoreShape } from "../../ports/HistoryStore.js"
import * as StateFile from "./StateFile.js"

const file = "secret-history"
// The format names the rules the walk applied: 2 added the targets of protected names that were symlinks in
// history, so a walk saved by an older build (which missed them) is walked again, never trusted.
const format = "minicode-history/2"
const digest = (key: string) => createHash("sha256").update(key).digest("hex")

export const make = (workspace: string): HistoryStoreShape => ({
  load: (key) =>
    Effect.sync(() => {
      const body = StateFile.read(workspace, file, format)
      if (body === undefined) return undefined
      try {
        const data: unknown = JSON.parse(body)
        if (typeof data !== "object" || data === null) return undefined
        const { key: k, blobs } = data as { key?: unknown; blobs?: unknown }
        if (k !== digest(key) || !Array.isArray(blobs) || !blobs.every((b) => typeof b === "string" && /^[0-9a-f]{40,64}$/.test(b))) return undefined
        return new Set<string>(blobs as Array<string>)
      } catch {
        return undefined
      }
    }),
  save: (key, blobs) =>
    Effect.sync(() => {
      try {
        StateFile.write(workspace, file, format, JSON.stringify({ key: digest(key), blobs: [...blobs].sort() }))
      } catch {
        // Not saved: the next process walks the history again.
      }
    })
})
