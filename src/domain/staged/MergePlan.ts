/**
 * Staged bash's merge, decided: bash ran on an overlay view of the workspace and its writes landed in a staging
 * layer; each change found there (a file made or replaced, a symlink, a folder made, an entry removed, a special
 * file) is merged into the workspace or refused here, by the rules the file tools obey — the jail's protected names
 * and `.minicode`, links that lead out, the editor controls (a new command in `.vscode/tasks.json`…), the git-folder
 * rules (`GitFolder`) — and the session's scopes (`files=read` refuses every change, `git=read` every change in a
 * git folder). Pure: the adapter gathers the facts (what the staging holds, which folders git takes for git
 * folders, the content of files judged by content) and applies the verdicts.
 */
import * as EditorControls from "../files/EditorControls.js"
import * as Aliases from "../jail/Aliases.js"
import * as TreeControls from "../git/TreeControls.js"
import * as Jail from "../jail/Jail.js"
import * as P from "../jail/PosixPath.js"
import * as GitFolder from "./GitFolder.js"

export type Kind = "file" | "directory" | "symlink" | "other"

/** One change bash left, by workspace-relative path (`/`-separated, no `.` or `..`). */
export type Change =
  /** A regular file made, or replaced (content or mode); `existed`: the workspace held something there before. */
  | { readonly _tag: "Write"; readonly path: string; readonly mode: number; readonly existed: boolean }
  | { readonly _tag: "Link"; readonly path: string; readonly target: string; readonly existed: boolean }
  | { readonly _tag: "MakeDir"; readonly path: string; readonly mode: number }
  /** What the workspace held there is gone in bash's view (a whiteout, an opaque folder, a rename's source). */
  | { readonly _tag: "Remove"; readonly path: string; readonly kind: Kind }
  /** A fifo, socket or device node. */
  | { readonly _tag: "Special"; readonly path: string }

export interface Facts {
  /** The canonical workspace root (absolute). */
  readonly root: string
  /** What the session's scopes let bash change: `files=read` nothing, `git=read` nothing in a git folder. */
  readonly writable: { readonly files: boolean; readonly git: boolean }
  /** Folders (workspace-relative) git takes for git folders though they are not named `.git` (HEAD beside objects/ and refs/). */
  readonly gitFolders: ReadonlySet<string>
  /**
   * Git folders this call completes around entries made earlier as anyone's files (a `config`, `hooks/`, a
   * `commondir`: `GitFolder.planted`), each with why: every change in them is refused, so the layout is not made.
   */
  readonly plantedGitFolders?: ReadonlyMap<string, string>
  /** Files the repositories' configuration makes git's (core.hooksPath's folder, included configs, named programs). */
  readonly controls: TreeControls.TreeControls
  /**
   * What bash saw other than it is (workspace-relative): the masks and read-only copies of its view. A change there
   * was made to a stand-in (an empty mask), never to the real entry: refused, as is one below such a folder.
   */
  readonly masked?: ReadonlySet<string>
  /** Protected paths under other names (link targets, other names of a secret's inode) and editor controls reached by a link. */
  readonly aliases?: Aliases.Protected
}

/** Text of a file judged by content: what the workspace held before (undefined: nothing) and what bash left. */
export interface Content {
  readonly before?: string | undefined
  readonly after?: string | undefined
}

export type Verdict = { readonly _tag: "Merge" } | { readonly _tag: "Refuse"; readonly rule: string; readonly reason: string }

export const merge: Verdict = { _tag: "Merge" }
const refuse = (rule: string, reason: string): Verdict => ({ _tag: "Refuse", rule, reason })

/** The git folder a path is in (workspace-relative, "" when none) and the path's rest below it. */
export const gitFolderOf = (facts: Pick<Facts, "gitFolders">, path: string): { readonly folder: string; readonly rest: string } | undefined => {
  const segs = path.split("/")
  for (let i = 0; i < segs.length; i++) {
    const here = segs.slice(0, i + 1).join("/")
    if (Jail.isDotGit((segs[i] ?? "").toLowerCase()) || facts.gitFolders.has(here)) return { folder: here, rest: segs.slice(i + 1).join("/") }
  }
  return undefined
}

const kindOf = (change: Change): Kind | "removed" =>
  change._tag === "Write" ? "file" : change._tag === "Link" ? "symlink" : change._tag === "MakeDir" ? "directory" : change._tag === "Remove" ? "removed" : "other"

/** Whether judging the change needs `Content` (an editor control's, git's config, a rebase's todo list). */
export const needsContent = (facts: Pick<Facts, "gitFolders"> & Partial<Pick<Facts, "root" | "aliases">>, change: Change): boolean => {
  if (change._tag !== "Write") return false
  const git = gitFolderOf(facts, change.path)
  return git !== undefined ? GitFolder.needsContent(git.rest) : controlName(facts, change.path) !== undefined
}

const badPath = (path: string): boolean =>
  path === "" || path.startsWith("/") || path.includes("\0") || path.split("/").some((s) => s === "" || s === "." || s === "..")

