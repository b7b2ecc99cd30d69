/**
 * The temporary files `writeFile` writes through (`.NAME.PID-HEX8.minicode-tmp`, beside NAME) and their sweep. A
 * process killed mid-write leaves one behind (up to the file's size, shown by `git status`); the next process that
 * opens the journal removes those beside the paths of records still pending or unknown (the calls a kill
 * interrupted), matched exactly:
 * - the name is `.` + that path's own name + `.` + a process id + `-` + 8 hex digits + `.minicode-tmp`;
 * - that process is gone (a live writer's file is left alone: it is in the middle of its write);
 * - it is a regular file of ours with one link (never a symlink, folder or hard link someone named so), looked at and
 *   removed through its folder's descriptor, reached from `/` without following a link.
 * A user's file that merely looks similar (another name, other digits, a link) is never removed; one made by an
 * agent under exactly such a name is its own file, and only the name goes (unlink never follows a link).
 */
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import * as DirFd from "./DirFd.js"

export const suffix = ".minicode-tmp"

/** The temporary name for a write of `name` by process `pid`. */
export const tempName = (name: string, pid: number = process.pid): string => `.${name}.${pid}-${randomBytes(4).toString("hex")}${suffix}`

/** The writer's process id when `entry` is exactly a temporary name of a write of `name`, else undefined. */
export const writerOf = (entry: string, name: string): number | undefined => {
  const head = `.${name}.`
  if (!entry.startsWith(head) || !entry.endsWith(suffix)) return undefined
  const m = /^([1-9][0-9]{0,9})-[0-9a-f]{8}$/.exec(entry.slice(head.length, entry.length - suffix.length))
  return m === null ? undefined : Number(m[1])
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (cause) {
    // EPERM: it exists (another user's); only ESRCH says it is gone.
    return (cause as NodeJS.ErrnoException).code !== "ESRCH"
  }
}

/** Whether a workspace path from the journal is a plain relative one (no `..`, `.`, empty or absolute part). */
const plain = (rel: string): boolean =>
  rel !== "" && !rel.startsWith("/") && !rel.includes("\0") && rel.split("/").every((s) => s !== "" && s !== "." && s !== "..")

/**
 * Removes the temporary files dead writers left beside `paths` (workspace-relative) under `root`; returns the ones
 * removed (workspace-relative). Never fails: a folder that cannot be opened (gone, a link now) is passed over.
 */
export const sweep = (root: string, paths: Iterable<string>): ReadonlyArray<string> => {
  const byFolder = new Map<string, Set<string>>()
  for (const rel of paths) {
    if (!plain(rel)) continue
    const folder = path.posix.dirname(rel)
    const names = byFolder.get(folder) ?? new Set<string>()
    names.add(path.posix.basename(rel))
    byFolder.set(folder, names)
  }
  const removed: Array<string> = []
  const uid = process.getuid?.()
  for (const [folder, names] of byFolder) {
    let dir: DirFd.Dir
    try {
      dir = DirFd.open(folder === "." ? root : path.join(root, folder))
    } catch {
      continue
    }
    try {
      for (const entry of fs.readdirSync(DirFd.self(dir))) {
        if (!entry.endsWith(suffix)) continue
        const pid = [...names].map((name) => writerOf(entry, name)).find((p) => p !== undefined)
        if (pid === undefined || alive(pid)) continue
        const stat = DirFd.lstatAt(dir, entry)
        if (stat === undefined || !stat.isFile() || stat.nlink !== 1 || (uid !== undefined && stat.uid !== uid)) continue
        try {
          fs.unlinkSync(DirFd.at(dir, entry))
          removed.push(folder === "." ? entry : `${folder}/${entry}`)
        } catch {
          // Gone meanwhile, or not ours to remove: left.
        }
      }
    } catch {
      // The folder could not be listed: nothing removed there.
    } finally {
      DirFd.close(dir)
    }
  }
  return removed
}
