/**
 * The files in a git folder that tell git where its configuration, hooks and objects are (`commondir`, `gitdir`,
 * `config.worktree`, and `config` where there was none): a writable sandbox may not plant or change them.
 *
 * Was a hole (issue 19, red team): bash wrote `.git/commondir` → `../evil`, a folder holding a `config` with
 * `core.fsmonitor` and `hooks/pre-commit`; the user's next `git status` on the host ran the program, outside any
 * sandbox. bwrap can only protect a file that exists (a mount point), and an empty `commondir` breaks git, so the
 * sandbox records these files before a call and puts them back afterwards (the sandbox has died by then: PID
 * namespace, `--die-with-parent`): planted ones removed, changed ones restored. While the call runs, `commondir`,
 * `config.worktree` and `hooks` are read-only in the sandbox (`precreate`, `liveControls`), so no plant is live on
 * the host meanwhile. Still live until the end: a repository the call makes (its config, hooks, a gitlink to it in
 * the index), which no bind made before the call can cover.
 *
 * Calls may overlap (`mcp serve` runs them concurrently; a CLI call or a second serve session may run on the same
 * workspace): the state kept is the one seen when no writable call was running in the workspace, in any process, and it is put back when the last of the overlapping calls ends, so a call that started
 * after another planted a file never takes the planted file for the original. A control file first seen while calls
 * run is taken to have been absent.
 *
 * Likewise a `.git` the call made where there was none (`removePlanted`): a `gitdir:` file that does not lead to a
 * real folder inside the workspace, or a symlink, is removed. Was a hole (issue 19, red team): bash wrote `.git`,
 * `gitdir: /another/repository/.git`; the git tools refused it, but it stayed on disk, and the user's own `git` on
 * the host followed it (`git add . && git commit` in the workspace committed into the other repository). A `.git`
 * folder the call made (`git init`) stays: its control files, config and hooks are looked after as above.
 *
 * A git folder is whatever git's discovery takes for one, not only a `.git`: the scan pins any folder holding `HEAD`
 * and `objects`/`refs` (or `commondir`), and reports `.git` symlinks, so a layout planted in `src/` has its config and
 * hooks looked after as above, and a planted `.git` symlink is removed.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import * as GitConfig from "../../domain/git/GitConfig.js"
import { beneath } from "../fs/Beneath.js"
import * as SharedRecord from "../fs/SharedRecord.js"
import * as StateLock from "../fs/StateLock.js"
import * as TreeControlsMade from "./TreeControlsMade.js"
import * as TreeControlsOnDisk from "./TreeControlsOnDisk.js"

/**
 * lstat, undefined where nothing is, or where a file on the way means nothing can be (ENOTDIR: `core.hooksPath =
 * tools/hooks` with a file `tools`); a call no longer fails on such a path.
 */
const lstatOf = (p: string): fs.Stats | undefined => {
  try {
    return fs.lstatSync(p, { throwIfNoEntry: false })
  } catch (cause) {
    if (typeof cause === "object" && cause !== null && "code" in cause && cause.code === "ENOTDIR") return undefined
    throw cause
  }
}

/** The control files of a git folder; `config` only in a linked worktree's, where git never writes one. */
const namesIn = (dir: string): ReadonlyArray<string> =>
  path.basename(path.dirname(dir)) === "worktrees" ? ["commondir", "gitdir", "config.worktree", "config"] : ["commondir", "gitdir", "config.worktree"]

/**
 * The entries of a folder in a git folder (its `hooks`, `worktrees`, `modules`); none when there is no such folder.
 * One that cannot be listed is never taken for empty: it is made listable (minicode runs as its owner), else moved
 * aside whole, so git finds nothing there either. Was a hole (red team): bash made a nested repository's
 * `.git/hooks` mode 311 (searchable, not listable); its planted `pre-commit` was never seen and ran on the user's
 * next commit.
 */
