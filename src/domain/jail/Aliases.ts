/**
 * Protected content under another name (issue 19): a hard link to `.env` (`docs/notes.txt`, same inode) and the
 * target of a protected-name symlink (`.env -> env/development`) hold a secret that the name rules never see. The
 * workspace scan finds them (adapters/shell/WorkspaceScan, HardLinks); this is the pure decision over what it found:
 * a path at or below a protected path, or a file whose identity (device, inode) is a protected file's, is protected.
 */
import * as P from "./PosixPath.js"

export interface Protected {
  /** Absolute real paths: protected files and folders (a folder protects everything below it). */
  readonly paths: ReadonlySet<string>
  /** `dev:ino` of every protected regular file: its content whatever name it is reached by. */
  readonly inodes: ReadonlySet<string>
  /**
   * Editor control folders and files by another name: the real path a symlink at a control's name leads to, inside
   * the workspace (`config/vscode` for `.vscode -> config/vscode`), with that name (workspace-relative). The editor
   * follows the link, so what is written below the real path is judged by the name it is read by.
   */
  readonly controls?: ReadonlyMap<string, string>
  /**
   * Every path inside the workspace that the resolution of a symlink at a control's name passes (the symlinks on
   * the way and where it ends, existing or not): what is moved onto such a path changes what the editor reads.
   */
  readonly controlWay?: ReadonlySet<string>
}

export const none: Protected = { paths: new Set(), inodes: new Set() }

/**
 * The names (workspace-relative) an editor reads the real path `real` by through a symlink at a control's name
 * (`config/vscode/tasks.json` is `.vscode/tasks.json` with `.vscode -> config/vscode`); none when no such link leads
 * to it or a folder above it.
 */
export const controlNames = (p: Protected, root: string, real: string): ReadonlyArray<string> => {
  const controls = p.controls
  if (controls === undefined || controls.size === 0) return []
  const out: Array<string> = []
  for (let at = real; P.isInside(root, at) && at !== root; at = P.dirname(at)) {
    const name = controls.get(at)
    if (name !== undefined) out.push(at === real ? name : `${name}/${P.relative(at, real)}`)
  }
  return out
}

/** A path a control link's resolution passes at or below `real` (a move onto `real` would change it), or undefined. */
export const onControlWay = (p: Protected, real: string): string | undefined => {
  for (const at of p.controlWay ?? []) if (at === real || P.isInside(real, at)) return at
  return undefined
}

export const key = (dev: number, ino: number): string => `${dev}:${ino}`

/**
 * Why `real` (a real path under `root`, with the identity of what is there, 0 when unknown) holds protected
 * content, or undefined. Only a file with several links can share an inode with a protected file by a link; a
 * protected symlink's target is in `paths` and, while it was not moved since the scan, also in `inodes`.
 */
export const reason = (p: Protected, root: string, real: string, id?: { readonly dev: number; readonly ino: number }): string | undefined => {
  if (p.paths.size > 0) {
    for (let at = real; P.isInside(root, at); at = P.dirname(at)) {
      if (p.paths.has(at)) return at === real ? "it is a protected file under another name (a hard link to one, or a protected symlink's target)" : `it is inside ${P.relative(root, at) || "."}, a protected folder under another name`
      if (at === root) break
    }
  }
  if (id !== undefined && id.ino !== 0 && p.inodes.has(key(id.dev, id.ino))) return "it is the same file (inode) as a protected file"
  return undefined
}

/**
 * `reason`'s answer by path alone (no identity), made once for many paths: whether `real` (a real path under `root`)
 * is a protected path or below one. Each path is compared with the few protected paths inside `root` instead of
 * walking up its folders (grep's own walk asked `reason` of each of the bench tree's 22,600 folders: a `dirname`,
 * a split and a join per level, ~110 ms and most of its garbage).
 */
export const byPath = (p: Protected, root: string): ((real: string) => boolean) => {
  const within: Array<string> = []
  for (const at of p.paths) if (P.isInside(root, at)) within.push(at)
  return (real) => {
    for (const at of within) if (P.isInside(at, real)) return true
    return false
  }
}

/**
 * A protected path (a protected symlink's target, a hard link's path) at or below the folder `real`, or undefined:
 * moving or removing that folder would carry the content away from the path it is protected by.
 */
export const inside = (p: Protected, real: string): string | undefined => {
  for (const at of p.paths) if (at === real || P.isInside(real, at)) return at
  return undefined
}
