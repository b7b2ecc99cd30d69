/**
 * The scan for what the sandbox must hide: the whole workspace, every depth, ignored and vendored folders included
 * (`node_modules/.npmrc`, `dist/.env`, `a/b/c/d/e/f/g/h/.env`). A fast walk: `readdir` with file types, no stat per
 * file, symlinks never followed; the rule per entry is the pure `SandboxProfile.classify`.
 *
 * Cached per workspace as a tree of folders, and validated on every call by one `lstat` per folder seen: a folder's
 * ctime changes whenever an entry in it is added, removed or renamed, and unlike its mtime it cannot be set back
 * (`touch -d`). A folder whose ctime is too recent to be trusted against the clock's granularity is read again next
 * time, so a change in the same tick as the read is never missed; a folder replaced by another (new inode) is read
 * again, and what was known below it forgotten.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import * as EditorControls from "../../domain/files/EditorControls.js"
import * as Profile from "../../domain/sandbox/SandboxProfile.js"

/**
 * What the scan reports: a path and what to do with it (`sanitize`: show a sanitized copy of git's config; `pin`: a
 * git folder or `.git` file, made a mount point and looked after; `hold`: a folder made a mount point only, as a
 * secret's protection rests on its name; `link`: a `.git` that is a symlink, never mounted, only looked after by
 * GitControl; `secret-link`: a symlink with a protected name, never mounted, whose target `ScanAliases` masks at
 * every scan; `control`: a file the user's editor or agent runs commands from (`EditorControls`), or a symlink at
 * such a file's or folder's name, below the top as well: shown read-only to a writable call, and one a call made is
 * judged when it ends, `EditorControlsOnDisk`).
 */
export interface Hit {
  readonly path: string
  readonly kind: Profile.MaskKind
  readonly verdict: "mask" | "sanitize" | "pin" | "hold" | "link" | "secret-link" | "control"
}

/**
 * A folder the scan knows, a node of the workspace's tree (a 25,000-folder tree is ~4 MB so, where a map of absolute
 * paths to records with their subfolders' paths held ~8 MB). Its path is its ancestors' names joined; its subfolders
 * (those the scan walks) are a list through `first` and each one's `next`, no array per folder.
 */
export interface Folder {
  /** Its name in its parent; the root's: its absolute path. */
  readonly name: string
  readonly parent: Folder | undefined
  /** -1 while not read (new, or gone when last looked at): read before it is trusted. */
  ino: number
  /** The ctime when read; NaN when it was too close to the read to rule out a later change in the same tick. */
  ctimeMs: number
  hits: ReadonlyArray<Hit>
  first: Folder | undefined
  next: Folder | undefined
  /** What `WatchedScan` keeps on the folder (its watcher). */
  watch: { readonly close: () => void } | undefined
}

/** Most folders hold no hit: one empty list for all (an empty array is 32 bytes or more). */
const none: ReadonlyArray<never> = Object.freeze([])

/** A folder's subfolder's path. */
export const join = (dir: string, name: string): string => (dir.endsWith("/") ? `${dir}${name}` : `${dir}/${name}`)

/** The cache: per workspace root, its tree (`WatchedScan` keeps one per process). */
export type Cache = Map<string, Folder>

export const makeCache = (): Cache => new Map()

/** A folder not read yet. */
export const node = (name: string, parent: Folder | undefined): Folder => ({
  name,
  parent,
  ino: -1,
  ctimeMs: Number.NaN,
  hits: none,
  first: undefined,
  next: undefined,
  watch: undefined
})

/** The folder's absolute path. */
export const pathOf = (f: Folder): string => {
  if (f.parent === undefined) return f.name
  const names: Array<string> = []
  let at: Folder | undefined = f
  for (; at?.parent !== undefined; at = at.parent) names.push(at.name)
  let out = at?.name ?? ""
  for (let i = names.length - 1; i >= 0; i--) out = join(out, names[i] as string)
  return out
}

/** The folder and everything below it. */
export const eachBelow = (f: Folder, visit: (f: Folder) => void): void => {
  const stack = [f]
  for (let d = stack.pop(); d !== undefined; d = stack.pop()) {
    visit(d)
    for (let c = d.first; c !== undefined; c = c.next) stack.push(c)
  }
}

