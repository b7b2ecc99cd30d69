/**
 * The checks of a workspace path that came from a listing the caller did not hold descriptors for (ripgrep's
 * output): lexical (workspace-relative, no `..`, not below `.git` or `.minicode`, not a name the jail protects), and
 * real (`lstat`: every folder below the root a real folder, not a symlink, and no git folder by another name; the
 * file a regular file). Folders are memoised, so checking many files of one folder costs one `lstat` for it.
 * (glob's walk needs none of this: Walk.ts lists through descriptors and judges git folders from their listings.)
 */
import { Effect, Option } from "effect"
import * as Aliases from "../domain/jail/Aliases.js"
import * as NameScope from "../domain/jail/NameScope.js"
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
  /**
   * Per folder: the name judge (NameScope.nameScope, made from its parent's; undefined when a segment of the folder
   * itself fails), its absolute path, and whether it or a folder above it is a protected path under another name. rg
   * names every matching file (12,000 files in 10,700 folders on the bench tree for one regex): walking each file's
   * folders up through `Aliases.reason`, then splitting and judging each folder's path whole, were each a third of
   * grep's own CPU there; per file this leaves one lookup of its own path and the checks of its last folder and name.
   * Order-independent (test/tools/PathJudge.test.ts).
   */
  interface FolderFacts {
    /** The folder's name scope (NameScope.nameScope), built from its parent's; undefined when a segment of it fails. */
    readonly scope: NameScope.NameScope | undefined
    readonly abs: string
    readonly aliased: boolean
  }
  const rootAbs = P.resolve("/", root)
  const rootFacts: FolderFacts = { scope: NameScope.nameScope(rootAbs, root), abs: rootAbs, aliased: aliases.paths.size > 0 && aliases.paths.has(rootAbs) }
  /** A folder's facts from its parent's and its own name. */
  const childFacts = (up: FolderFacts, seg: string): FolderFacts => {
    const bad = seg === "" || seg === "." || seg === ".." || seg === ".git" || seg === ".minicode"
    const scope = up.scope === undefined || bad ? undefined : NameScope.childOf(up.scope, seg)
    // The folder's segments passed (none empty, `.` or `..`): its path and the name join as they are.
    const abs = scope?.dir ?? (up.abs === "/" ? `/${seg}` : `${up.abs}/${seg}`)
    // The same walk up as `Aliases.reason` (up to and with the root), one folder at a time.
    const aliased = aliases.paths.size > 0 && scope !== undefined && (up.aliased || aliases.paths.has(abs))
    return { scope, abs, aliased }
  }
  // The facts of the folders from the root down to the last one asked about, not a map of every folder: rg names
  // a folder's files one after another, so the next file's folder shares most of this chain. A map held 10,700
  // folders' facts to the end of the call, long enough to be promoted: full collections were a fifth of the
  // server's CPU in the bench's regex case.
  const chainDirs: Array<string> = [""]
  const chainFacts: Array<FolderFacts> = [rootFacts]
  const folderFacts = (dir: string): FolderFacts => {
    let k = chainDirs.length - 1
    // The deepest folder of the chain that is `dir` or holds it.
    for (; k > 0; k--) {
      const at = chainDirs[k] as string
      if (dir === at || (dir.startsWith(at) && dir.charCodeAt(at.length) === 47)) break
    }
    chainDirs.length = k + 1
    chainFacts.length = k + 1
    let facts = chainFacts[k] as FolderFacts
    if (dir === chainDirs[k]) return facts
    // Down from there, one segment at a time.
    for (let from = k === 0 ? 0 : (chainDirs[k] as string).length + 1; from <= dir.length; ) {
      const slash = dir.indexOf("/", from)
      const to = slash === -1 ? dir.length : slash
      facts = childFacts(facts, dir.slice(from, to))
      chainDirs.push(dir.slice(0, to))
      chainFacts.push(facts)
      from = to + 1
    }
    return facts
  }
  const lexical = (rel: string): boolean => {
    if (rel === "" || rel.startsWith("/")) return false
    const slash = rel.lastIndexOf("/")
    const name = rel.slice(slash + 1)
    if (name === "" || name === "." || name === "..") return false
    const dir = folderFacts(slash === -1 ? "" : rel.slice(0, slash))
    if (dir.scope === undefined || NameScope.judgeIn(dir.scope, name) !== undefined) return false
    // The folder's segments passed (none empty, `.` or `..`): its path and the name join as they are.
    return aliases.paths.size === 0 || (!dir.aliased && !aliases.paths.has(dir.abs === "/" ? `/${name}` : `${dir.abs}/${name}`))
  }
  const isKind = (abs: string, kind: "file" | "directory") =>
    Effect.map(Effect.orElseSucceed(fs.lstat(abs), () => Option.none()), (st) => Option.isSome(st) && st.value.kind === kind)
  const folder = (rel: string): Effect.Effect<boolean> => {
    if (rel === "") return Effect.succeed(true)
    const known = folders.get(rel)
    if (known !== undefined) return Effect.succeed(known)
    return Effect.flatMap(folder(parentOf(rel)), (up) =>
      up
        ? Effect.map(
            // A git folder by another name (`.repo/`, a bare clone) is left out as `.git` is (kernel/GitFolders).
            Effect.zipWith(isKind(P.join(root, rel), "directory"), GitFolders.isGitFolder(fs, P.join(root, rel)), (dir, git) => dir && !git),
            (ok) => {
              folders.set(rel, ok)
              return ok
            }
          )
        : Effect.succeed(false)
    )
  }
  const isFile = (abs: string) =>
    Effect.map(
      Effect.orElseSucceed(fs.lstat(abs), () => Option.none()),
      (st) => Option.isSome(st) && st.value.kind === "file" && Aliases.reason(aliases, root, abs, st.value) === undefined
    )
  const real = (rel: string): Effect.Effect<boolean> =>
    Effect.flatMap(folder(parentOf(rel)), (up) => (up ? isFile(P.join(root, rel)) : Effect.succeed(false)))
  return { lexical, real }
}