const entriesOf = (dir: string): ReadonlyArray<fs.Dirent> => {
  const list = () => fs.readdirSync(dir, { withFileTypes: true })
  try {
    return list()
  } catch (cause) {
    const code = typeof cause === "object" && cause !== null && "code" in cause ? String(cause.code) : ""
    if (code === "ENOENT" || code === "ENOTDIR") return []
  }
  try {
    const st = fs.lstatSync(dir)
    if (st.isDirectory()) {
      fs.chmodSync(dir, (st.mode & 0o7777) | 0o700)
      return list()
    }
  } catch {
    // Not ours to chmod, or still unlistable.
  }
  const aside = `${dir}.minicode-unlistable-${process.pid}-${Date.now()}`
  fs.renameSync(dir, aside)
  return []
}

/** The git folders to watch: each `.git` folder, and its linked worktrees' and submodules' folders. */
const foldersOf = (gitDirs: ReadonlyArray<string>): Array<string> => {
  const out: Array<string> = []
  for (const g of gitDirs) {
    out.push(g)
    for (const sub of ["worktrees", "modules"]) {
      try {
        for (const d of entriesOf(path.join(g, sub))) out.push(path.join(g, sub, d.name))
      } catch {
        // The git folder went away.
      }
    }
  }
  return out
}

/**
 * Whether `dir` is a folder reached without a symlink (the scan's paths are real). The kernel's walk (`.native`):
 * the JS one is an lstat and a JS step per component, four on every control file for a `.git` at /tmp/x/ws.
 */
const realFolder = (dir: string): boolean => {
  try {
    return fs.realpathSync.native(dir) === dir
  } catch {
    return true
  }
}

type State =
  | { readonly kind: "none" }
  | { readonly kind: "file"; readonly content: Buffer }
  | { readonly kind: "link"; readonly target: string }
  | { readonly kind: "other" }

const stateOf = (file: string): State => {
  const st = lstatOf(file)
  if (st === undefined) return { kind: "none" }
  if (st.isSymbolicLink()) {
    try {
      return { kind: "link", target: fs.readlinkSync(file) }
    } catch {
      return { kind: "other" }
    }
  }
  if (!st.isFile()) return { kind: "other" }
  try {
    return { kind: "file", content: fs.readFileSync(file) }
  } catch {
    return { kind: "other" }
  }
}

/**
 * The tree's files git runs or reads because the repository's configuration says so (TreeControls): what each
 * `core.hooksPath` folder holds, and the included config files. Was a hole (red team): bash wrote
 * `.githooks/post-commit` where `core.hooksPath = .githooks`; the user's next commit ran it. `hooks`: the folders.
 */
const treeOf = (workspace: string, gitDirs: ReadonlyArray<string>, dotGits: ReadonlyArray<string> = []) => {
  // Every git folder's own configuration too (a project's husky hooks in a folder of projects, a hooks folder it
  // names elsewhere in the workspace), and each `.git` file's repository (its top is the folder holding it).
  const c = TreeControlsOnDisk.read(workspace, process.env["HOME"], [], [...gitDirs, ...dotGits])
  const hooks = c.hooks.filter((h) => lstatOf(h)?.isDirectory() === true && realFolder(h))
  const programs = c.programs.filter((f) => realFolder(path.dirname(f)))
  const files = [...hooks.flatMap((h) => entriesOf(h).map((d) => path.join(h, d.name))), ...c.configs.filter((f) => realFolder(path.dirname(f))), ...programs]
  // Put back whatever they hold, as a control file is: a hook or a program runs whatever it says.
  const strict = [...hooks.flatMap((h) => entriesOf(h).map((d) => path.join(h, d.name))), ...programs]
  return { hooks: c.hooks, folders: hooks, configs: c.configs, programs, files, strict, controls: c }
}

