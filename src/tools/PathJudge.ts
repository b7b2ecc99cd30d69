/**
 * The checks of a workspace path that came from a listing the caller did not hold descriptors for (ripgrep's output,
 * glob's walk by path): lexical (workspace-relative, no `..`, not below `.git` or `.minicode`, not a name the jail
 * protects), and real (`lstat`: every folder below the root a real folder, not a symlink; the file a regular file).
 * The folders already seen real are memoised, so checking many files of one folder costs one `lstat` for it.
 */
import { Effect, Option } from "effect"
import * as Jail from "../domain/jail/Jail.js"
import * as P from "../domain/jail/PosixPath.js"
import type { FileSystemShape } from "../ports/FileSystem.js"

/** The folder of a workspace-relative path ("" at the root). */
const parentOf = (rel: string) => rel.slice(0, Math.max(0, rel.lastIndexOf("/")))

export const pathJudge = (fs: FileSystemShape, root: string) => {
  const folders = new Map<string, boolean>()
  const lexical = (rel: string): boolean => {
    if (rel === "" || rel.startsWith("/")) return false
    const segs = rel.split("/")
    for (let i = 0; i < segs.length; i++) {
      const s = segs[i]
      if (s === "" || s === "." || s === "..") return false
      if (i < segs.length - 1 && (s === ".git" || s === ".minicode")) return false
    }
    return Jail.protectedName(P.join(root, rel), root) === undefined
  }
  const isKind = (abs: string, kind: "file" | "directory") =>
    Effect.map(Effect.orElseSucceed(fs.lstat(abs), () => Option.none()), (st) => Option.isSome(st) && st.value.kind === kind)
  const folder = (rel: string): Effect.Effect<boolean> => {
    if (rel === "") return Effect.succeed(true)
    const known = folders.get(rel)
    if (known !== undefined) return Effect.succeed(known)
    return Effect.flatMap(folder(parentOf(rel)), (up) =>
      up
        ? Effect.map(isKind(P.join(root, rel), "directory"), (ok) => {
            folders.set(rel, ok)
            return ok
          })
        : Effect.succeed(false)
    )
  }
  /** Every folder from the root down to `rel`'s own is a real folder now. */
  const inRealFolders = (rel: string): Effect.Effect<boolean> => folder(parentOf(rel))
  const real = (rel: string): Effect.Effect<boolean> =>
    Effect.flatMap(inRealFolders(rel), (up) => (up ? isKind(P.join(root, rel), "file") : Effect.succeed(false)))
  return { lexical, inRealFolders, real }
}
