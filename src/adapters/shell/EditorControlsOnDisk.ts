/**
 * The files that the user's editor or agent runs commands from (`domain/files/EditorControls`: `.claude/settings.json`,
 * `.vscode/tasks.json`, `.mcp.json`, `mise.toml`…), at the top of the workspace and below it (the scan's `control`
 * hits), for writable sandboxed calls: those that exist are shown read-only for the call, and when a call ends every
 * one that runs something and is not what it was before any writable call ran is put back (a planted one removed),
 * as is a symlink made or retargeted at a control's name or at a control folder's name.
 *
 * Was a hole (issue 19, red team): sandboxed bash wrote `.claude/settings.json` with a `PreToolUse` hook; the user's
 * next start of Claude Code in the folder ran it outside any sandbox. Below the top, the workspace scan finds them:
 * was a hole too (`packages/web/.vscode/tasks.json` with a `folderOpen` task).
 *
 * One record for every overlapping writable call, in any process (`editorcontrols.json` in the state folder outside
 * the workspace, `StateHome`, under a lock, as
 * `GitControl`'s): what each control was when no writable call ran. Was a hole (red team 8): each call compared with
 * what it saw itself when it started, so a control present at a call's start was never looked at again. A
 * delete_file of `.vscode/tasks.json` while a bash call ran detached its read-only bind; the call wrote a
 * `folderOpen` task there, and it stayed. Likewise one call's plant seen by a second call that started meanwhile,
 * removed by the first and written again by the second.
 *
 * A control folder may be a symlink into the workspace (`.vscode -> config/vscode`, committed), and a control file
 * too (`.vscode/tasks.json -> ../cfg/tasks.json`): the editor follows it, so the file it reaches is the control, shown
 * read-only and put back like one. Was a hole (red team 8): with `.claude -> tools/claude`, bash wrote
 * `tools/claude/settings.json` with a hook, and it stayed.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import * as EditorControls from "../../domain/files/EditorControls.js"
import { beneath } from "../fs/Beneath.js"
import * as SharedRecord from "../fs/SharedRecord.js"
import * as StateLock from "../fs/StateLock.js"

const fixed = [
  ".claude/settings.json", ".claude/settings.local.json", ".vscode/tasks.json", ".vscode/settings.json", ".vscode/mcp.json",
  ".cursor/mcp.json", ".cursor/hooks.json", ".roo/mcp.json", ".amazonq/mcp.json", ".kiro/settings/mcp.json", ".gemini/settings.json", ".opencode/opencode.json", ".opencode/opencode.jsonc",
  ".devcontainer/devcontainer.json", ".config/mise.toml", ".config/mise/config.toml", ".mise/config.toml", "mise/config.toml"
]

/** The folders on the way: a symlink the call makes there (`.vscode -> cfg`) would lead a later write of `cfg/tasks.json` into place. */
const folders = [".claude", ".vscode", ".cursor", ".gemini", ".opencode", ".roo", ".amazonq", ".kiro", ".kiro/settings", ".devcontainer", ".config", ".config/mise", ".mise", "mise"]

/** A control bigger than this is not kept for putting back (editors' settings are a few KiB): taken as unreadable. */
const maxBytes = 1024 * 1024
/** How deep below a symlinked control folder its controls are looked for (`.kiro -> x`: `settings/mcp.json`). */
const linkedDepth = 3

const lstat = (p: string): fs.Stats | undefined => {
  try {
    return fs.lstatSync(p, { throwIfNoEntry: false })
  } catch {
    return undefined
  }
}

const inside = (workspace: string, p: string) => p.startsWith(`${workspace}/`)

/**
 * Whether `p` is a control folder's name (a regular file there is judged as the control it is: below `.husky/` or
 * `.lefthook/` every name is a folder's, `pre-commit/x.sh`, and a file's, `pre-commit`).
 */
const isFolderName = (workspace: string, p: string): boolean =>
  (folders.includes(path.relative(workspace, p)) || EditorControls.isControlFolder(path.relative(workspace, p))) && lstat(p)?.isFile() !== true

/** The workspace-relative control paths to look at: the fixed ones and the top's own (`.mcp.json`, `mise.*.toml`, `*.code-workspace`). */
const candidates = (workspace: string): ReadonlyArray<string> => {
  let top: ReadonlyArray<string> = []
  try {
    top = fs.readdirSync(workspace).filter((n) => EditorControls.kindOf(n) !== undefined)
  } catch {
    // An unlistable top: the fixed names only.
  }
  return [...new Set([...fixed, ...top])]
}

/** Where `p` really is, when that is inside the workspace (symlinks on the way and at its end followed); else undefined. */
const realOf = (workspace: string, p: string): string | undefined => {
  try {
    const real = fs.realpathSync.native(p)
    return inside(workspace, real) ? real : undefined
  } catch {
    return undefined
  }
}