export interface Snapshot {
  readonly gitDirs: ReadonlyArray<string>
  readonly files: ReadonlyMap<string, State>
  /** The workspace's `.git` entries before the call (the root's, and every `.git` file): absent, a file, or other. */
  readonly dotGits?: ReadonlyMap<string, State>
}

/**
 * Files a call may leave only if they run nothing: a git folder's `config` (outside linked worktrees, where any is
 * put back) and its hooks. Was a hole (red team): bash made `sub/` a repository with `core.fsmonitor` in
 * `sub/.git/config` and `git add sub` (a gitlink); the user's next `git status` in the workspace ran the program on
 * the host, as git checks a submodule's status inside it. The workspace's own `.git/config` and `.git/hooks` are
 * read-only in the sandbox; a nested repository's, a submodule's (`.git/modules/*`) and one made by the call are not.
 */
const guardedIn = (dir: string): ReadonlyArray<string> => {
  const out = [path.join(dir, "config")]
  try {
    for (const d of entriesOf(path.join(dir, "hooks"))) if (!d.name.endsWith(".sample")) out.push(path.join(dir, "hooks", d.name))
  } catch {
    // The git folder went away.
  }
  return out
}

/** Whether this file, as it is now, could make git run a program: a hook, or a config naming one (or an include). */
const runsSomething = (file: string, state: State): boolean => {
  if (state.kind === "none") return false
  if (path.basename(path.dirname(file)) === "hooks") return true
  // A folder named `config` (in a folder the scan takes for a git folder, `src/config/`) is no config git reads.
  if (state.kind !== "file") return lstatOf(file)?.isDirectory() !== true
  const parsed = GitConfig.parse(state.content.toString("utf8"))
  return !parsed.ok || parsed.entries.some((e) => GitConfig.programReason(e) !== undefined || GitConfig.includePath(e) !== undefined)
}

/**
 * A linked worktree's own control files as `git worktree add` (or `move`, `repair`) writes them, which point git at
 * nothing new: its `commondir` naming the repository folder that holds it (`../..`), its `gitdir` naming a `.git`
 * file that points back at it. Kept, so a worktree made from bash works on the host; any other content is put back.
 */
const ownWorktreeFile = (file: string, state: State): boolean => {
  const dir = path.dirname(file)
  if (state.kind !== "file" || path.basename(path.dirname(dir)) !== "worktrees") return false
  const text = state.content.toString("utf8").trim()
  if (text === "" || text.includes("\n")) return false
  try {
    if (path.basename(file) === "commondir") return fs.realpathSync(path.resolve(dir, text)) === fs.realpathSync(path.dirname(path.dirname(dir)))
    if (path.basename(file) !== "gitdir") return false
    const dotGit = path.resolve(dir, text)
    if (path.basename(dotGit) !== ".git" || lstatOf(dotGit)?.isFile() !== true) return false
    const m = /^gitdir:\s*(.+?)\s*$/m.exec(fs.readFileSync(dotGit, "utf8").slice(0, 4096))
    return m !== null && m[1] !== undefined && fs.realpathSync(path.resolve(path.dirname(dotGit), m[1])) === fs.realpathSync(dir)
  } catch {
    return false
  }
}

export const snapshot = (gitDirs: ReadonlyArray<string>, dotGits: ReadonlyArray<string> = [], tree: ReadonlyArray<string> = []): Snapshot => {
  const files = new Map<string, State>()
  // Listed once for both passes: nothing between them changes the folders (a readdir of `worktrees` and `modules`
  // each, per git folder, which fails where there are none).
  const folders = foldersOf(gitDirs)
  for (const dir of folders) for (const n of namesIn(dir)) files.set(path.join(dir, n), stateOf(path.join(dir, n)))
  for (const dir of folders) for (const f of guardedIn(dir)) if (!files.has(f)) files.set(f, stateOf(f))
  for (const f of tree) if (!files.has(f)) files.set(f, stateOf(f))
  return { gitDirs, files, dotGits: new Map(dotGits.map((g) => [g, stateOf(g)])) }
}

