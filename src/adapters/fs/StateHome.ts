/**
 * A workspace's state folder outside it (`domain/core/StateHome`): `$XDG_STATE_HOME/minicode/<id>`, else
 * `~/.local/state/minicode/<id>`, else `$XDG_RUNTIME_DIR/minicode/state/<id>`; the first whose place, links on the way
 * resolved, is not inside the workspace. `<id>` is the workspace root's last name and a hash of its device, inode,
 * birth time and canonical path: every process on one workspace (two `mcp serve`, a CLI call beside them) finds the
 * same folder. The `minicode` folder and `<id>` are made 0700, checked to be real folders of ours (never a symlink),
 * and `<id>` is never inside the workspace: no tool reaches it (the jail keeps tools in the workspace) and the sandbox
 * never binds it (`hidden`: masked where a bound folder holds it).
 */
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as StateHome from "../../domain/core/StateHome.js"

const uid = process.getuid?.()

const lstat = (p: string) => {
  try {
    return fs.lstatSync(p, { throwIfNoEntry: false })
  } catch {
    return undefined
  }
}

/** `p` with the links of its longest existing part resolved (the rest appended as written). */
const resolvedPrefix = (p: string): string => {
  const rest: Array<string> = []
  for (let at = p; ; at = path.dirname(at)) {
    try {
      return path.join(fs.realpathSync(at), ...rest)
    } catch {
      if (at === path.dirname(at)) return p
      rest.unshift(path.basename(at))
    }
  }
}

const home = (): string | undefined => {
  try {
    return os.homedir()
  } catch {
    return undefined
  }
}

/** The canonical workspace root and its id; undefined when it cannot be found (gone). */
const identify = (workspace: string): { readonly real: string; readonly id: string } | undefined => {
  try {
    const real = fs.realpathSync(workspace)
    const st = fs.statSync(real, { bigint: true })
    const hash = createHash("sha256").update(StateHome.idSource(real, String(st.dev), String(st.ino), String(st.birthtimeNs))).digest("hex").slice(0, 20)
    return { real, id: StateHome.folderName(real, hash) }
  } catch {
    return undefined
  }
}

/** The state root (`…/minicode`) for `workspace` (canonical), as a path with its links resolved; undefined when none is usable. */
export const rootFor = (workspace: string, env: NodeJS.ProcessEnv = process.env): string | undefined => {
  for (const c of StateHome.candidates(env, home())) {
    const resolved = resolvedPrefix(c)
    if (StateHome.usable(workspace, resolved)) return resolved
  }
  return undefined
}

/**
 * `locate`'s answers per workspace path, with what they rest on: the folder the path names (canonical path, device,
 * inode, birth) and the environment's places. A server asks for every call (the alias targets, the exposed list):
 * recomputed, it cost a realpath and a stat per candidate place and a sha256 each time, twice per read_file.
 */
const located = new Map<string, { readonly basis: string; readonly dir: string | undefined }>()

const basisOf = (workspace: string): string | undefined => {
  try {
    const real = fs.realpathSync.native(workspace)
    const st = fs.statSync(real, { bigint: true })
    return [real, st.dev, st.ino, st.birthtimeNs, process.env["XDG_STATE_HOME"], process.env["XDG_RUNTIME_DIR"], process.env["HOME"]].join("\0")
  } catch {
    return undefined
  }
}

/** Where `workspace`'s state folder is (made or not); undefined when no place is usable or the workspace is gone. */
export const locate = (workspace: string): string | undefined => {
  const basis = basisOf(workspace)
  if (basis === undefined) return undefined
  const known = located.get(workspace)
  if (known?.basis === basis) return known.dir
  const w = identify(workspace)
  const root = w === undefined ? undefined : rootFor(w.real)
  const dir = w === undefined || root === undefined ? undefined : path.join(root, w.id)
  if (located.size > 64) located.clear()
  located.set(workspace, { basis, dir })
  return dir
}

const ours = (p: string): boolean => {
  const st = lstat(p)
  return st !== undefined && st.isDirectory() && (uid === undefined || st.uid === uid)
}

/** The state folder when it exists and is a real private folder of ours; undefined otherwise (nothing is made). */
export const existing = (workspace: string): string | undefined => {
  const dir = locate(workspace)
  if (dir === undefined || !ours(dir) || !ours(path.dirname(dir))) return undefined
  return (lstat(dir)!.mode & 0o077) === 0 ? dir : undefined
}

/** `name` in the state folder when that exists as a folder of ours; undefined otherwise. */
export const fileIn = (workspace: string, name: string): string | undefined => {
  const dir = existing(workspace)
  return dir === undefined ? undefined : path.join(dir, name)
}

/**
 * The state folder, made (0700) if missing; throws a readable error when there is no usable place, or the place is
 * not a real folder of ours (a symlink, another user's).
 */
export const folder = (workspace: string): string => {
  const dir = locate(workspace)
  if (dir === undefined) {
    throw new Error(
      `minicode has no place for ${workspace}'s state outside it: set XDG_STATE_HOME to a folder outside the workspace (its records are never kept inside it)`
    )
  }
  const root = path.dirname(dir)
  if (lstat(root) === undefined) fs.mkdirSync(root, { recursive: true, mode: 0o700 })
  if (!ours(root)) throw new Error(`${root} is not a real folder of minicode's (a symlink, or another user's): remove it`)
  try {
    fs.mkdirSync(dir, { mode: 0o700 })
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e
  }
  const st = lstat(dir)
  if (st === undefined || !ours(dir)) throw new Error(`${dir} is not a real folder of minicode's (a symlink, or another user's): remove it`)
  if ((st.mode & 0o077) !== 0) fs.chmodSync(dir, 0o700)
  return dir
}

/**
 * Host folders the sandbox must never show: the state root of `workspace`, when it exists (bwrap can mask only what
 * is there). The sandbox shows neither the home (an empty tmpfs) nor /tmp nor /run; this covers a state place under
 * a folder it does bind (a toolchain folder, `/opt`).
 */
export const hidden = (workspace: string): ReadonlyArray<string> => {
  const dir = locate(workspace)
  const root = dir === undefined ? undefined : path.dirname(dir)
  return root !== undefined && lstat(root)?.isDirectory() === true ? [root] : []
}
