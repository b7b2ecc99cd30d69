/**
 * Object stores the sandbox hides whatever the workspace repository's history says (issue 19, red team):
 *
 * - **A store that holds protected content** no ref reaches: a secret staged and unstaged, changed or deleted
 *   since, in a dropped stash, an amended commit, an unreachable tree, a pack, another worktree's index. Every
 *   protected file the scan masks is hashed as git would (`blob <size>\0<content>`, cached by inode, size and
 *   times); `StoreSecrets.check` remembers those ids for the workspace and adds every blob a tree or an index names
 *   at a protected path, then looks them up in each store (loose files, every pack's `.idx`).
 * - **Nested repositories' stores** (a clone inside the workspace, `.git/modules/*` of submodules). Their history
 *   is never checked (that would run git on the host against a repository the workspace controls), so their
 *   objects are always hidden; git in a nested repository from bash then reports missing objects.
 * - **`.git/lost-found`** and **`.git/rr-cache`** (plain copies of dangling objects left by `git fsck --lost-found`,
 *   of conflicted files recorded by rerere) always, a message file holding a protected path's patch (`git commit
 *   -v` keeps it in `COMMIT_EDITMSG`, `secretMessages`), and a
 *   fan-out folder linked elsewhere (where git would write new objects) where it really is.
 */
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect, Option } from "effect"
import * as GitOutput from "../../domain/git/GitOutput.js"
import * as Jail from "../../domain/jail/Jail.js"
import * as Profile from "../../domain/sandbox/SandboxProfile.js"
import * as StateDir from "../fs/StateDir.js"
import * as GitStore from "./GitStore.js"
import * as StoreSecrets from "./StoreSecrets.js"
import type * as WorkspaceScan from "./WorkspaceScan.js"

const lstat = (p: string) => fs.lstatSync(p, { throwIfNoEntry: false })

const blobIds = new Map<string, { readonly key: string; readonly ids: ReadonlyArray<string> }>()
const hash = (content: Buffer) => createHash("sha1").update(`blob ${content.length}\0`).update(content).digest("hex")

/**
 * The content as git's message cleanup (`stripspace`, without comments) leaves it: trailing whitespace cut from each
 * line, runs of blank lines made one, leading and trailing ones dropped, a final newline. `git notes add -F .env`
 * (and `-m "$(cat .env)"`) stores that, not the file: a `.env` without a final newline gave a note blob no hash of
 * the file matched (red team).
 */
const stripspace = (content: Buffer): Buffer | undefined => {
  if (content.length > 1024 * 1024) return undefined
  const out: Array<string> = []
  let blank = false
  for (const line of content.toString("latin1").split("\n")) {
    const trimmed = line.replace(/[ \t\r]+$/, "")
    if (trimmed === "") {
      blank = true
      continue
    }
    if (blank && out.length > 0) out.push("")
    blank = false
    out.push(trimmed)
  }
  return out.length === 0 ? undefined : Buffer.from(out.map((l) => `${l}\n`).join(""), "latin1")
}

/** git's blob ids of a regular file's content and of its cleaned-up form, or none (not a file, unreadable, over 64 MB). */
const blobId = (file: string): ReadonlyArray<string> => {
  const st = lstat(file)
  if (st === undefined || !st.isFile() || st.size > 64 * 1024 * 1024) return []
  const key = `${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`
  const known = blobIds.get(file)
  if (known !== undefined && known.key === key) return known.ids
  let ids: ReadonlyArray<string> = []
  try {
    const content = fs.readFileSync(file)
    const cleaned = stripspace(content)
    ids = [...new Set([hash(content), ...(cleaned === undefined ? [] : [hash(cleaned)])])]
  } catch {
    ids = []
  }
  blobIds.set(file, { key, ids })
  return ids
}

/** The files of a masked folder (a `.ssh`, a `.aws`), a few levels and a bounded number. */
const filesUnder = (dir: string, out: Array<string>, depth = 0) => {
  if (depth > 3 || out.length > 500) return
  let list: Array<fs.Dirent> = []
  try {
    list = fs.readdirSync(dir, { withFileTypes: true })
  } catch {
    return
  }
  for (const d of list) {
    const p = path.join(dir, d.name)
    if (d.isFile()) out.push(p)
    else if (d.isDirectory()) filesUnder(p, out, depth + 1)
  }
}

/** Object folders of every git folder below `gitDir/modules` (submodules' repositories). */
const moduleStores = (gitDir: string, out: Array<string>, depth = 0) => {
  if (depth > 6) return
  let list: Array<fs.Dirent> = []
  try {
    list = fs.readdirSync(path.join(gitDir, "modules"), { withFileTypes: true })
  } catch {
    return
  }
  for (const d of list) {
    if (!d.isDirectory()) continue
    const sub = path.join(gitDir, "modules", d.name)
    for (const name of Profile.objectFolders) if (lstat(path.join(sub, name))?.isDirectory() === true) out.push(path.join(sub, name))
    moduleStores(sub, out, depth + 1)
  }
}