/** Forgets what is known of a folder and of everything below it (`onDrop` is told of each): it is read anew. */
export const forget = (f: Folder, onDrop?: (f: Folder) => void): void => {
  const stack = [f]
  for (let d = stack.pop(); d !== undefined; d = stack.pop()) {
    for (let c = d.first; c !== undefined; c = c.next) stack.push(c)
    onDrop?.(d)
    d.ino = -1
    d.ctimeMs = Number.NaN
    d.hits = none
    d.first = undefined
  }
}

/** A change this close (ms) to the read may share its timestamp tick (coarse clocks, 2 s on FAT): read again. */
export const defaultSettleMs = 3_000

const kindOf = (dir: string, d: fs.Dirent): "file" | "directory" | "other" => {
  if (d.isDirectory()) return "directory"
  if (d.isFile()) return "file"
  if (d.isSymbolicLink() || d.isFIFO() || d.isSocket() || d.isCharacterDevice() || d.isBlockDevice()) return "other"
  // The file system did not say (DT_UNKNOWN): ask, without following a symlink.
  const st = fs.lstatSync(path.join(dir, d.name), { throwIfNoEntry: false })
  return st === undefined ? "other" : st.isDirectory() ? "directory" : st.isFile() ? "file" : "other"
}

/** A control file of the editor's or agent's, or a symlink at a control's name (`sub/.vscode -> cfg`). */
const isControl = (root: string, abs: string, d: fs.Dirent, kind: "file" | "directory" | "other"): boolean => {
  if ((kind === "file" || d.isSymbolicLink()) && (EditorControls.mayBeControl(d.name) || EditorControls.mayBeScript(abs))) {
    const k = EditorControls.kindOf(path.relative(root, abs))
    // `package.json` is no control the sandbox shows read-only (npm writes it): EditorControlsOnDisk looks at the top's.
    if (k !== undefined) return EditorControls.shownReadOnly(k)
  }
  return d.isSymbolicLink() && EditorControls.isControlFolder(path.relative(root, abs))
}

/**
 * A listing that is a git object folder's: `info/` and `pack/` in it (git makes both for every repository). Judged on
 * the object folder, not on `HEAD` or `refs/` beside it: the sandbox masks the store, so bash cannot change what is
 * in it, but it can remove `HEAD` and `refs/`, and the next call would see the store.
 */
const isStore = (list: ReadonlyArray<fs.Dirent>): boolean => {
  let found = 0
  for (const d of list) {
    if (d.name === "info" && d.isDirectory()) found |= 1
    else if (d.name === "pack" && d.isDirectory()) found |= 2
  }
  return found === 3
}

/**
 * A listing git's discovery takes for a git folder (`is_git_directory` in git's setup.c): a `HEAD` that is not a
 * folder (git then checks it holds a ref or an id: looser here, never stricter), and either a `commondir` or both an
 * `objects` and a `refs` that are not plain files (git asks `access(X_OK)`, which a symlink to a folder passes).
 * Was a hole (red team): bash made `src/` such a folder (no `objects/info`, `objects/pack`, so no store) with a
 * config naming an fsmonitor; the user's `git status` in `src/` took `src` for a git folder and ran the program.
 */
const isGitLayout = (list: ReadonlyArray<fs.Dirent>): boolean => {
  let found = 0
  for (const d of list) {
    if (d.name === "HEAD" && !d.isDirectory()) found |= 1
    else if (d.name === "commondir" && !d.isDirectory()) found |= 2
    else if (d.name === "objects" && !d.isFile()) found |= 4
    else if (d.name === "refs" && !d.isFile()) found |= 8
  }
  return (found & 1) === 1 && ((found & 2) === 2 || (found & 12) === 12)
}

/**
 * A git bundle (`git bundle create x.bundle --all`): a whole history in one file, which `git fetch` in bash would
 * unpack whatever the object stores hide. Was a hole (red team): a bundle holding a deleted `.env`'s history. Masked
 * like a store; looked at only for names ending in `.bundle`, by their signature line.
 */
const isBundle = (file: string): boolean => {
  try {
    const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW)
    try {
      const head = Buffer.alloc(16)
      const n = fs.readSync(fd, head, 0, 16, 0)
      return /^# v[23] git bundle/.test(head.subarray(0, n).toString("latin1"))
    } finally {
      fs.closeSync(fd)
    }
  } catch {
    return false
  }
}

/** Longer paths than this (Linux's PATH_MAX is 4096) cannot be looked at or mounted over by name. */
const longestPath = 4000

