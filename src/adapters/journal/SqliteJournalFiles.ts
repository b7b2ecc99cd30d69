/** The journal database's files: the directory 700, the database 600, and the checks for a torn database or WAL. */
import type { SqlError } from "@effect/sql/SqlError"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { Effect } from "effect"
import { JournalError } from "../../ports/Journal.js"
import * as StateDir from "../fs/StateDir.js"

// ---------------------------------------------------------------------------------------------------------------
// Files: the directory 700, the database 600 (SQLite gives -wal and -shm the database's mode).

export const prepareFiles = (dbPath: string) =>
  Effect.try({
    try: () => {
      const dir = NodePath.dirname(dbPath)
      StateDir.prepare(dir)
      NodeFs.chmodSync(dir, 0o700)
      // The database and SQLite's side files are opened by path: none may be a symlink a checkout shipped.
      for (const f of [dbPath, `${dbPath}-wal`, `${dbPath}-shm`, `${dbPath}-journal`]) {
        if (NodeFs.lstatSync(f, { throwIfNoEntry: false })?.isSymbolicLink() === true) throw new Error(`${f} is a symlink; remove it`)
      }
      const fd = NodeFs.openSync(dbPath, NodeFs.constants.O_CREAT | NodeFs.constants.O_RDWR | NodeFs.constants.O_NOFOLLOW, 0o600)
      try {
        NodeFs.fchmodSync(fd, 0o600)
      } finally {
        NodeFs.closeSync(fd)
      }
    },
    catch: (cause) => new JournalError({ reason: `cannot prepare ${dbPath}: ${String(cause)}` })
  })

/** The page size in the database header, or undefined for an empty file or a header that is not SQLite's. */
export const pageSizeOf = (dbPath: string): number | undefined => {
  const header = Buffer.alloc(100)
  const fd = NodeFs.openSync(dbPath, "r")
  try {
    if (NodeFs.readSync(fd, header, 0, 100, 0) < 100) return undefined
  } finally {
    NodeFs.closeSync(fd)
  }
  const raw = header.readUInt16BE(16)
  const pageSize = raw === 1 ? 65536 : raw
  return pageSize >= 512 && (pageSize & (pageSize - 1)) === 0 ? pageSize : undefined
}

/**
 * A torn write that SQLite itself would silently skip, in the database file: not whole pages. Read before SQLite
 * opens the file (checkpoints write whole pages at page offsets, so another process's cannot show as one).
 */
export const tornDatabase = (dbPath: string): ReadonlyArray<string> => {
  try {
    const size = NodeFs.statSync(dbPath).size
    const pageSize = size === 0 ? undefined : pageSizeOf(dbPath)
    return pageSize !== undefined && size % pageSize !== 0 ? [`state.db is ${size} bytes, not whole ${pageSize}-byte pages (torn or truncated)`] : []
  } catch (cause) {
    return [`cannot inspect ${dbPath}: ${String(cause)}`]
  }
}

/**
 * A torn write in the write-ahead log: it ends in part of a frame of its current generation. Read while this
 * connection holds the write lock, before it writes anything: another process appends frames (a header, then the
 * page, in two writes) only under that lock, so a part frame seen without it may be one being written. A part frame
 * of an earlier generation (its salts are not the log header's) is not torn: SQLite cuts a log that outgrew
 * `journal_size_limit` back to that size, wherever a frame ends.
 */
export const tornWal = (dbPath: string): ReadonlyArray<string> => {
  try {
    const wal = NodeFs.statSync(`${dbPath}-wal`, { throwIfNoEntry: false })
    const pageSize = wal === undefined || wal.size === 0 ? undefined : pageSizeOf(dbPath)
    if (wal === undefined || pageSize === undefined) return []
    const frame = pageSize + 24
    const part = wal.size < 32 ? wal.size : (wal.size - 32) % frame
    if (part === 0) return []
    const torn = [`the write-ahead log ends in a partial frame (${wal.size} bytes): its last write was torn`]
    if (wal.size < 32 || part < 24) return torn
    const header = Buffer.alloc(32)
    const partial = Buffer.alloc(24)
    const fd = NodeFs.openSync(`${dbPath}-wal`, "r")
    try {
      NodeFs.readSync(fd, header, 0, 32, 0)
      NodeFs.readSync(fd, partial, 0, 24, wal.size - part)
    } finally {
      NodeFs.closeSync(fd)
    }
    // Salt-1 and salt-2: bytes 16-23 of the log header, 8-15 of a frame header.
    return header.subarray(16, 24).equals(partial.subarray(8, 16)) ? torn : []
  } catch (cause) {
    return [`cannot inspect ${dbPath}-wal: ${String(cause)}`]
  }
}