/** The `.git` entries to record and check in `workspace`: its root's, and the `.git` files among the scan's pins. */
const dotGitsOf = (workspace: string, pins: ReadonlyArray<string>): ReadonlyArray<string> => [
  ...new Set([path.join(workspace, ".git"), ...pins.filter((p) => path.basename(p) === ".git" && lstatOf(p)?.isDirectory() === false)])
]

/**
 * A `.git` file or symlink that was there before the call, put back as it was. The sandbox pins a `.git` file (it
 * cannot be replaced) but its content stays writable, and a `.git` symlink is no mount point at all (bwrap mounts
 * onto what it leads to). Was a hole (issue 19): bash retargeted the workspace's `.git` symlink, or rewrote its
 * `gitdir:` line, to a repository it built; the user's next `git` followed it. Whatever stands there now (a folder
 * is moved aside, never deleted) gives way to the original. Whether it had to.
 */
const putBack = (g: string, was: Extract<State, { kind: "file" | "link" }>): boolean => {
  const now = stateOf(g)
  if (was.kind === "link" && now.kind === "link" && now.target === was.target) return false
  if (was.kind === "file" && now.kind === "file" && now.content.equals(was.content)) return false
  try {
    const st = lstatOf(g)
    if (st?.isDirectory() === true) fs.renameSync(g, `${g}.minicode-replaced-${process.pid}-${Date.now()}`)
    // Made beside it, then renamed over it: a planted `.git.minicode-restore` symlink is never written through.
    const tmp = `${g}.minicode-restore`
    fs.rmSync(tmp, { recursive: true, force: true })
    if (was.kind === "link") fs.symlinkSync(was.target, tmp)
    else fs.writeFileSync(tmp, was.content, { flag: "wx" })
    fs.renameSync(tmp, g)
    return true
  } catch {
    // Its folder went away.
    return false
  }
}

/**
 * Removes a `.git` the call made that leads git elsewhere: a symlink, or a `gitdir:` file that `expand` drops (its
 * folder outside the workspace, reached through a symlink, or no folder at all); puts back one that was there
 * (`putBack`). The paths fixed.
 */
const removePlanted = (workspace: string, snap: Snapshot, now: ReadonlyArray<string>): ReadonlyArray<string> => {
  const fixed: Array<string> = []
  const before = snap.dotGits
  // A record an older version wrote says nothing of them: none is taken for planted (a worktree's own `.git` file).
  if (before === undefined) return fixed
  for (const g of new Set([...before.keys(), ...now])) {
    const was = before.get(g) ?? { kind: "none" }
    if (was.kind === "file" || was.kind === "link") {
      if (putBack(g, was)) fixed.push(g)
      continue
    }
    if (was.kind !== "none") continue
    const st = lstatOf(g)
    if (st === undefined || st.isDirectory()) continue
    if (st.isFile() && expand(workspace, [g]).length > 0) continue
    try {
      fs.rmSync(g, { force: true })
      fixed.push(g)
    } catch {
      // Its folder went away.
    }
  }
  return fixed
}

