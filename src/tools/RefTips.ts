/**
 * A fingerprint of everything that decides which objects a repository's history reaches: `HEAD`, `packed-refs`,
 * every file under `refs/` (branches, tags, stash, notes), the reflogs (`logs/`, which keep amended-away commits
 * reachable as `HEAD@{1}`) and the index (staged blobs), in the git folder and the common one. Each file counts by
 * inode, size and modification time: git writes refs through a lock file renamed into place, so every change
 * gives a new inode. Read through the FileSystem port, nothing followed; a walk that cannot finish gives a
 * fingerprint that never matches (the caller walks history again).
 */
import { Effect, Option } from "effect"
import type { FileSystemShape } from "../ports/FileSystem.js"
import * as P from "../domain/jail/PosixPath.js"

/** More files than this under refs/ and logs/ and the fingerprint gives up (never cached). */
const maxFiles = 20_000

export const fingerprint = (fs: FileSystemShape, dirs: ReadonlyArray<string>): Effect.Effect<string | undefined> =>
  Effect.gen(function* () {
    const parts: Array<string> = []
    let budget = maxFiles
    const stat = (path: string) =>
      Effect.map(Effect.orElseSucceed(fs.lstat(path), () => Option.none()), (st) => {
        parts.push(Option.isNone(st) ? `${path}:-` : `${path}:${st.value.kind}:${st.value.ino}:${st.value.size}:${st.value.mtimeMs}`)
        return st
      })
    const walk = (dir: string): Effect.Effect<boolean> =>
      Effect.gen(function* () {
        const st = yield* stat(dir)
        if (Option.isNone(st) || st.value.kind !== "directory") return true
        const entries = yield* Effect.either(fs.readDir(dir))
        if (entries._tag === "Left") return false
        for (const e of [...entries.right].sort((a, b) => (a.name < b.name ? -1 : 1))) {
          if (--budget < 0) return false
          const child = P.join(dir, e.name)
          if (e.kind === "directory") {
            if (!(yield* walk(child))) return false
          } else yield* stat(child)
        }
        return true
      })
    for (const dir of [...new Set(dirs)]) {
      for (const name of ["HEAD", "packed-refs", "index", "shallow"]) yield* stat(P.join(dir, name))
      if (!(yield* walk(P.join(dir, "refs"))) || !(yield* walk(P.join(dir, "logs")))) return undefined
    }
    return parts.join("\n")
  })
