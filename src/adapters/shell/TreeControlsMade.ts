/**
 * What the repository's configuration names in the tree but is not there yet (`domain/git/TreeControls`: a
 * `core.hooksPath` folder, an included config file, a program `core.fsmonitor` names by a path), made before a
 * writable call so the sandbox can show it read-only for the whole call (bwrap mounts only onto what exists), and
 * removed when the last overlapping call ends if it is still as made: empty.
 *
 * Was a hole (issue 19): with `core.hooksPath = .githooks` and no such folder, sandboxed bash made
 * `.githooks/pre-commit` and kept running (`sleep`); the user's `git commit` on the host meanwhile ran it, outside
 * any sandbox. The end of the call removed it, too late. Now the folder exists, empty and read-only in the
 * sandbox, with every folder on its way pinned (a mount point cannot be renamed), from before the call starts.
 *
 * Each path is made through its folder opened without following a symlink (`Beneath`): nothing outside the
 * workspace is made. A non-folder on the way (a file where `tools/` of `tools/hooks` should be) stops it: git
 * finds no hooks there either, and the file is shown read-only for the call (`blockers`).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import type * as TreeControls from "../../domain/git/TreeControls.js"
import { beneath } from "../fs/Beneath.js"

const inside = (root: string, p: string) => p.startsWith(`${root}/`)

/** What is at `p`: absent (a file on the way, ENOTDIR, too), a folder, or something else. */
const kindOf = (p: string): "none" | "directory" | "other" => {
  try {
    const st = fs.lstatSync(p, { throwIfNoEntry: false })
    return st === undefined ? "none" : st.isDirectory() ? "directory" : "other"
  } catch (cause) {
    return typeof cause === "object" && cause !== null && "code" in cause && cause.code === "ENOTDIR" ? "none" : "other"
  }
}

/** Makes what `controls` names inside `workspace` and is absent; the paths made, parents before children. */
export const make = (workspace: string, controls: TreeControls.TreeControls): ReadonlyArray<string> => {
  const made: Array<string> = []
  const folder = (dir: string): boolean => {
    if (dir === workspace) return true
    if (!inside(workspace, dir)) return false
    const kind = kindOf(dir)
    if (kind !== "none") return kind === "directory"
    if (!folder(path.dirname(dir))) return false
    try {
      beneath(dir, (p) => fs.mkdirSync(p))
      made.push(dir)
      return true
    } catch {
      // Made meanwhile, or its folder is no longer where it was.
      return false
    }
  }
  for (const hooks of controls.hooks) folder(hooks)
  for (const file of [...controls.configs, ...controls.programs]) {
    if (!inside(workspace, file) || kindOf(file) !== "none" || !folder(path.dirname(file))) continue
    try {
      // Empty: an empty include is no setting, an empty program file is not executable (mode 0644), as none was.
      beneath(file, (p) => fs.writeFileSync(p, "", { flag: "wx", mode: 0o644 }))
      made.push(file)
    } catch {
      // Made meanwhile, or its folder is no longer where it was.
    }
  }
  return made
}

/**
 * The regular files standing where a folder on the way to an absent control would be (`tools` of `tools/hooks`):
 * shown read-only for the call (a mount point cannot be removed), so bash cannot swap one for a folder and plant.
 */
export const blockers = (workspace: string, controls: TreeControls.TreeControls): ReadonlyArray<string> => {
  const out = new Set<string>()
  for (const c of [...controls.hooks, ...controls.configs, ...controls.programs]) {
    if (!inside(workspace, c) || kindOf(c) !== "none") continue
    let dir = path.dirname(c)
    while (dir !== workspace && inside(workspace, dir) && kindOf(dir) === "none") dir = path.dirname(dir)
    if (dir === workspace || !inside(workspace, dir)) continue
    try {
      if (fs.lstatSync(dir).isFile()) out.add(dir)
    } catch {
      // Gone meanwhile.
    }
  }
  return [...out]
}

/** Removes what `make` made that is still as made (an empty file, an empty folder), children before parents. */
export const unmake = (workspace: string, made: ReadonlyArray<string>): void => {
  for (const p of [...made].reverse()) {
    if (!inside(workspace, p)) continue
    try {
      const st = fs.lstatSync(p, { throwIfNoEntry: false })
      if (st?.isDirectory() === true) beneath(p, (at) => fs.rmdirSync(at))
      else if (st?.isFile() === true && st.size === 0) beneath(p, (at) => fs.unlinkSync(at))
    } catch {
      // Not empty (the user, or a call, put something there: theirs now), or its folder moved.
    }
  }
}