/** Puts the control files back as the snapshot saw them; the paths it had to fix. */
export const restore = (snap: Snapshot, tree: { readonly hooks: ReadonlyArray<string>; readonly files: ReadonlyArray<string>; readonly strict: ReadonlyArray<string> } = { hooks: [], files: [], strict: [] }): ReadonlyArray<string> => {
  const fixed: Array<string> = []
  const folders = foldersOf(snap.gitDirs)
  const controls = new Set(folders.flatMap((dir) => namesIn(dir).map((n) => path.join(dir, n))))
  const guarded = [...folders.flatMap(guardedIn), ...tree.files]
  // A hook of the configured hooks folder is put back whatever it holds, as a control file is.
  const treeHooks = new Set(tree.hooks)
  const strict = new Set(tree.strict)
  // Whether each folder is reached without a symlink, asked once per folder (its files share it, and each ask is a
  // path walk, an lstat per component): no writable sandbox runs while this does (the last call has left), and the
  // only change the loop makes to a folder, removing a symlink on the way, is made where the answer was false.
  const real = new Map<string, boolean>()
  for (const file of new Set([...snap.files.keys(), ...controls, ...guarded])) {
    // A folder on the way replaced by a symlink (`.git/worktrees/wt2` -> elsewhere): never written through, removed.
    const dir = path.dirname(file)
    let isReal = real.get(dir)
    if (isReal === undefined) real.set(dir, (isReal = realFolder(dir)))
    if (!isReal) {
      if (lstatOf(dir)?.isSymbolicLink() === true) {
        fs.rmSync(dir, { force: true })
        fixed.push(dir)
      }
      continue
    }
    const before = snap.files.get(file) ?? { kind: "none" as const }
    const now = stateOf(file)
    if (before.kind === "other" || before.kind === "link") continue
    if (before.kind === "none" && now.kind === "none") continue
    if (before.kind === "file" && now.kind === "file" && now.content.equals(before.content)) continue
    // A config or hook changed by the call stays when it runs nothing (git init, git submodule add, git config user.name).
    if (!controls.has(file) && !treeHooks.has(dir) && !strict.has(file) && !runsSomething(file, now)) continue
    if (controls.has(file) && ownWorktreeFile(file, now)) continue
    try {
      if (now.kind !== "none") fs.rmSync(file, { recursive: true, force: true })
      // Made before the call (`precreate`) and read-only during it: nothing the call did.
      if (before.kind === "none" && now.kind === "file" && now.content.equals(Buffer.from(madeContent(path.basename(file)) ?? "\0"))) continue
      if (before.kind === "file") {
        // Created afresh (O_EXCL): a planted `config.minicode-restore` symlink is never written through.
        const tmp = `${file}.minicode-restore`
        fs.rmSync(tmp, { recursive: true, force: true })
        fs.writeFileSync(tmp, before.content, { flag: "wx" })
        fs.renameSync(tmp, file)
      }
      fixed.push(file)
    } catch {
      // The folder itself went away: nothing left for git to read there.
    }
  }
  return fixed
}

/**
 * The git folders, a `.git` file (`gitdir: …`, a submodule's or one bash wrote) standing for the folder it names
 * when that is a real folder inside the workspace (else dropped: nothing outside is touched).
 */
const expand = (workspace: string, gitDirs: ReadonlyArray<string>): ReadonlyArray<string> =>
  gitDirs.flatMap((g) => {
    const st = lstatOf(g)
    if (st === undefined || st.isDirectory()) return [g]
    if (!st.isFile()) return []
    try {
      const m = /^gitdir:\s*(.+?)\s*$/m.exec(fs.readFileSync(g, "utf8").slice(0, 4096))
      if (m === null || m[1] === undefined) return []
      const target = fs.realpathSync(path.resolve(path.dirname(g), m[1]))
      return fs.statSync(target).isDirectory() && target.startsWith(`${workspace}/`) ? [target] : []
    } catch {
      return []
    }
  })

/**
 * What is kept between `enter` and `leave`, for every process on the workspace (a one-shot CLI call while `mcp serve`
 * runs one, two serve sessions): the calls running, by owner, and the state recorded when none ran. Kept in the
 * workspace's private state folder, which no sandbox can write, under its lock.
 *
 * Was a hole (issue 19): the bookkeeping was per process, so a second process entering while another's sandboxed
 * call ran took that call's planted `.git/commondir` for the original, and put the plant back when it left.
 */
