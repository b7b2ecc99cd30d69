/**
 * Opening a workspace database so that what SQLite opens is the file the jail judged (issue 19: the engine opened
 * by path, and a folder swapped for a symlink meanwhile made it read a database outside the workspace).
 *
 * SQLite takes a name, never a descriptor, and turns it into a full path of its own before `open(2)`. So:
 * 1. the file is opened here first, on descriptors (`DirFd`: no link followed anywhere on the way), and its
 *    identity checked against the jail's (device and inode);
 * 2. SQLite is handed `/proc/self/fd/<that descriptor>`: it reads the kernel's name for exactly that file (wherever
 *    a swap has left the path strings), and opens that;
 * 3. the descriptors SQLite opened during its (synchronous) open are looked up: one of them must be the same file,
 *    else a swap slipped in between SQLite's name and its `open(2)`, and the connection is closed and refused.
 *
 * Step 3 compares the process's descriptor table before and after the open: it must run on the thread that opens,
 * with no other thread of the process opening the same file at that instant (a concurrent open of the very same
 * database could hide a swap, never invent one). Without `/proc`, the file is opened by its path.
 */
import * as fs from "node:fs"
import * as DirFd from "./DirFd.js"

export interface Identity {
  readonly dev: number
  readonly ino: number
}

export class SwappedError extends Error {
  readonly code = "ECHANGED"
}

/** Each open descriptor's identity (`dev:ino`), or "" when it is not a file we can stat. */
const table = (): Map<string, string> => {
  const out = new Map<string, string>()
  for (const name of fs.readdirSync("/proc/self/fd")) {
    try {
      const st = fs.fstatSync(Number(name))
      out.set(name, `${st.dev}:${st.ino}`)
    } catch {
      out.set(name, "")
    }
  }
  return out
}

/**
 * Opens `file` through `open` (which receives the name SQLite should use) after pinning it as described above;
 * `close` disposes of a connection that is refused. Throws Node's errors, or a `SwappedError`.
 */
export const openPinned = <D>(file: string, expect: Identity, open: (name: string) => D, close: (db: D) => void): D => {
  if (!DirFd.supported) return open(file)
  const fd = DirFd.withParent(file, (dir, name) =>
    fs.openSync(DirFd.at(dir, name), fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK)
  )
  try {
    const st = fs.fstatSync(fd)
    if (!st.isFile()) throw Object.assign(new Error(`${file} is not a regular file`), { code: "EINVAL" })
    if (st.dev !== expect.dev || st.ino !== expect.ino) throw new SwappedError(`${file} changed between check and use`)
    const same = `${st.dev}:${st.ino}`
    const before = table()
    const db = open(`/proc/self/fd/${fd}`)
    let found = false
    for (const [name, id] of table()) if (name !== String(fd) && id === same && before.get(name) !== same) found = true
    if (!found) {
      close(db)
      throw new SwappedError(`${file} changed while SQLite opened it (a folder on the way was swapped)`)
    }
    return db
  } finally {
    fs.closeSync(fd)
  }
}
