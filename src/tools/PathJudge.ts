/**
 * The checks of a workspace path that came from a listing the caller did not hold descriptors for (ripgrep's output,
 * glob's walk by path): lexical (workspace-relative, no `..`, not below `.git` or `.minicode`, not a name the jail
 * protects), and real (`lstat`: every folder below the root a real folder, not a symlink; the file a regular file),
 * or listed (the name is in its folder's descriptor-based listing now), and no folder on the way a git folder by
 * another name. Folders are memoised, so checking many files
 * of one folder costs one `lstat` or one listing for it.
 */
import { Effect, Option } from "effect"
import * as Aliases from "../domain/jail/Aliases.js"
import * as Jail from "../domain/jail/Jail.js"
import * as P from "../domain/jail/PosixPath.js"
import * as GitFolders from "../kernel/GitFolders.js"
import type { FileSystemShape } from "../ports/FileSystem.js"

/** The folder of a workspace-relative path ("" at the root). */
const parentOf = (rel: string) => rel.slice(0, Math.max(0, rel.lastIndexOf("/")))

/**
 * `aliases`: protected content under other names (the sandbox scan's, `ProtectedAliases`): `lexical` refuses its
 * paths, `real` also the files whose inode is a protected file's (a link made, or a target moved, since the scan).
 */
export const pathJudge = (fs: FileSystemShape, root: string, aliases: Aliases.Protected = Aliases.none) => {
  const folders = new Map<string, boolean>()
  // Per folder: whether its own segments pass, and the name judge with its segments split once (Jail.protectedNameIn).
  const names = new Map<string, ((name: string) => ReturnType<typeof Jail.protectedName>) | undefined>()
  const folderNames = (dir: string) => {
    if (names.has(dir)) return names.get(dir)
    let judge: ((name: string) => ReturnType<typeof Jail.protectedName>) | undefined = Jail.protectedNameIn(dir === "" ? root : P.join(root, dir), root)
    if (dir !== "") {
      for (const s of dir.split("/")) if (s === "" || s === "." || s === ".." || s === ".git" || s === ".minicode") judge = undefined
    }
    names.set(dir, judge)
    return judge
  }
  const lexical = (rel: string): boolean => {
    if (rel === "" || rel.startsWith("/")) return false
    const slash = rel.lastIndexOf("/")
    const name = rel.slice(slash + 1)
    if (name === "" || name === "." || name === "..") return false
    const judge = folderNames(slash === -1 ? "" : rel.slice(0, slash))
    return judge !== undefined && judge(name) === undefined && (aliases.paths.size === 0 || Aliases.reason(aliases, root, P.join(root, rel)) === undefined)
  }
  // Per folder: the names a descriptor-based listing (FileSystem.readDir: no link followed on the way) holds now.
  const listings = new Map<string, ReadonlySet<string> | undefined>()
  const isKind = (abs: string, kind: "file" | "directory") =>
    Effect.map(Effect.orElseSucceed(fs.lstat(abs), () => Option.none()), (st) => Option.isSome(st) && st.value.kind === kind)
  const noHead = (rel: string): boolean => {
    const names = listings.get(rel)
    return names !== undefined && !names.has("HEAD")
  }
  const folder = (rel: string): Effect.Effect<boolean> => {
    if (rel === "") return Effect.succeed(true)
    const known = folders.get(rel)
    if (known !== undefined) return Effect.succeed(known)
    return Effect.flatMap(folder(parentOf(rel)), (up) =>
      up
        ? Effect.map(
            // A git folder by another name (`.repo/`, a bare clone) is left out as `.git` is (kernel/GitFolders).
            // A folder whose own listing (taken in this call, `listed`) holds no `HEAD` is not one: no lstat of it.
            Effect.zipWith(isKind(P.join(root, rel), "directory"), noHead(rel) ? Effect.succeed(false) : GitFolders.isGitFolder(fs, P.join(root, rel)), (dir, git) => dir && !git),
            (ok) => {
              folders.set(rel, ok)
              return ok
            }
          )
        : Effect.succeed(false)
    )
  }
  /**
   * `rel` is in its folder as a listing that follows no link shows it now: what a walk by path met through a folder
   * swapped for a symlink (and swapped back) is not there, and a folder on the way that is a link now fails.
   */
  const listed = (rel: string): Effect.Effect<boolean> =>
    // The folder's listing first (it follows no link, so taking it is safe before the folder is judged): its names
    // answer whether the folder has a `HEAD`, which the git-folder check of it would otherwise lstat.
    Effect.flatMap(inListing(rel), (there) => Effect.map(folder(parentOf(rel)), (up) => up && there))
  const inListing = (rel: string): Effect.Effect<boolean> => {
    const dir = parentOf(rel)
    const name = rel.slice(rel.lastIndexOf("/") + 1)
    if (listings.has(dir)) return Effect.succeed(listings.get(dir)?.has(name) === true)
    return Effect.map(
      Effect.orElseSucceed(
        Effect.map(fs.readDir(dir === "" ? root : P.join(root, dir)), (entries) => new Set(entries.map((e) => e.name))),
        () => undefined
      ),
      (names) => {
        listings.set(dir, names)
        return names?.has(name) === true
      }
    )
  }
  const isFile = (abs: string) =>
    Effect.map(
      Effect.orElseSucceed(fs.lstat(abs), () => Option.none()),
      (st) => Option.isSome(st) && st.value.kind === "file" && Aliases.reason(aliases, root, abs, st.value) === undefined
    )
  const real = (rel: string): Effect.Effect<boolean> =>
    Effect.flatMap(folder(parentOf(rel)), (up) => (up ? isFile(P.join(root, rel)) : Effect.succeed(false)))
  return { lexical, listed, real }
}
