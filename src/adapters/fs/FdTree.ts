/**
 * A walk of a tree through descriptors, for NodeFileSystem's `walkTree`: the start opened from `/` as `DirFd.open`
 * does, then each folder opened `O_DIRECTORY | O_NOFOLLOW` relative to its parent's descriptor
 * (`/proc/<pid>/fd/<parent>/<name>`) and listed through its own (`/proc/<pid>/fd/<fd>`). A folder swapped for a
 * symlink after its parent was listed fails the open (ELOOP or ENOTDIR) and is passed over, so every name a listing
 * gives lies in the tree, reached by no link: the walk is its own no-follow check, with one listing per folder.
 *
 * A parent's descriptor stays open until its last subfolder is opened: depth first, that is the folders on the way
 * down (and the siblings still waiting there share their parent's one descriptor). Synchronous. A folder that is
 * not one any more (a symlink, a file, gone) is passed over; one that may not be read (EACCES, EPERM) is passed over
 * and named in `unreadable`, so the caller can say so (issue 40: grep and glob skipped such folders without a word);
 * any other failure (out of descriptors, say) is thrown, so a walk fails loudly rather than coming back short.
 *
 * Without /proc (DirFd.supported false) folders are opened by path: the check holds for the last component only.
 */
import * as fs from "node:fs"
import type { DirEntry, TreeFolder, TreeVisit } from "../../ports/FileSystem.js"
import * as DirFd from "./DirFd.js"

// With /proc, as DirFd walks (O_PATH: the open does no more than the walk needs; the listing reopens it to read):
// cheaper to open and close than a descriptor for reading. A folder that may not be read then fails its listing
// (EACCES) rather than its open, and is passed over all the same.
const dirFlags = DirFd.supported ? DirFd.walkFlags : fs.constants.O_RDONLY | fs.constants.O_DIRECTORY | fs.constants.O_NOFOLLOW
// O_NONBLOCK: a FIFO named like a rule file must not block the open.
const fileFlags = fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK

/** An open folder and how many of its uses are still to come (its own listing, each subfolder's open). */
interface Held extends DirFd.Dir {
  uses: number
}

interface Job {
  readonly parent: Held
  readonly name: string
  readonly rel: string
}

/** What a folder met in a listing can honestly turn out to be by the time it is opened (or listed). */
const passedOver = new Set(["ELOOP", "ENOTDIR", "ENOENT", "EACCES", "EPERM"])
/** Of those, the ones that mean "there, but this process may not read it". */
const denied = new Set(["EACCES", "EPERM"])
const codeOf = (cause: unknown) => (typeof cause === "object" && cause !== null && "code" in cause ? String(cause.code) : "")

const kindOf = (e: fs.Dirent): DirEntry["kind"] =>
  e.isFile() ? "file" : e.isDirectory() ? "directory" : e.isSymbolicLink() ? "symlink" : "other"

const readIn = (dir: DirFd.Dir, name: string): Uint8Array | undefined => {
  let fd: number
  try {
    fd = fs.openSync(DirFd.at(dir, name), fileFlags)
  } catch {
    return undefined
  }
  try {
    return fs.fstatSync(fd).isFile() ? fs.readFileSync(fd) : undefined
  } catch {
    return undefined
  } finally {
    fs.closeSync(fd)
  }
}

/** A folder as `visit` hears it (one object a folder, `read` on the prototype: no closure made for each). */
class Listed implements TreeFolder {
  constructor(
    readonly rel: string,
    readonly entries: ReadonlyArray<DirEntry>,
    private readonly dir: DirFd.Dir
  ) {}
  read(name: string) {
    return readIn(this.dir, name)
  }
}

const withTypes = { withFileTypes: true } as const

export interface FdTree {
  readonly step: (folders: number, visit: TreeVisit) => boolean
  /** The folders (relative to the start) that could not be listed for want of permission, in walk order. */
  readonly unreadable: ReadonlyArray<string>
  readonly close: () => void
}

export const open = (start: string): FdTree => {
  // What is open at any moment (no set of them kept): the start until its listing, the folder being listed, and
  // the parent of each job on the stack; `uses` 0 marks one closed.
  const release = (h: Held) => {
    if (--h.uses > 0) return
    DirFd.close(h)
  }
  let pendingFirst: Held | undefined = { ...DirFd.open(start), uses: 1 }
  let current: Held | undefined
  const stack: Array<Job> = []
  const unreadable: Array<string> = []
  const enter = (job: Job): Held | undefined => {
    try {
      const fd = fs.openSync(DirFd.at(job.parent, job.name), dirFlags)
      // A listed name has no `/` and is not `.` or `..`: joined as it is.
      const parent = job.parent.path
      if (!DirFd.supported) fs.closeSync(fd)
      return { path: parent === "/" ? `/${job.name}` : `${parent}/${job.name}`, fd: DirFd.supported ? fd : undefined, uses: 1 }
    } catch (cause) {
      const code = codeOf(cause)
      if (denied.has(code)) unreadable.push(job.rel)
      if (passedOver.has(code)) return undefined
      throw cause
    } finally {
      release(job.parent)
    }
  }
  const list = (h: Held, rel: string, visit: TreeVisit) => {
    current = h
    let entries: Array<DirEntry>
    try {
      const listed = fs.readdirSync(DirFd.self(h), withTypes)
      entries = new Array<DirEntry>(listed.length)
      for (let i = 0; i < listed.length; i++) {
        const e = listed[i] as fs.Dirent
        entries[i] = { name: e.name, kind: kindOf(e) }
      }
    } catch (cause) {
      current = undefined
      release(h)
      const code = codeOf(cause)
      if (denied.has(code)) unreadable.push(rel)
      if (passedOver.has(code)) return
      throw cause
    }
    const subs = visit(new Listed(rel, entries, h))
    h.uses += subs.length
    for (let i = subs.length - 1; i >= 0; i--) {
      const name = subs[i] ?? ""
      stack.push({ parent: h, name, rel: rel === "" ? name : `${rel}/${name}` })
    }
    current = undefined
    release(h)
  }
  const step = (folders: number, visit: TreeVisit): boolean => {
    let n = 0
    if (pendingFirst !== undefined) {
      const h = pendingFirst
      pendingFirst = undefined
      list(h, "", visit)
      n++
    }
    while (n < folders && stack.length > 0) {
      const job = stack.pop()
      if (job === undefined) break
      const h = enter(job)
      if (h !== undefined) list(h, job.rel, visit)
      n++
    }
    return stack.length > 0
  }
  const shut = (h: Held | undefined) => {
    if (h === undefined || h.uses <= 0) return
    h.uses = 0
    DirFd.close(h)
  }
  const close = () => {
    shut(pendingFirst)
    shut(current)
    for (const job of stack) shut(job.parent)
    stack.length = 0
    pendingFirst = undefined
    current = undefined
  }
  return { step, unreadable, close }
}
