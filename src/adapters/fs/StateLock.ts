/**
 * A lock shared by every minicode process on one workspace, for short critical sections: a file made with O_EXCL in
 * the workspace's private state folder (`StateHome`: outside the workspace, never bound in a sandbox),
 * holding its owner's identity. A lock whose owner has died (killed -9 inside the section) is taken over.
 *
 * An owner is a pid and the process's start time (`/proc/<pid>/stat`), so a reused pid is not taken for a live owner.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import * as StateHome from "./StateHome.js"

/** A process's start time in clock ticks since boot; "" where /proc cannot tell. */
export const startOf = (pid: number): string => {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
    // Field 22, counted after the command name, which may hold spaces and parentheses.
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] ?? ""
  } catch {
    return ""
  }
}

export interface Owner {
  readonly pid: number
  readonly start: string
}

export const self: Owner = { pid: process.pid, start: startOf(process.pid) }

/** Whether the owner still runs: its pid answers and, where /proc tells, it is the same process. */
export const alive = (owner: Owner): boolean => {
  try {
    process.kill(owner.pid, 0)
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EPERM") return false
  }
  const now = startOf(owner.pid)
  return owner.start === "" || now === "" || now === owner.start
}

/**
 * The state folder of `workspace`, outside it (`StateHome`), made if missing; throws unless it is a real folder of
 * ours (never a symlink: a path through it is written by minicode outside the sandbox).
 */
export const stateFolder = (workspace: string): string => StateHome.folder(workspace)

/**
 * Removes a file of the state folder, none there being fine: what `fs.rmSync(p, { force: true })` does for a file,
 * without its two lstat calls first (Node 20's rmSync is a JS walk); a folder there is an error, as with rmSync.
 */
export const removeFile = (p: string): void => {
  try {
    fs.unlinkSync(p)
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e
  }
}

const sleep = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)

const ownerIn = (text: string): Owner | undefined => {
  const m = /^(\d+):(\d*)$/.exec(text.trim())
  return m === null ? undefined : { pid: Number(m[1]), start: m[2] ?? "" }
}

/**
 * Runs `section` holding the lock `name` in `dir`; waits (synchronously: sections last milliseconds) up to
 * `timeoutMs` for a live owner, then throws.
 */
export const withLock = <A>(dir: string, name: string, section: () => A, timeoutMs = 20_000): A => {
  const lock = path.join(dir, `${name}.lock`)
  const deadline = Date.now() + timeoutMs
  for (let wait = 1; ; wait = Math.min(wait * 2, 50)) {
    try {
      const fd = fs.openSync(lock, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW, 0o600)
      try {
        fs.writeSync(fd, `${self.pid}:${self.start}\n`)
      } finally {
        fs.closeSync(fd)
      }
      break
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e
    }
    breakIfStale(lock)
    if (Date.now() > deadline) throw new Error(`${lock} is held by a live process`)
    sleep(wait)
  }
  try {
    return section()
  } finally {
    removeFile(lock)
  }
}

/**
 * Removes the lock if its owner is dead. Moved aside first and checked to be the same file, so a lock another process
 * took meanwhile is put back, not removed. A lock still empty (its owner between create and write) is left alone
 * unless it is old.
 */
const breakIfStale = (lock: string): void => {
  let st: fs.Stats
  let owner: Owner | undefined
  try {
    st = fs.lstatSync(lock)
    owner = ownerIn(fs.readFileSync(lock, "utf8"))
  } catch {
    return
  }
  if (owner === undefined ? Date.now() - st.mtimeMs < 5_000 : alive(owner)) return
  const aside = `${lock}.stale-${self.pid}`
  try {
    fs.renameSync(lock, aside)
  } catch {
    return
  }
  if (fs.lstatSync(aside).ino !== st.ino) {
    // Someone else's fresh lock: back in place, unless a third took the name meanwhile (then theirs stands).
    try {
      fs.linkSync(aside, lock)
    } catch {
      // taken
    }
  }
  fs.rmSync(aside, { force: true })
}
