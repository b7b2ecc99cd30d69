/**
 * FileSystem on node:fs. Opens never follow a final symlink (O_NOFOLLOW), and after opening, the descriptor is
 * checked against what the jail validated: same device and inode, and on Linux the path the kernel reports for
 * the descriptor (so a parent directory swapped for a symlink between check and use is caught too).
 *
 * Metadata calls and small files use the synchronous syscalls: each costs microseconds, while a round trip
 * through libuv's thread pool costs tens of microseconds, and a call makes several. Files above `syncLimit` are
 * read and written asynchronously so a large file never stalls the process.
 */
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as fsp from "node:fs/promises"
import * as path from "node:path"
import { Effect, Layer, Option } from "effect"
import { type DirEntry, type Expect, type FileKind, FileSystem, FsError, type FileStat } from "../../ports/FileSystem.js"

const syncLimit = 4 * 1024 * 1024

const codeOf = (cause: unknown): string =>
  typeof cause === "object" && cause !== null && "code" in cause && typeof cause.code === "string" ? cause.code : "EIO"

const reasons: Record<string, string> = {
  ENOENT: "no such file or directory",
  EEXIST: "already exists",
  EISDIR: "is a directory",
  ENOTDIR: "not a directory",
  ELOOP: "is a symbolic link (not followed)",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  ENOTEMPTY: "directory not empty",
  EXDEV: "cannot move across devices"
}

const fail = (op: string, p: string) => (cause: unknown) => {
  const code = codeOf(cause)
  return new FsError({ op, path: p, code, reason: reasons[code] ?? code })
}

const changed = (op: string, p: string, what: string) =>
  new FsError({ op, path: p, code: "ECHANGED", reason: `${what} changed between check and use` })

const kindOf = (s: fs.Stats): FileKind =>
  s.isFile() ? "file" : s.isDirectory() ? "directory" : s.isSymbolicLink() ? "symlink" : "other"

const toStat = (s: fs.Stats): FileStat => ({
  kind: kindOf(s),
  size: s.size,
  mode: s.mode & 0o7777,
  nlink: s.nlink,
  dev: s.dev,
  ino: s.ino,
  mtimeMs: s.mtimeMs
})

const procFd = process.platform === "linux"

/** Synchronous syscalls as Effects: a thrown error becomes an FsError for `op` on `p`. */
const sys = <A>(op: string, p: string, f: () => A) => Effect.try({ try: f, catch: fail(op, p) })

/** Re-checks an open descriptor: identity as expected, and opened where we meant to open. */
const verifyFd = (fd: number, p: string, expect: Expect | undefined, op: string): fs.Stats => {
  const st = fs.fstatSync(fd)
  if (expect !== undefined && expect !== "absent" && (st.dev !== expect.dev || st.ino !== expect.ino)) throw changed(op, p, "the file")
  if (procFd && fs.readlinkSync(`/proc/self/fd/${fd}`) !== p) throw changed(op, p, "a parent directory")
  return st
}

const rethrow = (op: string, p: string) => (cause: unknown) => (cause instanceof FsError ? cause : fail(op, p)(cause))

const lstatSync = (p: string): Option.Option<FileStat> => {
  try {
    const s = fs.lstatSync(p, { throwIfNoEntry: false })
    return s === undefined ? Option.none() : Option.some(toStat(s))
  } catch (cause) {
    // A file where a directory was expected: nothing exists at that path.
    if (codeOf(cause) === "ENOTDIR") return Option.none()
    throw cause
  }
}