/**
 * A path's real location, or undefined when it does not exist. The kernel's walk (`.native`): the JS one is an
 * lstat and a JS step per component, and a sandboxed call asks for several paths under `.git` (five components
 * deep for a workspace at /tmp/x/ws).
 */
const real = (p: string): string | undefined => {
  try {
    return fs.realpathSync.native(p)
  } catch {
    return undefined
  }
}

/** The stores the workspace repository borrows from inside the workspace (`objects/info/alternates`), resolved. */
const alternatesOf = (workspace: string, objects: string): Array<string> => {
  let text = ""
  try {
    text = fs.readFileSync(path.join(objects, "info", "alternates"), "utf8")
  } catch {
    return []
  }
  const out: Array<string> = []
  for (const raw of text.split("\n")) {
    const line = raw.trim()
    if (line === "" || line.startsWith("#")) continue
    const target = real(path.resolve(objects, line.startsWith('"') ? line.slice(1, -1) : line))
    if (target !== undefined && (target === workspace || target.startsWith(workspace + "/"))) out.push(target)
  }
  return out
}

/**
 * The blob ids of the files the scan masks (each protected file, and the files of a masked folder, outside git
 * folders), as git would hash their current content: bash's store check looks them up in the stores, and the git
 * tools refuse any object with one of them (`GitTools` `Runners.protectedIds`), whatever names it.
 */
export const maskedIds = (hits: ReadonlyArray<WorkspaceScan.Hit>): ReadonlyArray<string> => {
  const files: Array<string> = []
  for (const h of hits) {
    if (h.verdict !== "mask" || h.path.split("/").includes(".git")) continue
    if (h.kind === "file") files.push(h.path)
    else filesUnder(h.path, files)
  }
  // minicode's own state files are not content a tool could carry into a store (StateDir.isOwnState).
  return files.filter((f) => !(path.basename(path.dirname(f)) === ".minicode" && StateDir.isOwnState(path.basename(f)))).flatMap(blobId)
}

/**
 * The object folders (inside the workspace) the sandbox must mask: nested repositories' and submodules' always,
 * `.git/lost-found` and `.git/rr-cache` always (plain copies of objects and of conflicted files), and the
 * workspace repository's store (with the folders git copies objects to) when it holds protected content
 * (`StoreSecrets.check`), or a store it borrows from inside the workspace when that one does. A fan-out folder
 * linked elsewhere is masked where it points.
 */
/** The most loose blobs masked one by one; past it the store is hidden whole. */
const maxUnattributed = 200

function* hideSteps(workspace: string, hits: ReadonlyArray<WorkspaceScan.Hit>, during: boolean): GitStore.Steps<ReadonlyArray<string>> {
  const rootGit = path.join(workspace, ".git")
  const hide: Array<string> = []
  for (const h of hits) {
    if (h.verdict !== "pin" || h.kind !== "directory" || h.path === rootGit) continue
    for (const name of Profile.objectFolders) if (lstat(path.join(h.path, name))?.isDirectory() === true) hide.push(path.join(h.path, name))
    moduleStores(h.path, hide)
  }
  if (lstat(rootGit)?.isDirectory() !== true) return hide
  moduleStores(rootGit, hide)
  for (const copies of ["lost-found", "rr-cache"]) {
    const folder = real(path.join(rootGit, copies))
    if (folder !== undefined) hide.push(folder)
  }
  const ids = maskedIds(hits)
  const objects = real(path.join(rootGit, "objects"))
  if (objects === undefined) return hide
  const stores = [objects, ...alternatesOf(workspace, objects)]
  const view = yield* StoreSecrets.checkSteps(workspace, rootGit, stores, ids, during)
  hide.push(...view.elsewhere)
  if (view.holds(objects)) {
    for (const name of Profile.objectFolders) {
      const folder = real(path.join(rootGit, name))
      if (folder !== undefined) hide.push(folder)
    }
  }
  for (const alt of stores.slice(1)) if (view.holds(alt)) hide.push(alt)
  // Loose blobs no tree or index names: each masked, or the whole store past a bound (a mount each).
  for (const store of stores) {
    if (view.holds(store)) continue
    const files = view.unattributed(store)
    if (files.length > maxUnattributed) hide.push(...(store === objects ? Profile.objectFolders.flatMap((n) => real(path.join(rootGit, n)) ?? []) : [store]))
    else hide.push(...files)
    // Packs holding such blobs (a cruft pack, one `git repack -A` kept unreachable objects in): the pack file.
    hide.push(...view.unattributedPacks(store))
  }
  return hide
}