interface Shared {
  readonly calls: Array<SharedRecord.Call>
  readonly gitDirs: Array<string>
  readonly files: Array<readonly [string, { readonly kind: State["kind"]; readonly content?: string }]>
  /** Absent in a record an older version wrote. */
  readonly dotGits?: Array<readonly [string, { readonly kind: State["kind"]; readonly content?: string }]>
  /** What the configuration names and `TreeControlsMade` made for the calls (absent in a record an older version wrote). */
  readonly made?: Array<string>
}

const sharedFile = "gitcontrol.json"

const read = (dir: string, workspace: string): Shared | undefined => {
  try {
    const s = SharedRecord.read(dir, sharedFile) as Shared | undefined
    if (s === undefined) return undefined
    const inside = (p: string) => typeof p === "string" && p.startsWith(`${workspace}/`)
    return {
      calls: s.calls,
      gitDirs: s.gitDirs.filter(inside),
      files: s.files.filter(([f]) => inside(f)),
      ...(s.dotGits === undefined ? {} : { dotGits: s.dotGits.filter(([f]) => inside(f)) }),
      ...(Array.isArray(s.made) ? { made: s.made.filter(inside) } : {})
    }
  } catch {
    return undefined
  }
}

const write = (dir: string, shared: Shared): void => SharedRecord.write(dir, sharedFile, shared)

const encode = (files: ReadonlyMap<string, State>): Shared["files"] =>
  [...files].map(
    ([f, s]) =>
      [f, s.kind === "file" ? { kind: "file", content: s.content.toString("base64") } : s.kind === "link" ? { kind: "link", content: s.target } : { kind: s.kind }] as const
  )

const decodeState = (s: Shared["files"][number][1]): State =>
  s.kind === "file"
    ? { kind: "file", content: Buffer.from(s.content ?? "", "base64") }
    : s.kind === "link" && typeof s.content === "string"
      ? { kind: "link", target: s.content }
      : s.kind === "none"
        ? { kind: "none" }
        : { kind: "other" }

const decodeFiles = (files: Shared["files"]): Map<string, State> => new Map(files.map(([f, s]): [string, State] => [f, decodeState(s)]))

const decode = (shared: Shared): Snapshot => ({
  gitDirs: shared.gitDirs,
  files: decodeFiles(shared.files),
  ...(shared.dotGits === undefined ? {} : { dotGits: decodeFiles(shared.dotGits) })
})

/**
 * Puts back what the record holds: the control files, then the planted `.git` entries removed (`now`: those seen
 * now), then what was made for the calls removed where it is still empty.
 */
const restoreAll = (workspace: string, shared: Shared, now: ReadonlyArray<string>) => {
  const snap = decode(shared)
  const fixed = [...restore(snap, treeOf(workspace, snap.gitDirs, [...(snap.dotGits?.keys() ?? []), ...now])), ...removePlanted(workspace, snap, now)]
  TreeControlsMade.unmake(workspace, shared.made ?? [])
  return fixed
}


/** What `precreate` writes in a control file of this name. */
const madeContent = (name: string): string | undefined => (name === "commondir" ? ".\n" : name === "config.worktree" ? "" : undefined)

/** Whether the configuration in `dir` (a common git folder) turns on `extensions.worktreeConfig`. */
const worktreeConfigOn = (dir: string): boolean => {
  try {
    const parsed = GitConfig.parse(fs.readFileSync(path.join(dir, "config"), "utf8"))
    return parsed.ok && parsed.entries.some((e) => e.section === "extensions" && e.name === "worktreeconfig" && (e.value === undefined || /^(true|yes|on|1)$/i.test(e.value.trim())))
  } catch {
    return false
  }
}

/** The folder whose `config` git reads for `dir`: the one its `commondir` names, else `dir` itself. */
const commonOf = (dir: string): string => {
  const now = stateOf(path.join(dir, "commondir"))
  return now.kind === "file" && now.content.toString("utf8").trim() !== "" ? path.resolve(dir, now.content.toString("utf8").trim()) : dir
}