/**
 * A folder the scan cannot see into, masked whole. Was a hole (red team): "unreadable to minicode is unreadable to
 * the sandbox" is false, the sandbox runs as the folder's owner, who may chmod it back: a `conf/` made mode 000 by
 * one call was scanned as empty by the next, whose script made it readable and read `conf/.env`. Likewise a folder
 * whose entries' paths are too long to look at or to mask (a path past PATH_MAX made one `cd` at a time).
 */
const blind = (f: Folder, dir: string, st: fs.Stats, readAt: number, settleMs: number, onDrop?: (f: Folder) => void): void => {
  for (let c = f.first; c !== undefined; c = c.next) forget(c, onDrop)
  settle(f, st, readAt, settleMs)
  f.hits = [{ path: dir, kind: "directory", verdict: "mask" }]
  f.first = undefined
}

const settle = (f: Folder, st: fs.Stats, readAt: number, settleMs: number): void => {
  f.ino = st.ino
  f.ctimeMs = st.ctimeMs < readAt - settleMs ? st.ctimeMs : Number.NaN
}

const codeOf = (cause: unknown): string | undefined =>
  typeof cause === "object" && cause !== null && "code" in cause ? String((cause as { readonly code: unknown }).code) : undefined

/**
 * Reads a folder again: its hits, and its subfolders to walk, each one known before (same name) kept with what is
 * known of it (checked when walked) and the others forgotten (`onDrop` is told of each folder below them).
 */
export const read = (root: string, f: Folder, dir: string, st: fs.Stats, settleMs: number, onDrop?: (f: Folder) => void): void => {
  const readAt = Date.now()
  let list: Array<fs.Dirent>
  try {
    list = fs.readdirSync(dir, { withFileTypes: true })
  } catch (cause) {
    // Gone (or replaced by a file) since its parent was read: nothing there to hide.
    const code = codeOf(cause)
    if (code === "ENOENT" || code === "ENOTDIR") list = []
    else if (dir === root) throw cause
    else return blind(f, dir, st, readAt, settleMs, onDrop)
  }
  if (dir !== root && list.some((d) => dir.length + 1 + Buffer.byteLength(d.name) > longestPath)) return blind(f, dir, st, readAt, settleMs, onDrop)
  const hits: Array<Hit> = []
  // Read for the first time (the cold scan): nothing to keep.
  const known = f.first === undefined ? undefined : new Map<string, Folder>()
  for (let c = f.first; c !== undefined; c = c.next) known?.set(c.name, c)
  let first: Folder | undefined
  let last: Folder | undefined
  let held = false
  for (const d of list) {
    const abs = path.join(dir, d.name)
    const kind = kindOf(dir, d)
    const verdict = Profile.classify(root, abs, kind)
    // A `.git` symlink: git follows it to whatever folder it names (red team: `src/.git -> ../gd`, an fsmonitor in
    // `gd/config`). Reported for GitControl, which removes one the call made; never mounted.
    if (kind === "other" && d.name === ".git") hits.push({ path: abs, kind: "file", verdict: "link" })
    // A symlink with a protected name (`.env -> env/development`): the secret is its target's content, shown by the
    // target's own name. Reported, and resolved afresh at every scan (a link on its way may change in any folder).
    else if (verdict === "skip" && d.isSymbolicLink()) hits.push({ path: abs, kind: "file", verdict: "secret-link" })
    if (kind !== "other" && (verdict === "mask" || verdict === "sanitize" || verdict === "pin" || verdict === "hold")) hits.push({ path: abs, kind, verdict })
    if (kind === "directory" && (verdict === "descend" || verdict === "pin" || verdict === "hold")) {
      const sub = known?.get(d.name) ?? node(d.name, f)
      known?.delete(d.name)
      sub.next = undefined
      if (last === undefined) first = sub
      else last.next = sub
      last = sub
    }
    if (verdict === "mask" && kind !== "other" && !held && Profile.restsOnFolderName(root, abs)) held = true
    if (kind === "file" && verdict === "keep" && d.name.endsWith(".bundle") && isBundle(abs)) hits.push({ path: abs, kind, verdict: "mask" })
    else if (verdict === "keep" && kind !== "directory" && isControl(root, abs, d, kind)) hits.push({ path: abs, kind: "file", verdict: "control" })
  }
  const self = Profile.classify(root, dir, "directory")
  const gitFolder = self === "pin"
  // A git folder is pinned already (by its parent's read), a folder named like a secret file held already.
  if (held && !gitFolder && self !== "hold") hits.push({ path: dir, kind: "directory", verdict: "hold" })
  // The folder holding an object folder (a bare repository: `git clone --bare` into `backup.git/`, or any name) is
  // pinned as a `.git` folder is, so its store is hidden as a nested repository's is (SecretObjects.toHide). Was a
  // hole (red team): its history, a deleted `.env` among it, was readable from bash (`git -C backup.git log -p`).
  const repo = path.dirname(dir)
  const inGit = (p: string) => path.relative(root, p).split(path.sep).includes(".git")
  if (path.basename(dir) === "objects" && repo !== root && !inGit(repo) && isStore(list)) {
    hits.push({ path: repo, kind: "directory", verdict: "pin" })
  }
  // Any folder git would take for a git folder, pinned and looked after like a `.git` folder (the ones in a `.git`
  // folder, its worktrees' and modules', are looked after with it).
  if (!gitFolder && !inGit(dir) && isGitLayout(list)) {
    hits.push({ path: dir, kind: "directory", verdict: "pin" })
    // Its configuration shown sanitized and its hooks masked, as a `.git` folder's are (was a hole, red team: a
    // `git init --separate-git-dir=.repo` workspace's `.repo/config` showed a token in its remote's URL).
    for (const d of list) {
      if ((d.name === "config" || d.name === "config.worktree") && d.isFile()) hits.push({ path: path.join(dir, d.name), kind: "file", verdict: "sanitize" })
      else if (d.name === "hooks" && d.isDirectory()) hits.push({ path: path.join(dir, d.name), kind: "directory", verdict: "mask" })
    }
  }
  if (known !== undefined) for (const gone of known.values()) forget(gone, onDrop)
  settle(f, st, readAt, settleMs)
  f.hits = hits.length === 0 ? none : hits
  f.first = first
}