/** `toHideEffect` run through at once, the event loop standing still meanwhile (a first check of a big pack: seconds). */
export const toHide = (workspace: string, hits: ReadonlyArray<WorkspaceScan.Hit>): ReadonlyArray<string> => GitStore.drain(hideSteps(workspace, hits, false))

/** One check at a time per workspace: a second call waits for the first, then finds its work done (the state file). */
const lanes = new Map<string, Effect.Semaphore>()
const lane = (workspace: string) => {
  const known = lanes.get(workspace)
  if (known !== undefined) return known
  const made = Effect.unsafeMakeSemaphore(1)
  lanes.set(workspace, made)
  return made
}

/** The event loop's next turn (timers, sockets, other calls' work run before the check goes on). */
const nextTurn = Effect.async<void>((resume) => {
  const t = setImmediate(() => resume(Effect.void))
  return Effect.sync(() => clearImmediate(t))
})

/**
 * The folders and files to mask, computed a slice of a few milliseconds at a time with the event loop turning in
 * between: the first check of a big history (seconds) no longer stalls a long-lived process's other calls
 * (`mcp serve`). The call asking waits for the answer, so it never runs with an unchecked store visible; an
 * interrupted check stops where it is (what it read is not saved) and is done again by the next call.
 */
export const toHideEffect = (workspace: string, hits: ReadonlyArray<WorkspaceScan.Hit>, during = false): Effect.Effect<ReadonlyArray<string>> =>
  paced(workspace, () => hideSteps(workspace, hits, during), [])

/**
 * After a writable sandboxed call: what it added to the workspace repository's stores is content it knew
 * (`StoreSecrets.noteMade`), never taken for a protected file's; or, `exposed` (a mask broke during the call), is
 * protected content.
 */
export const noteMade = (workspace: string, exposed = false): void => {
  const rootGit = path.join(workspace, ".git")
  if (lstat(rootGit)?.isDirectory() !== true) return
  const objects = real(path.join(rootGit, "objects"))
  if (objects !== undefined) StoreSecrets.noteMade(workspace, [objects, ...alternatesOf(workspace, objects)], exposed)
}

/** Steps run in the workspace's lane, the event loop turning between slices; `none` is what an interruption gives. */
const paced = <A>(workspace: string, make: () => GitStore.Steps<A>, none: A): Effect.Effect<A> => {
  const run = Effect.suspend(() => {
    const steps = make()
    const step: Effect.Effect<A> = Effect.suspend(() => {
      const r = steps.next()
      return r.done === true ? Effect.succeed(r.value) : Effect.zipRight(nextTurn, step)
    })
    // Closing the generator runs its `finally` blocks (an open pack's descriptor).
    return Effect.onInterrupt(step, () => Effect.sync(() => steps.return(none)))
  })
  // The lane taken at once when it is free (`withPermits` suspends the fiber and resumes it on the scheduler even
  // then: a turn of the event loop per sandboxed call), else waited for in turn.
  const sem = lane(workspace)
  return Effect.flatMap(sem.withPermitsIfAvailable(1)(run), (ran) => (Option.isSome(ran) ? Effect.succeed(ran.value) : sem.withPermits(1)(run)))
}

function* protectedSteps(workspace: string, hits: ReadonlyArray<WorkspaceScan.Hit>): GitStore.Steps<ReadonlySet<string>> {
  const rootGit = path.join(workspace, ".git")
  const ids = maskedIds(hits)
  const objects = lstat(rootGit)?.isDirectory() === true ? real(path.join(rootGit, "objects")) : undefined
  if (objects === undefined) return StoreSecrets.rememberSeen(workspace, ids)
  yield* StoreSecrets.checkSteps(workspace, rootGit, [objects, ...alternatesOf(workspace, objects)], ids)
  return StoreSecrets.remembered(workspace)
}

/**
 * The ids of every protected content bash's store check knows (`StoreSecrets.check`, the same state): the protected
 * files' current contents, every blob a tree or an index in the stores names at a protected path (reachable from a
 * ref or not, whatever grafts, a shallow file or replace refs say), and every content remembered. What the git
 * tools never show under any name (`GitTools` `Runners.protectedIds`). Was a hole (red team): a note written from a
 * never-committed `.env` was shown by `git_show refs/notes/commits:<commit>` until a bash call had run the check.
 */
export const protectedIds = (workspace: string, hits: ReadonlyArray<WorkspaceScan.Hit>): Effect.Effect<ReadonlySet<string>> =>
  paced(workspace, () => protectedSteps(workspace, hits), new Set<string>())

/** Files git leaves in its folder with a patch in them (`git commit -v` keeps the diff below the scissors line). */
const messageFiles = ["COMMIT_EDITMSG", "TAG_EDITMSG", "MERGE_MSG", "SQUASH_MSG", "NOTES_EDITMSG", "ADD_EDIT.patch"]