/**
 * The control files below a control folder that is a symlink (`.vscode -> config/vscode`), by the names the editor
 * reads them by (`.vscode/tasks.json`): the scan never enters a symlink, so it finds them as `config/vscode/…`.
 */
const throughLink = (workspace: string, folder: string): ReadonlyArray<string> => {
  if (lstat(folder)?.isSymbolicLink() !== true) return []
  const real = realOf(workspace, folder)
  if (real === undefined) return []
  const out: Array<string> = []
  const walk = (dir: string, shown: string, depth: number) => {
    let list: Array<fs.Dirent>
    try {
      list = fs.readdirSync(dir, { withFileTypes: true })
    } catch {
      return
    }
    for (const d of list) {
      const name = path.join(shown, d.name)
      if (d.isDirectory() && depth < linkedDepth) walk(path.join(dir, d.name), name, depth + 1)
      else if (EditorControls.kindOf(path.relative(workspace, name)) !== undefined) out.push(name)
    }
  }
  walk(real, folder, 1)
  return out
}

/** Every control name to look at now (absolute): the fixed and top ones, the folders on the way, `more`, and what symlinked folders hold. */
const namesNow = (workspace: string, more: ReadonlyArray<string>): ReadonlyArray<string> => {
  const names = new Set([...folders, ...candidates(workspace)].map((rel) => path.join(workspace, rel)))
  for (const p of more) if (inside(workspace, p)) names.add(p)
  for (const p of [...names]) if (isFolderName(workspace, p)) for (const f of throughLink(workspace, p)) names.add(f)
  return [...names]
}

/** What stands at a control's name: its own kind (a symlink's target), and the content of the file it leads to. */
interface State {
  readonly t: "none" | "dir" | "file" | "link" | "other"
  readonly link?: string
  /** base64 of the file the name leads to inside the workspace (following a symlink), when one is there and readable. */
  readonly content?: string
}

const none: State = { t: "none" }

/** The content of the regular file at `real` (inside the workspace, no symlink on the way), or undefined. */
const contentAt = (real: string): Buffer | undefined => {
  try {
    const st = lstat(real)
    if (st === undefined || !st.isFile() || st.size > maxBytes) return undefined
    return beneath(real, (at) => {
      const fd = fs.openSync(at, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW)
      try {
        return fs.readFileSync(fd)
      } finally {
        fs.closeSync(fd)
      }
    })
  } catch {
    return undefined
  }
}

const stateOf = (workspace: string, p: string): State => {
  const st = lstat(p)
  if (st === undefined) return none
  if (st.isDirectory()) return { t: "dir" }
  let link: string | undefined
  if (st.isSymbolicLink()) {
    try {
      link = fs.readlinkSync(p)
    } catch {
      return { t: "other" }
    }
  } else if (!st.isFile()) return { t: "other" }
  const real = realOf(workspace, p)
  const content = real === undefined ? undefined : contentAt(real)
  return { t: link === undefined ? "file" : "link", ...(link === undefined ? {} : { link }), ...(content === undefined ? {} : { content: content.toString("base64") }) }
}

/**
 * Those of `names` that lead to a regular file inside the workspace, as the real paths a writable sandbox shows
 * read-only (a copy bound over each: a symlinked folder's file is bound where it really is).
 */
const readOnly = (workspace: string, names: ReadonlyArray<string>): ReadonlyArray<string> => {
  const out = new Set<string>()
  for (const p of names) {
    if (isFolderName(workspace, p)) continue
    const kind = EditorControls.kindOf(path.relative(workspace, p))
    if (kind !== undefined && !EditorControls.shownReadOnly(kind)) continue
    const real = realOf(workspace, p)
    if (real !== undefined && lstat(real)?.isFile() === true) out.add(real)
  }
  return [...out]
}

/**
 * Puts one control name back where it is not what `was` says and now runs something (or is a symlink made or
 * retargeted there); true when it did. Through folders opened without following a symlink: nothing outside the
 * workspace is made or removed.
 */