/**
 * Before a writable call, the control files a planted one would take the place of, made where there are none, so
 * the sandbox can show them read-only (bwrap binds only onto a file that exists): a `commondir` holding `.` (git
 * takes the folder itself for its common folder, as with none), and an empty `config.worktree` where the
 * configuration reads one. They were absent in the record, so the last overlapping call removes them (`restore`).
 * Was a hole (issue 19, red team): restoring only when the call ended left a planted `commondir` → `../evil` live
 * meanwhile; the user's `git status` on the host during a long call ran the planted `core.fsmonitor`. Created
 * afresh (O_EXCL): a planted symlink is never written through.
 */
const precreate = (gitDirs: ReadonlyArray<string>): void => {
  for (const dir of foldersOf(gitDirs)) {
    const make = (name: string, content: string) => {
      if (lstatOf(path.join(dir, name)) !== undefined) return
      try {
        beneath(path.join(dir, name), (file) => fs.writeFileSync(file, content, { flag: "wx" }))
      } catch {
        // Not ours to write, made meanwhile, or its folder is no longer where it was.
      }
    }
    make("commondir", madeContent("commondir") ?? "")
    if (worktreeConfigOn(commonOf(dir))) make("config.worktree", madeContent("config.worktree") ?? "")
  }
}

/**
 * What a writable sandbox shows read-only for the call, in each git folder `pins` lead to: its `commondir` and
 * `config.worktree` (regular files; `precreate` made them where there were none), and its `hooks` folder, masked
 * (a linked worktree's folder has none of its own: git runs the common folder's). A planted hook would run on the
 * user's `git commit` on the host while the call runs.
 */
/**
 * The symlinks inside the workspace on the way to what the configuration names (`core.hooksPath = hooks` with
 * `hooks -> realhooks`, an `include.path` or a program that is a symlink): a writable call can retarget one, and no
 * mount can pin a symlink (bwrap mounts onto where it leads), so what it then leads to would be live for the user's
 * own git on the host until the call ends. Was a hole (red team 8): bash ran `ln -sfn evil hooks` with a planted
 * `evil/pre-commit`; the user's `git commit` during the call ran it.
 */
const linksOnTheWay = (workspace: string, controls: ReadonlyArray<string>): ReadonlyArray<string> => {
  const out = new Set<string>()
  for (const c of controls) {
    if (!c.startsWith(`${workspace}/`)) continue
    for (let at = c; at !== workspace && at.startsWith(`${workspace}/`); at = path.dirname(at)) {
      if (lstatOf(at)?.isSymbolicLink() === true) out.add(at)
    }
  }
  return [...out]
}

export const liveControls = (
  workspace: string,
  pins: ReadonlyArray<string>
): { readonly files: ReadonlyArray<string>; readonly hooks: ReadonlyArray<string>; readonly programs: ReadonlyArray<string>; readonly links: ReadonlyArray<string> } => {
  const tree = treeOf(workspace, expand(workspace, pins), dotGitsOf(workspace, pins))
  const links = linksOnTheWay(workspace, [...tree.controls.hooks, ...tree.controls.configs, ...tree.controls.programs])
  // The configured hooks folders masked, the included config files read-only, as `.git`'s own are.
  const files: Array<string> = tree.configs.filter((f) => realFolder(path.dirname(f)) && lstatOf(f)?.isFile() === true)
  const hooks: Array<string> = [...tree.folders]
  const programs = [
    ...tree.programs.filter((f) => lstatOf(f)?.isFile() === true),
    ...TreeControlsMade.blockers(workspace, tree.controls)
  ]
  for (const dir of foldersOf(expand(workspace, pins))) {
    if (!realFolder(dir)) continue
    for (const n of ["commondir", "config.worktree"]) if (lstatOf(path.join(dir, n))?.isFile() === true) files.push(path.join(dir, n))
    if (path.basename(path.dirname(dir)) === "worktrees") continue
    const h = lstatOf(path.join(dir, "hooks"))
    // An absent one is made empty by bwrap (a mount point) only where git itself keeps one.
    if (h?.isDirectory() === true || (h === undefined && (path.basename(dir) === ".git" || path.basename(path.dirname(dir)) === "modules"))) hooks.push(path.join(dir, "hooks"))
  }
  return { files, hooks, programs, links }
}