/** The git folders below a `modules/` folder (a folder holding `HEAD`), and theirs, a few levels deep. */
const modulesOf = (dir: string, depth: number): ReadonlyArray<string> => {
  if (depth > 6) return []
  let entries: Array<fs.Dirent> = []
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true })
  } catch {
    return []
  }
  return entries.flatMap((e) => {
    if (!e.isDirectory()) return []
    const sub = path.join(dir, e.name)
    return lstat(path.join(sub, "HEAD"))?.isFile() === true ? [sub, ...modulesOf(path.join(sub, "modules"), depth + 1)] : modulesOf(sub, depth + 1)
  })
}

/**
 * The git folders bash may see: the workspace's `.git` folder, every other one the scan pinned (a nested
 * repository's or submodule's `.git`, a store by another name), their linked worktrees' folders and the submodules'
 * folders below each (`modules/<name>`), each with the folder its patch paths are relative to.
 */
const gitFoldersOf = (workspace: string, hits: ReadonlyArray<WorkspaceScan.Hit>): ReadonlyArray<{ readonly dir: string; readonly top: string }> => {
  const rootGit = path.join(workspace, ".git")
  const gitDirs = [
    ...(lstat(rootGit)?.isDirectory() === true ? [rootGit] : []),
    ...hits.filter((h) => h.verdict === "pin" && h.kind === "directory").map((h) => h.path)
  ]
  const dirs: Array<{ readonly dir: string; readonly top: string }> = []
  for (const git of new Set(gitDirs)) {
    // Patch paths are relative to the folder the git folder belongs to (a store by another name: the workspace's).
    const top = path.basename(git) === ".git" ? path.dirname(git) : workspace
    dirs.push({ dir: git, top })
    try {
      for (const w of fs.readdirSync(path.join(git, "worktrees"))) dirs.push({ dir: path.join(git, "worktrees", w), top })
    } catch {
      // none
    }
    // Submodules' git folders (`.git/modules/<name>`, names with slashes, their own `modules/` below): commits made
    // in a submodule leave their message files there. Patch paths are the submodule's, judged by name.
    for (const module of modulesOf(path.join(git, "modules"), 0)) dirs.push({ dir: module, top: module })
  }
  return dirs
}

/**
 * The legacy remote definitions (`branches/`, `remotes/`: remotes by their URLs, credentials included, as a
 * config's `remote.*.url`) of every git folder bash may see, to mask (red team: a nested repository's
 * `.git/branches/origin` showed its token; the jail refuses them to file tools).
 */
export const remoteFolders = (workspace: string, hits: ReadonlyArray<WorkspaceScan.Hit>): ReadonlyArray<string> =>
  gitFoldersOf(workspace, hits).flatMap(({ dir }) => ["branches", "remotes"].map((f) => path.join(dir, f)).filter((f) => lstat(f)?.isDirectory() === true))

/**
 * The message files of the workspace repository (and its linked worktrees) and of every other git folder the scan
 * pinned (a nested repository's or submodule's `.git`, a store by another name such as `--separate-git-dir=.repo`)
 * that hold a patch of a protected path, or of a file the scan masks (a protected symlink's target): masked, so
 * `cat .git/COMMIT_EDITMSG` after `git commit -v` of a `.env` shows nothing. Those without stay as they are (git in
 * bash writes them). Was a hole (red team): only the root's `.git` folder was looked at, and a nested repository's
 * `sub/.git/COMMIT_EDITMSG` showed the `.env` committed there.
 */
export const secretMessages = (workspace: string, hits: ReadonlyArray<WorkspaceScan.Hit> = []): ReadonlyArray<string> => {
  const masked = new Set(hits.filter((h) => h.verdict === "mask").map((h) => h.path))
  const dirs = gitFoldersOf(workspace, hits)
  const protectedAt = (top: string, p: string) =>
    [path.join(top, p), path.join(workspace, p)].some((abs) => Jail.sensitiveReason(abs, workspace) !== undefined || masked.has(abs))
  const out: Array<string> = []
  for (const { dir, top } of dirs) {
    for (const name of messageFiles) {
      const file = path.join(dir, name)
      const st = lstat(file)
      if (st?.isFile() !== true || st.size > 64 * 1024 * 1024) continue
      let text = ""
      try {
        text = fs.readFileSync(file, "utf8")
      } catch {
        continue
      }
      if (!text.includes("diff --git ") && !text.includes("+++ ")) continue
      // Quoted names (`"a/caf\303\251/.env"`) and names with spaces are read as git writes them (was a hole: the
      // quoted token's last segment was `.env"`).
      if (GitOutput.patchPaths(text).some((p) => protectedAt(top, p))) out.push(file)
    }
  }
  return [...new Set(out)]
}
