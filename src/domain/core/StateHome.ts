/**
 * Where minicode keeps the records and caches that decide what it does for a workspace (the git and editor controls
 * a writable call recorded, the scan cache, the store check's state, the exposed list): outside the workspace, in a
 * folder no tool and no sandboxed program can write, `$XDG_STATE_HOME/minicode/<id>` (else
 * `~/.local/state/minicode/<id>`, else `$XDG_RUNTIME_DIR/minicode/state/<id>`), `<id>` from the device, inode and
 * birth of the canonical workspace root and its path. Was a hole (issue 41): the records lived in the workspace's
 * `.minicode/`; a workspace script made `sub/.minicode/gitcontrol.json` saying a killed call had left
 * `sub/.git/commondir` = `../evil`, and the next writable call of a session rooted at `sub` "restored" it (the
 * user's `git status` then ran a planted `core.fsmonitor` on the host); a cloned repository committing such a record
 * did the same at its first bash call. A workspace's `.minicode/` now holds only what the user owns there (the
 * local config, the journal); a record found in any `.minicode/` is data, never read.
 *
 * Pure: the places in order, and the rule that a place inside the workspace (or holding it) is never used.
 */
import * as P from "../jail/PosixPath.js"

export interface Env {
  readonly XDG_STATE_HOME?: string | undefined
  readonly XDG_RUNTIME_DIR?: string | undefined
}

/**
 * The folders that may hold minicode's state folders (`…/minicode`), best first: `$XDG_STATE_HOME` (absolute only, as
 * the XDG spec says), the home's `.local/state`, `$XDG_RUNTIME_DIR` (a private per-user folder, used when the others
 * lie inside the workspace: a workspace that is the home folder or holds it).
 */
export const candidates = (env: Env, home: string | undefined): ReadonlyArray<string> => {
  const abs = (p: string | undefined) => (p !== undefined && p.startsWith("/") ? P.resolve("/", p) : undefined)
  const xdg = abs(env.XDG_STATE_HOME)
  const h = abs(home)
  const runtime = abs(env.XDG_RUNTIME_DIR)
  return [
    ...(xdg === undefined ? [] : [P.join(xdg, "minicode")]),
    ...(h === undefined || h === "/" ? [] : [P.join(h, ".local", "state", "minicode")]),
    ...(runtime === undefined ? [] : [P.join(runtime, "minicode", "state")])
  ]
}

/**
 * Whether the state root `resolved` (canonical, links on the way resolved) may hold the records of the workspace
 * `workspace` (canonical): not inside it (a tool or a sandboxed program could write it there) and not the filesystem
 * root or the workspace itself.
 */
export const usable = (workspace: string, resolved: string): boolean =>
  resolved !== "/" && !P.isInside(workspace, resolved) && !P.isInside(resolved, workspace)

/** A readable, safe folder name: the workspace's last segment (letters, digits, `._-`, at most 40, not led by `.` or `-`), `-`, `hash`. */
export const folderName = (workspace: string, hash: string): string => {
  const base = P.basename(workspace).replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 40).replace(/^[.-]+/, "_")
  return `${base === "" ? "root" : base}-${hash}`
}

/** What the id is a hash of: a workspace folder replaced (even at the same path, even with its inode reused) gets another. */
export const idSource = (workspace: string, dev: string, ino: string, birth: string): string => `minicode-state/1\0${dev}\0${ino}\0${birth}\0${workspace}`