export const sqlError = (what: string) => (error: SqlError) =>
  new JournalError({ reason: `${what}: ${error.cause instanceof Error ? error.cause.message : error.message}` })


/** SQLite's answer while another connection holds the lock past the busy timeout: worth another try, never damage. */
export const isBusy = (text: string): boolean => /database is locked|database table is locked|database is busy|SQLITE_BUSY/i.test(text)

export interface FileIdentity {
  readonly dev: number
  readonly ino: number
}

/** The identity of the database file as opened (right after both connections opened it). */
export const fileIdentity = (dbPath: string) =>
  Effect.try({
    try: (): FileIdentity => {
      const stat = NodeFs.statSync(dbPath)
      return { dev: stat.dev, ino: stat.ino }
    },
    catch: (cause) => new JournalError({ reason: `cannot open ${dbPath}: ${String(cause)}` })
  })

/**
 * Why `dbPath` is no longer the file this process opened (deleted, or another file put in its place), as the
 * sentence a refused call shows; undefined while it still is.
 */
export const replacedSince = (dbPath: string, opened: FileIdentity): string | undefined => {
  let now: NodeFs.Stats | undefined
  try {
    now = NodeFs.statSync(dbPath, { throwIfNoEntry: false })
  } catch (cause) {
    return `${dbPath} cannot be checked (${String(cause)}): the call was refused and nothing was written`
  }
  if (now !== undefined && now.dev === opened.dev && now.ino === opened.ino) return undefined
  const what = now === undefined ? "was deleted" : "was replaced by another file"
  return `${dbPath} ${what} since this process opened it: the call was refused and nothing was written (its record would have gone into the old file, which \`minicode journal\`, \`recover\` and \`undo\` never read); start minicode again (restart the MCP server) to journal into the file there now`
}

/** SQLite's (or the system's) answer when the disk is full: no room for a log frame, the shared-memory index. */
export const isFull = (text: string): boolean => /database or disk is full|SQLITE_FULL|disk I\/O error|ENOSPC|no space left/i.test(text)

/**
 * Room kept for the journal on a full disk: a file of zeros beside the database (`state.db-reserve`), made when the
 * journal opens and there is room, removed when the disk is full and the journal needs the space, so that a call's
 * outcome is still recorded (a failed write on a full disk stayed `pending`, and `recover` said the process had
 * crashed) and `journal` and `recover` can still open the database (its `-wal` and `-shm` files) to list.
 */
export const reservePath = (dbPath: string): string => `${dbPath}-reserve`
export const reserveBytes = 128 * 1024

/**
 * Makes the reserve if it is missing and the disk has room to spare (four times its size: it never takes the last
 * of it); never fails (a part made is removed).
 */
export const keepReserve = (dbPath: string): void => {
  const file = reservePath(dbPath)
  let fd: number
  try {
    if (NodeFs.existsSync(file)) return
    const free = NodeFs.statfsSync(NodePath.dirname(dbPath))
    if (free.bavail * free.bsize < 4 * reserveBytes) return
    fd = NodeFs.openSync(file, NodeFs.constants.O_CREAT | NodeFs.constants.O_EXCL | NodeFs.constants.O_WRONLY | NodeFs.constants.O_NOFOLLOW, 0o600)
  } catch {
    return
  }
  let whole = false
  try {
    whole = NodeFs.writeSync(fd, Buffer.alloc(reserveBytes)) === reserveBytes
    NodeFs.fsyncSync(fd)
  } catch {
    whole = false
  } finally {
    NodeFs.closeSync(fd)
    if (!whole) NodeFs.rmSync(file, { force: true })
  }
}

/** Gives the reserve's room back to the disk; true when there was one to give. */
export const releaseReserve = (dbPath: string): boolean => {
  try {
    if (NodeFs.lstatSync(reservePath(dbPath), { throwIfNoEntry: false })?.isFile() !== true) return false
    NodeFs.unlinkSync(reservePath(dbPath))
    return true
  } catch {
    return false
  }
}