const putBack = (workspace: string, p: string, was: State): boolean => {
  const st = lstat(p)
  if (st === undefined) return false
  const sameLink = () => was.t === "link" && was.link === fs.readlinkSync(p)
  if (st.isSymbolicLink() && !sameLink()) {
    beneath(p, (at) => fs.unlinkSync(at))
    return true
  }
  if (isFolderName(workspace, p)) return false
  const kind = EditorControls.kindOf(path.relative(workspace, p))
  const real = realOf(workspace, p)
  if (kind === undefined || real === undefined) return false
  const now = contentAt(real)
  if (now !== undefined && was.content !== undefined && now.equals(Buffer.from(was.content, "base64"))) return false
  const target = lstat(real)
  if (target === undefined || target.isDirectory()) return false
  const runs = now === undefined || !target.isFile() || target.nlink > 1 || (() => {
    const found = EditorControls.runnersOf(kind, now.toString("utf8"))
    if (!found.ok) return true
    // A control the sandbox lets the call write (`package.json`): put back only when what runs changed (a hook key),
    // not for a dependency `npm install` added.
    if (EditorControls.shownReadOnly(kind)) return found.runners.length > 0
    const before = was.content === undefined ? undefined : EditorControls.runnersOf(kind, Buffer.from(was.content, "base64").toString("utf8"))
    const known = new Set(before?.ok === true ? before.runners.map((r) => `${r.key}\u0000${r.value}`) : [])
    return found.runners.some((r) => !known.has(`${r.key}\u0000${r.value}`))
  })()
  if (!runs) return false
  if (was.content === undefined) {
    beneath(real, (at) => fs.unlinkSync(at))
    return true
  }
  // Created afresh beside it, then renamed over it: a planted `….minicode-restore` symlink is never written through.
  beneath(real, (at) => {
    const tmp = `${at}.minicode-restore`
    StateLock.removeFile(tmp)
    fs.writeFileSync(tmp, Buffer.from(was.content ?? "", "base64"), { flag: "wx", mode: target.mode & 0o777 })
    fs.renameSync(tmp, at)
  })
  return true
}

interface Shared {
  readonly calls: Array<SharedRecord.Call>
  readonly states: Array<readonly [string, State]>
}

const sharedFile = "editorcontrols.json"

const read = (dir: string, workspace: string): Shared | undefined => {
  const s = SharedRecord.read(dir, sharedFile) as Partial<Shared> | undefined
  if (s === undefined || s === null || !Array.isArray(s.calls) || !Array.isArray(s.states)) return undefined
  return { calls: s.calls, states: s.states.filter(([p]) => typeof p === "string" && inside(workspace, p)) }
}

const write = (dir: string, shared: Shared): void => SharedRecord.write(dir, sharedFile, shared)

let calls = 0

/**
 * A writable call begins: the controls are recorded unless a writable call already runs (in any process); one first
 * seen while calls run is taken to have been absent. `found`: the controls the scan found (absolute paths). Its id,
 * for `leave`, and the files to show read-only. Throws when the state folder cannot be used.
 */
export const enter = (workspace: string, found: ReadonlyArray<string>): { readonly id: string; readonly files: ReadonlyArray<string> } => {
  const dir = StateLock.stateFolder(workspace)
  const id = `${process.pid}-e${++calls}`
  const names = namesNow(workspace, found)
  StateLock.withLock(dir, "editorcontrols", () => {
    const known = read(dir, workspace)
    const live = SharedRecord.live(known?.calls ?? [])
    const call = { owner: StateLock.self, id }
    if (known !== undefined && live.length > 0) {
      const states = new Map(known.states)
      for (const p of names) if (!states.has(p)) states.set(p, none)
      write(dir, { calls: [...live, call], states: [...states] })
      return
    }
    // A record left by a killed process: what it held is put back first.
    if (known !== undefined) restoreAll(workspace, new Map(known.states), names)
    write(dir, { calls: [call], states: names.map((p) => [p, stateOf(workspace, p)] as const) })
  })
  return { id, files: readOnly(workspace, names) }
}

const restoreAll = (workspace: string, states: ReadonlyMap<string, State>, more: ReadonlyArray<string>): ReadonlyArray<string> => {
  const fixedUp: Array<string> = []
  // Folders first (a symlink planted at `.vscode` goes before what it led to is judged), shallow before deep.
  const names = [...new Set([...states.keys(), ...namesNow(workspace, more)])].sort((a, b) => Number(isFolderName(workspace, b)) - Number(isFolderName(workspace, a)) || a.length - b.length)
  for (const p of names) {
    try {
      if (putBack(workspace, p, states.get(p) ?? none)) fixedUp.push(p)
    } catch {
      // Its folder moved (a symlink on the way): nothing outside the workspace is made or removed.
    }
  }
  return fixedUp
}

/**
 * A writable call ends: every control that runs something and differs from the record is put back (a plant removed),
 * whichever call made it; the last call drops the record. `found`: the controls the scan finds now. The paths fixed.
 */
export const leave = (workspace: string, id: string, found: ReadonlyArray<string> = []): ReadonlyArray<string> => {
  const dir = StateLock.stateFolder(workspace)
  return StateLock.withLock(dir, "editorcontrols", () => {
    const known = read(dir, workspace)
    // No record (removed by hand): nothing to compare with, so nothing is taken for planted.
    if (known === undefined) return []
    const states = new Map(known.states)
    const fixedUp = restoreAll(workspace, states, found)
    const live = SharedRecord.live(known.calls, id)
    if (live.length > 0) write(dir, { calls: live, states: [...states] })
    else StateLock.removeFile(path.join(dir, sharedFile))
    return fixedUp
  })
}