export const make = Effect.sync(() => {
  const lstat = (p: string) => Effect.try({ try: () => lstatSync(p), catch: fail("lstat", p) })

  /** Small files in one synchronous step (open, re-check, read, close); large ones read asynchronously. */
  const readFile = (p: string, expect?: Expect): Effect.Effect<Uint8Array, FsError> =>
    Effect.suspend(() => {
      let fd: number
      try {
        fd = fs.openSync(p, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW)
      } catch (cause) {
        return Effect.fail(fail("read", p)(cause))
      }
      let size: number
      try {
        const st = verifyFd(fd, p, expect, "read")
        if (st.isDirectory()) throw new FsError({ op: "read", path: p, code: "EISDIR", reason: "is a directory" })
        size = st.size
        if (size === 0) {
          // Empty, or a file whose size is not known in advance (procfs-like): read to the end.
          const buffer = fs.readFileSync(fd)
          fs.closeSync(fd)
          return Effect.succeed(new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength))
        }
        if (size <= syncLimit) {
          // The size was just read from this descriptor: read that much (readFileSync would fstat it again).
          const buffer = Buffer.allocUnsafe(size)
          let offset = 0
          while (offset < size) {
            const n = fs.readSync(fd, buffer, offset, size - offset, offset)
            if (n === 0) break
            offset += n
          }
          fs.closeSync(fd)
          // A Buffer is a Uint8Array; handing it on as one keeps Node's native search (a binary check is a memchr).
          return Effect.succeed(offset === size ? buffer : buffer.subarray(0, offset))
        }
      } catch (cause) {
        fs.closeSync(fd)
        return Effect.fail(rethrow("read", p)(cause))
      }
      const readLarge = Effect.tryPromise({
        try: async () => {
          const buffer = Buffer.alloc(size)
          let offset = 0
          while (offset < size) {
            const bytesRead = await new Promise<number>((resolve, reject) =>
              fs.read(fd, buffer, offset, size - offset, offset, (err, n) => (err === null ? resolve(n) : reject(err)))
            )
            if (bytesRead === 0) break
            offset += bytesRead
          }
          return new Uint8Array(buffer.buffer, buffer.byteOffset, offset)
        },
        catch: fail("read", p)
      })
      return Effect.ensuring(readLarge, Effect.sync(() => fs.closeSync(fd)))
    })

  /** Refuses the rename when the target is no longer what the caller saw (identity, and mtime when given). */
  const checkExpected = (p: string, expect: Expect | undefined) => {
    if (expect === undefined) return
    const now = lstatSync(p)
    const same =
      expect === "absent"
        ? Option.isNone(now)
        : Option.isSome(now) &&
          now.value.dev === expect.dev &&
          now.value.ino === expect.ino &&
          (expect.mtimeMs === undefined || now.value.mtimeMs === expect.mtimeMs)
    if (!same) throw changed("write", p, "the file")
  }

  /**
   * Temp file beside the target, re-checked, filled, renamed over. Small files in one synchronous step (as reads
   * are); large ones written asynchronously. The temp file is removed on any failure or interruption.
   */
  const writeFile = (p: string, data: Uint8Array, options: { readonly mode?: number; readonly expect?: Expect } = {}) =>
    Effect.suspend(() => {
      const dir = path.dirname(p)
      const tmp = path.join(dir, `.${path.basename(p)}.${randomUUID().slice(0, 13)}.minicode-tmp`)
      const flags = fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW
      let mode = options.mode
      if (mode === undefined) {
        // A replaced file keeps its mode unless the caller names one.
        let previous: Option.Option<FileStat>
        try {
          previous = lstatSync(p)
        } catch (cause) {
          return Effect.fail(fail("lstat", p)(cause))
        }
        mode = Option.isSome(previous) && previous.value.kind === "file" ? previous.value.mode : undefined
      }
      let fd: number
      try {
        fd = fs.openSync(tmp, flags, mode ?? 0o644)
      } catch (cause) {
        return Effect.fail(fail("write", p)(cause))
      }
      const removeTmp = Effect.sync(() => fs.rmSync(tmp, { force: true }))
      if (data.byteLength <= syncLimit) {
        // Each step's error as its own Effect step would name it (an FsError thrown by a check passes unchanged).
        const step = <A>(op: string, f: () => A): A => {
          try {
            return f()
          } catch (cause) {
            throw rethrow(op, p)(cause)
          }
        }
        try {
          try {
            step("write", () => verifyFd(fd, tmp, undefined, "write"))
            step("write", () => fs.writeFileSync(fd, data))
            if (mode !== undefined) step("chmod", () => fs.fchmodSync(fd, mode))
          } finally {
            fs.closeSync(fd)
          }
          step("lstat", () => checkExpected(p, options.expect))
          step("write", () => fs.renameSync(tmp, p))
          return Effect.void
        } catch (cause) {
          fs.rmSync(tmp, { force: true })
          return Effect.fail(rethrow("write", p)(cause))
        }
      }
      const fill = Effect.gen(function* () {
        yield* Effect.try({ try: () => verifyFd(fd, tmp, undefined, "write"), catch: rethrow("write", p) })
        yield* Effect.tryPromise({ try: () => new Promise<void>((res, rej) => fs.writeFile(fd, data, (e) => (e === null ? res() : rej(e)))), catch: fail("write", p) })
        if (mode !== undefined) yield* sys("chmod", p, () => fs.fchmodSync(fd, mode))
      }).pipe(Effect.ensuring(Effect.sync(() => fs.closeSync(fd))))
      const replace = Effect.zipRight(
        Effect.try({ try: () => checkExpected(p, options.expect), catch: rethrow("lstat", p) }),
        sys("write", p, () => fs.renameSync(tmp, p))
      )
      return Effect.zipRight(fill, replace).pipe(Effect.tapError(() => removeTmp), Effect.onInterrupt(() => removeTmp))
    })

  const readDir = (p: string) =>
    sys("list", p, () => fs.readdirSync(p, { withFileTypes: true })).pipe(
      Effect.map((entries): ReadonlyArray<DirEntry> =>
        entries.map((e) => ({
          name: e.name,
          kind: e.isFile() ? "file" : e.isDirectory() ? "directory" : e.isSymbolicLink() ? "symlink" : "other"
        }))
      )
    )

  return FileSystem.of({
    lstat,
    readlink: (p) => sys("readlink", p, () => fs.readlinkSync(p)),
    readFile,
    writeFile,
    readDir,
    makeDirectory: (p) => sys("mkdir", p, () => fs.mkdirSync(p, { recursive: true })).pipe(Effect.asVoid),
    remove: (p, options) =>
      options?.recursive === true
        ? Effect.tryPromise({ try: () => fsp.rm(p, { recursive: true }), catch: fail("delete", p) })
        : sys("delete", p, () => fs.unlinkSync(p)),
    rename: (from, to) => sys("move", from, () => fs.renameSync(from, to)),
    chmod: (p, mode) => sys("chmod", p, () => fs.chmodSync(p, mode))
  })
})

export const layer = Layer.effect(FileSystem, make)
