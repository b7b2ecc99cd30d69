/**
 * What a folder holds, for the jail's structural rule: a bounded walk through the FileSystem port that never follows
 * a symlink (lstat-based entries; a link is one entry, judged by its name) and hands each entry's path, relative to
 * the folder, to a pure judge. It stops at the first entry the judge refuses, and refuses a folder too large to walk.
 */
import { Effect } from "effect"
import type { JailVerdict } from "../domain/jail/Jail.js"
import * as P from "../domain/jail/PosixPath.js"
import type { FileKind, FileSystemShape, FsError } from "../ports/FileSystem.js"
import { breathe } from "../tools/Walk.js"

export type Judged =
  | { readonly _tag: "Clean"; readonly entries: number }
  | { readonly _tag: "Refused"; readonly verdict: Extract<JailVerdict, { ok: false }> }
  | { readonly _tag: "TooLarge"; readonly limit: number }

/** The most entries a structural call walks before it refuses the folder as too large to judge. */
export const maxEntries = 100_000

export const judge = (
  fs: FileSystemShape,
  dir: string,
  verdictOf: (relative: string, kind: FileKind) => JailVerdict,
  limit: number = maxEntries
): Effect.Effect<Judged, FsError> =>
  Effect.gen(function* () {
    const root = yield* fs.lstat(dir)
    // Only a real folder has contents to judge: a symlink is moved or removed as the link itself.
    if (root._tag === "None" || root.value.kind !== "directory") return { _tag: "Clean", entries: 0 } satisfies Judged
    const stack: Array<string> = [""]
    let seen = 0
    let dirs = 0
    while (stack.length > 0) {
      const relDir = stack.pop() ?? ""
      if (++dirs % 32 === 0) yield* breathe
      // A folder that cannot be listed could hide anything: the error refuses the call (never skipped).
      const entries = yield* fs.readDir(relDir === "" ? dir : P.join(dir, relDir))
      for (const entry of entries) {
        if (++seen > limit) return { _tag: "TooLarge", limit } satisfies Judged
        const relative = relDir === "" ? entry.name : `${relDir}/${entry.name}`
        const verdict = verdictOf(relative, entry.kind)
        if (!verdict.ok) return { _tag: "Refused", verdict } satisfies Judged
        if (entry.kind === "directory") stack.push(relative)
      }
    }
    return { _tag: "Clean", entries: seen } satisfies Judged
  })
