/**
 * Git folders by other names: a repository made with `git init --separate-git-dir=.repo`, a bare clone, any folder
 * git's discovery would take for a git folder (a `HEAD` beside `objects/` and `refs/`, or beside a `commondir`).
 * The jail's names protect what is under `.git`; a path in such a folder is judged as the same path under `.git`
 * would be (its `config` and hooks secret and unwritable, nothing in it written, moved or removed, only pointers and
 * logs read). Was a hole (red team): read_file showed `.repo/config` with a token in a remote URL, and write_file
 * replaced it with a `core.fsmonitor` the user's next `git status` ran.
 */
import { Effect, Option } from "effect"
import * as P from "../domain/jail/PosixPath.js"
import type { FileKind, FileStat, FileSystemShape } from "../ports/FileSystem.js"

const present = (fs: FileSystemShape, path: string): Effect.Effect<Option.Option<FileKind>> =>
  Effect.map(
    Effect.orElseSucceed(fs.lstat(path), () => Option.none<FileStat>()),
    Option.map((s) => s.kind)
  )

/**
 * Whether git would take `dir` for a git folder (looser than git's own test, never stricter: HEAD is not read);
 * with `added`, as it would be once that entry is made in it.
 */
export const isGitFolder = (fs: FileSystemShape, dir: string, added?: { readonly name: string; readonly kind: FileKind }) =>
  Effect.gen(function* () {
    const at = (name: string) => (added !== undefined && added.name === name ? Effect.succeed(Option.some(added.kind)) : present(fs, P.join(dir, name)))
    const head = yield* at("HEAD")
    if (Option.isNone(head) || head.value === "directory") return false
    if (Option.isSome(yield* at("commondir"))) return true
    const objects = yield* at("objects")
    if (Option.isNone(objects) || objects.value === "file") return false
    const refs = yield* at("refs")
    return Option.isSome(refs) && refs.value !== "file"
  })

/** The names whose making can turn a folder into one git takes for a git folder. */
const layoutNames: ReadonlySet<string> = new Set(["HEAD", "commondir", "objects", "refs"])

/**
 * The folder that making an entry of `kind` at `absolute` (a missing path inside `root`, with the folders missing
 * above it) would turn into a git folder by another name, or undefined (red team, issue 19: write_file of
 * `src/config` naming a `core.fsmonitor`, `src/objects/…`, `src/refs/…`, then `src/HEAD`: each write was judged
 * before the layout was whole, and the user's next `git status` in `src/` ran the program on the host). Only the
 * nearest existing folder above `absolute` gains an entry, so only its layout changes. The root counts only
 * without a `.git` of its own (git's discovery takes that first); a folder under a `.git` is judged by the names.
 */
export const madeGitFolder = (fs: FileSystemShape, root: string, absolute: string, kind: FileKind) =>
  Effect.gen(function* () {
    let name = P.basename(absolute)
    let made: FileKind = kind
    let dir = P.dirname(absolute)
    while (dir !== root && P.isInside(root, dir) && Option.isNone(yield* present(fs, dir))) {
      name = P.basename(dir)
      made = "directory"
      dir = P.dirname(dir)
    }
    if (!layoutNames.has(name) || !P.isInside(root, dir)) return undefined
    if (P.relative(root, dir).split("/").some((s) => s.toLowerCase() === ".git")) return undefined
    if (dir === root && Option.isSome(yield* present(fs, P.join(root, ".git")))) return undefined
    return (yield* isGitFolder(fs, dir, { name, kind: made })) ? dir : undefined
  })

/**
 * `isGitFolder` answered from the folder's own listing (the kinds a listing gives are lstat's): for a walk, which
 * has the listing already and so needs no lstat of `HEAD` per folder.
 */
export const isGitListing = (entries: ReadonlyArray<{ readonly name: string; readonly kind: FileKind }>): boolean => {
  let head: FileKind | undefined
  let commondir = false
  let objects: FileKind | undefined
  let refs: FileKind | undefined
  for (const e of entries) {
    if (e.name === "HEAD") head = e.kind
    else if (e.name === "commondir") commondir = true
    else if (e.name === "objects") objects = e.kind
    else if (e.name === "refs") refs = e.kind
  }
  if (head === undefined || head === "directory") return false
  if (commondir) return true
  return objects !== undefined && objects !== "file" && refs !== undefined && refs !== "file"
}

/**
 * The path `absolute` stands for under the workspace's `.git` when it is (or is in) a git folder inside `root`
 * other than one the names already cover; undefined otherwise. The root itself is not looked at.
 */
export const asDotGit = (fs: FileSystemShape, root: string, absolute: string) =>
  Effect.gen(function* () {
    for (let dir = absolute; dir !== root && P.isInside(root, dir); dir = P.dirname(dir)) {
      if (P.basename(dir).toLowerCase() === ".git") return undefined
      if (yield* isGitFolder(fs, dir)) {
        const rest = P.relative(dir, absolute)
        return rest === "" ? P.join(root, ".git") : P.join(root, ".git", rest)
      }
    }
    return undefined
  })