/** What a folder's read found (its hits, its subfolders' names); "" for one never read. */
const known = (f: Folder): string => {
  if (f.ino === -1) return ""
  let out = ""
  for (const h of f.hits) out += `${h.verdict} ${h.kind} ${h.path}\0`
  for (let c = f.first; c !== undefined; c = c.next) out += `/${c.name}\0`
  return out
}

/**
 * Everything under `root` the sandbox hides, pins or sanitizes. With a cache, folders unchanged since they were
 * last read are not read again (one lstat each); folders no longer there are forgotten (`onDrop` is told of each),
 * and `onRead` of each folder read again, and whether the read found what was known of it (its hits and subfolders):
 * a folder whose ctime alone changed (a file made and removed in it, as GitControl does in `.git` during a call)
 * need not be saved again (ScanStore), since the stored ctime, no longer matching, makes the next process read it.
 */
export const scan = (
  root: string,
  cache?: Cache,
  settleMs = defaultSettleMs,
  onDrop?: (f: Folder) => void,
  onRead?: (f: Folder, same: boolean) => void
): ReadonlyArray<Hit> => {
  let top = cache?.get(root)
  if (top === undefined) {
    top = node(root, undefined)
    cache?.set(root, top)
  }
  const hits: Array<Hit> = []
  const stack: Array<Folder> = [top]
  const paths: Array<string> = [root]
  for (let f = stack.pop(), dir = paths.pop(); f !== undefined && dir !== undefined; f = stack.pop(), dir = paths.pop()) {
    let st: fs.Stats | undefined
    try {
      st = fs.lstatSync(dir, { throwIfNoEntry: false })
    } catch (cause) {
      // Not even its inode can be looked at (a path too long, a parent made unsearchable meanwhile): masked whole.
      if (dir === root) throw cause
      if (f.ino !== -1) forget(f, onDrop)
      hits.push({ path: dir, kind: "directory", verdict: "mask" })
      continue
    }
    if (st === undefined || !st.isDirectory()) {
      // Gone: its parent, changed, drops it when read again; until then it is looked at on every scan.
      if (f.ino !== -1) forget(f, onDrop)
      continue
    }
    // A NaN ctime (not settled when read) never equals: read again.
    if (f.ino !== st.ino || f.ctimeMs !== st.ctimeMs) {
      // Another folder under the same name: nothing known below the old one holds.
      if (f.ino !== -1 && f.ino !== st.ino) forget(f, onDrop)
      const before = onRead === undefined ? undefined : known(f)
      read(root, f, dir, st, settleMs, onDrop)
      onRead?.(f, before === known(f))
    }
    for (let i = 0; i < f.hits.length; i++) hits.push(f.hits[i] as Hit)
    for (let c = f.first; c !== undefined; c = c.next) {
      stack.push(c)
      paths.push(join(dir, c.name))
    }
  }
  return hits
}