/** The names an editor reads `path` by: its own, and those through a symlink at a control's name (`.vscode -> cfg`). */
const controlNames = (facts: Partial<Pick<Facts, "root" | "aliases">>, path: string): ReadonlyArray<string> =>
  facts.aliases === undefined || facts.root === undefined ? [path] : [path, ...Aliases.controlNames(facts.aliases, facts.root, P.join(facts.root, path))]

/** The editor-control name `path` is read by, if any. */
export const controlName = (facts: Partial<Pick<Facts, "root" | "aliases">>, path: string): string | undefined => controlNames(facts, path).find((n) => EditorControls.kindOf(n) !== undefined)

/** `Aliases.byPath`, made once per aliases value (a merge judges every change against the same one). */
const byPathMade = new WeakMap<Aliases.Protected, (real: string) => boolean>()
const protectedByPath = (aliases: Aliases.Protected, root: string): ((real: string) => boolean) => {
  const known = byPathMade.get(aliases)
  if (known !== undefined) return known
  const made = Aliases.byPath(aliases, root)
  byPathMade.set(aliases, made)
  return made
}

const atOrBelow = (set: Iterable<string>, path: string): string | undefined => {
  for (const m of set) if (path === m || path.startsWith(`${m}/`)) return m
  return undefined
}

export const judge = (facts: Facts, change: Change, content: Content = {}): Verdict => {
  const path = change.path
  if (badPath(path)) return refuse("staged.bad-path", `${JSON.stringify(path)} is not a plain workspace-relative path`)
  if (!facts.writable.files) return refuse("scope.files-read", `${path}: this session's files scope is read-only, so bash may change nothing`)
  const absolute = P.join(facts.root, path)
  const mask = facts.masked === undefined ? undefined : atOrBelow(facts.masked, path)
  if (mask !== undefined) return refuse("staged.masked", `${path}: bash saw a stand-in for ${mask} (masked or shown read-only), so its change there is not the real file's`)
  if (facts.aliases !== undefined && protectedByPath(facts.aliases, facts.root)(absolute)) {
    return refuse("jail.sensitive", `${path} is protected content under another name`)
  }
  const git = gitFolderOf(facts, path)
  if (git !== undefined) {
    if (!facts.writable.git) return refuse("scope.git-read", `${path}: this session's git scope is read-only, so bash may change nothing in a git folder`)
    const planted = facts.plantedGitFolders?.get(git.folder)
    if (planted !== undefined) {
      return refuse("staged.git-layout", `${path} would make ${git.folder} a folder git takes for a git folder (HEAD beside objects/ and refs/, or a commondir), and it already holds ${planted}`)
    }
    const verdict = GitFolder.judge(git.rest, kindOf(change), change._tag === "Write" || change._tag === "Link" ? change.existed : true, content.after)
    return verdict.ok ? merge : refuse(verdict.rule, `${path}: ${verdict.reason}`)
  }
  // As the jail stage judges a file tool's write: a file git's configuration makes a hook, a config or a program.
  const control = TreeControls.changeReason(facts.controls, absolute, change._tag === "Remove" || change._tag === "MakeDir")
  if (control !== undefined) return refuse("jail.git-internals", `${path} is protected: ${control}`)
  const named = Jail.protectedName(absolute, facts.root)
  if (named?.kind === "state") return refuse("jail.minicode-state", `${path}: minicode's own state (.minicode/) is not for tools`)
  if (named?.kind === "secret") return refuse("jail.sensitive", `${path} is protected: ${named.reason}`)
  switch (change._tag) {
    case "Special":
      return refuse("staged.special-file", `${path} is a fifo, socket or device node, which no tool makes in the workspace`)
    case "Link": {
      const target = P.resolve(P.dirname(absolute), change.target)
      if (change.target.startsWith("/") || !P.isInside(facts.root, target) || target === facts.root) {
        return refuse("jail.symlink-escape", `${path} would be a symlink to ${change.target}, which leads outside the workspace`)
      }
      const to = Jail.protectedName(target, facts.root)
      if (to !== undefined) return refuse("jail.sensitive", `${path} would be a symlink to ${change.target}, which is protected`)
      if (gitFolderOf(facts, P.relative(facts.root, target)) !== undefined) {
        return refuse("jail.git-internals", `${path} would be a symlink into a git folder, which git reads as instructions`)
      }
      if (controlName(facts, path) !== undefined || EditorControls.isControlFolder(path)) {
        return refuse("jail.editor-control", `${path} is read by an editor or agent that runs commands from it: a symlink there could be pointed anywhere`)
      }
      return merge
    }
    case "Write": {
      const name = controlName(facts, path)
      if (name === undefined) return merge
      if (content.after === undefined) return refuse("jail.editor-control-unreadable", `${path} is read by an editor or agent that runs commands from it, and its new content could not be read`)
      const refusal = EditorControls.judge(name, content.before, content.after)
      return refusal === undefined ? merge : refuse(refusal.rule, name === path ? refusal.reason : `${path} is read as ${name}: ${refusal.reason}`)
    }
    case "MakeDir":
    case "Remove":
      return merge
  }
}