let calls = 0

/**
 * A writable call in `workspace` begins: its git folders' control files are recorded unless a call already runs,
 * in this process or another. A call left by a dead process (killed) does not count: when no live call remains,
 * what it recorded is put back first. Its id, for `leave`. Throws when the state folder cannot be used.
 */
export const enter = (workspace: string, pins: ReadonlyArray<string>): string => {
  const dir = StateLock.stateFolder(workspace)
  const id = `${process.pid}-${++calls}`
  StateLock.withLock(dir, "gitcontrol", () => {
    const gitDirs = expand(workspace, pins)
    const known = read(dir, workspace)
    const live = SharedRecord.live(known?.calls ?? [])
    const call = { owner: StateLock.self, id }
    const dotGits = dotGitsOf(workspace, pins)
    if (known !== undefined && live.length > 0) {
      const made = [...(known.made ?? []), ...TreeControlsMade.make(workspace, treeOf(workspace, gitDirs, dotGits).controls)]
      write(dir, { calls: [...live, call], gitDirs: [...new Set([...known.gitDirs, ...gitDirs])], files: known.files, ...(known.dotGits === undefined ? {} : { dotGits: known.dotGits }), made })
      // A git folder first seen now has no record: what is made in it is taken to have been absent, as it was.
      precreate(gitDirs)
      return
    }
    if (known !== undefined) restoreAll(workspace, known, dotGits)
    // Made before the record: the record holds them as made (empty), so the end of the call finds nothing changed.
    // One read of the configuration for both: what is made is empty, so the files to record are the same after it.
    const tree = treeOf(workspace, gitDirs, dotGits)
    const made = TreeControlsMade.make(workspace, tree.controls)
    const snap = snapshot(gitDirs, dotGits, tree.files)
    write(dir, { calls: [call], gitDirs: [...gitDirs], files: encode(snap.files), dotGits: encode(snap.dotGits ?? new Map()), made: [...made] })
    precreate(gitDirs)
  })
  return id
}

/** Whether a writable sandboxed call other than `own` runs in the workspace now, in any process. */
export const othersRunning = (workspace: string, own: string | undefined): boolean => {
  try {
    const known = read(StateLock.stateFolder(workspace), workspace)
    return SharedRecord.live(known?.calls ?? [], own).length > 0
  } catch {
    // Unknown: nothing new is taken for a call's (the stricter answer: a new object may make the store hidden).
    return false
  }
}

/**
 * A writable call ends: the last one (of every process) puts the recorded state back; the paths fixed. `gitDirsNow`:
 * the git folders the workspace holds now (a repository the call made is looked at too).
 */
export const leave = (workspace: string, id: string, gitDirsNow: ReadonlyArray<string> = []): ReadonlyArray<string> => {
  const dir = StateLock.stateFolder(workspace)
  return StateLock.withLock(dir, "gitcontrol", () => {
    const known = read(dir, workspace)
    if (known === undefined) return []
    const gitDirs = [...new Set([...known.gitDirs, ...expand(workspace, gitDirsNow)])]
    const live = SharedRecord.live(known.calls, id)
    if (live.length > 0) {
      write(dir, { calls: live, gitDirs, files: known.files, ...(known.dotGits === undefined ? {} : { dotGits: known.dotGits }), ...(known.made === undefined ? {} : { made: known.made }) })
      return []
    }
    const fixed = restoreAll(workspace, { ...known, gitDirs }, dotGitsOf(workspace, gitDirsNow))
    StateLock.removeFile(path.join(dir, sharedFile))
    return fixed
  })
}
