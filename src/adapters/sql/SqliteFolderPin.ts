/**
 * A workspace database's folder, pinned for the SQLite query process by a mount (issue 19: check-then-use races).
 *
 * The query process already opens the database file itself pinned (SqliteChildScript's openPinned), but SQLite
 * opens the files beside it (`-wal`, `-shm`, `-journal`) later, by a name: the main file's resolved path plus a
 * suffix. A folder on the way swapped for a symlink between the two opens sent those to the folder the link named:
 * a write query then created and wrote `out.db-wal` outside the workspace, a read took another database's log.
 * Pinning a descriptor does not help (SQLite turns `/proc/self/fd/N` back into a path string).
 *
 * So, where bubblewrap works, the query process runs in a mount namespace of its own: the folder is opened here
 * from `/` down with no link followed, checked to be a folder, and its descriptor bound (`--bind-fd`) at
 * `/dev/minicode-db` (a fresh /dev: nothing of the host's is hidden there). Inside, every name SQLite makes is in
 * that very folder, whatever happens to the workspace's paths meanwhile; the rest of the host is read-only and
 * there is no network. A process is kept for the next call on the same folder (same device and inode): its mount
 * cannot be moved by a rename. Without bubblewrap the query process runs as before (the main file pinned only).
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { findOnPath } from "../shell/BwrapSandbox.js"

/** Where the pinned folder appears inside the query process's namespace. */
export const mountPoint = "/dev/minicode-db"

export interface Pinned {
  /** The folder's descriptor (the caller closes it once the process has it). */
  readonly fd: number
  /** `dev:ino` of the folder: a process started on it may serve any later call on the same folder. */
  readonly key: string
  /** The file's name inside the folder. */
  readonly name: string
}

/**
 * Opens the folder holding `file` from `/` with no link followed anywhere; undefined when a component is a link,
 * is not a folder or cannot be opened (the caller then refuses: the path changed since the jail judged it).
 */
export const pinFolder = (file: string): Pinned | undefined => {
  const C = fs.constants
  const parts = path.resolve(file).split("/").filter((p) => p !== "")
  const name = parts.pop()
  if (name === undefined || name === "." || name === "..") return undefined
  let dir = fs.openSync("/", C.O_RDONLY | C.O_DIRECTORY)
  try {
    for (const part of parts) {
      const next = fs.openSync(`/proc/self/fd/${dir}/${part}`, C.O_RDONLY | C.O_DIRECTORY | C.O_NOFOLLOW)
      fs.closeSync(dir)
      dir = next
    }
  } catch {
    fs.closeSync(dir)
    return undefined
  }
  const st = fs.fstatSync(dir)
  return { fd: dir, key: `${st.dev}:${st.ino}`, name }
}

/** bubblewrap's arguments for a query process whose fd 4 is the pinned folder. */
export const bwrapArgs = (program: ReadonlyArray<string>): ReadonlyArray<string> => [
  "--die-with-parent",
  "--unshare-net",
  "--unshare-ipc",
  "--ro-bind", "/", "/",
  "--dev", "/dev",
  "--bind-fd", "4", mountPoint,
  "--",
  ...program
]


/**
 * The bubblewrap that can start a pinned query process here, tried once with the very arguments used (a folder
 * bound); undefined where it is missing or cannot make namespaces (the query process then runs without mounts of
 * its own). `MINICODE_SQLITE_PIN=off` turns it off.
 */
export const probe = (): Promise<string | undefined> => {
  if (process.env["MINICODE_SQLITE_PIN"] === "off" || process.platform !== "linux") return Promise.resolve(undefined)
  const bwrap = findOnPath("bwrap")
  if (bwrap === undefined) return Promise.resolve(undefined)
  let fd: number
  try {
    fd = fs.openSync("/", fs.constants.O_RDONLY | fs.constants.O_DIRECTORY)
  } catch {
    return Promise.resolve(undefined)
  }
  return new Promise((resolve) => {
    const child = spawn(bwrap, bwrapArgs(["/bin/sh", "-c", `test -d ${mountPoint}/proc`]), {
      stdio: ["ignore", "ignore", "ignore", "ignore", fd],
      timeout: 10_000,
      env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin" }
    })
    let settled = false
    const done = (ok: boolean) => {
      if (settled) return
      settled = true
      fs.closeSync(fd)
      resolve(ok ? bwrap : undefined)
    }
    child.once("error", () => done(false))
    child.once("exit", (code) => done(code === 0))
  })
}
