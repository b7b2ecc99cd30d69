/**
 * FileSystem on node:fs. Every open, create, rename, unlink, mkdir, chmod and listing resolves its path on
 * descriptors (`DirFd`): walked from `/` one directory at a time without following a link, then the final name
 * relative to its parent's descriptor, so a directory swapped for a symlink between check and use fails instead of
 * leading outside. After opening, the descriptor is checked against what the jail validated: same device and inode,
 * and on Linux the path the kernel reports for it (a directory moved meanwhile is caught too). `lstat` and
 * `readlink` observe by path: they are the resolver's questions, and nothing is used on their word alone.
 *
 * Metadata calls and small files use the synchronous syscalls: each costs microseconds, while a round trip
 * through libuv's thread pool costs tens of microseconds, and a call makes several. Files above `syncLimit` are
 * read and written asynchronously so a large file never stalls the process.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect, Layer, Option } from "effect"
import * as DirFd from "./DirFd.js"
import * as FdTree from "./FdTree.js"
import * as TempFiles from "./TempFiles.js"
import * as Scan from "./Scan.js"
import { chunksOf, type DirEntry, type Expect, type FileKind, FileSystem, FsError, type FileStat, type TreeWalk, type WriteData } from "../../ports/FileSystem.js"

const syncLimit = 4 * 1024 * 1024
/** readChunks' buffer: large enough that a read costs far more than its round trip through the thread pool. */
const streamChunk = 1024 * 1024

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
  mtimeMs: s.mtimeMs,
  ctimeMs: s.ctimeMs
})

const procFd = DirFd.supported

/** Synchronous syscalls as Effects: a thrown error becomes an FsError for `op` on `p`. */
const sys = <A>(op: string, p: string, f: () => A) => Effect.try({ try: f, catch: fail(op, p) })

/** Re-checks an open descriptor: identity as expected, and opened where we meant to open. */
const verifyFd = (fd: number, p: string, expect: Expect | undefined, op: string): fs.Stats => {
  const st = fs.fstatSync(fd)
  if (expect !== undefined && expect !== "absent" && (st.dev !== expect.dev || st.ino !== expect.ino)) throw changed(op, p, "the file")
  if (expect !== undefined && expect !== "absent" && expect.nlink !== undefined && st.nlink > expect.nlink) throw changed(op, p, "the file's links")
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

const lstatAt = (dir: DirFd.Dir, name: string) => {
  try {
    return DirFd.lstatAt(dir, name)
  } catch (cause) {
    if (codeOf(cause) === "ENOTDIR") return undefined
    throw cause
  }
}

/** One synchronous step: its error named for `op` (an FsError thrown by a check passes unchanged). */
const step = <A>(op: string, p: string, f: () => A): A => {
  try {
    return f()
  } catch (cause) {
    throw rethrow(op, p)(cause)
  }
}

const entriesOf = (entries: ReadonlyArray<fs.Dirent>): ReadonlyArray<DirEntry> =>
  entries.map((e) => ({ name: e.name, kind: e.isFile() ? "file" : e.isDirectory() ? "directory" : e.isSymbolicLink() ? "symlink" : "other" }))

/** Writes all of `chunk` at the descriptor's position (a write may take less than it was given). */
const writeAll = async (fd: number, chunk: Uint8Array) => {
  for (let at = 0; at < chunk.length; ) {
    at += await new Promise<number>((res, rej) => fs.write(fd, chunk, at, chunk.length - at, null, (e, n) => (e === null ? res(n) : rej(e))))
  }
}

/** Opens `p` for reading beneath its parent's descriptor, never following a link at its name (readFile, readChunks). */
const openForRead = (p: string): number =>
  DirFd.withParent(p, (dir, name) => fs.openSync(DirFd.at(dir, name), fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW))

export const make = Effect.sync(() => {
  const lstat = (p: string) => Effect.try({ try: () => lstatSync(p), catch: fail("lstat", p) })

  /** Small files in one synchronous step (open, re-check, read, close); large ones read asynchronously. */
  const readFile = (p: string, expect?: Expect): Effect.Effect<Uint8Array, FsError> =>
    Effect.suspend(() => {
      let fd: number
      try {
        fd = openForRead(p)
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

  /**
   * Opened and checked as `readFile` opens a file, then read asynchronously a chunk at a time into one buffer until
   * the sink says stop or the file ends. Each read is uninterruptible (the descriptor is closed after it, never
   * under it); an interruption takes effect between reads.
   */
  const readChunks = (p: string, sink: (bytes: Uint8Array) => boolean, expect?: Expect): Effect.Effect<void, FsError> =>
    Effect.suspend(() => {
      let fd: number
      try {
        fd = openForRead(p)
      } catch (cause) {
        return Effect.fail(fail("read", p)(cause))
      }
      try {
        const st = verifyFd(fd, p, expect, "read")
        if (st.isDirectory()) throw new FsError({ op: "read", path: p, code: "EISDIR", reason: "is a directory" })
      } catch (cause) {
        fs.closeSync(fd)
        return Effect.fail(rethrow("read", p)(cause))
      }
      const buffer = Buffer.allocUnsafe(streamChunk)
      const readAt = (position: number) =>
        Effect.async<number, FsError>((resume) => {
          fs.read(fd, buffer, 0, streamChunk, position, (err, n) => resume(err === null ? Effect.succeed(n) : Effect.fail(fail("read", p)(err))))
        })
      const from = (position: number): Effect.Effect<void, FsError> =>
        Effect.flatMap(Effect.uninterruptible(readAt(position)), (n) => (n === 0 || !sink(buffer.subarray(0, n)) ? Effect.void : from(position + n)))
      return Effect.ensuring(from(0), Effect.sync(() => fs.closeSync(fd)))
    })

  /** Refuses the rename when the target is no longer what the caller saw (identity, and mtime when given). */
  const checkExpected = (dir: DirFd.Dir, name: string, p: string, expect: Expect | undefined) => {
    if (expect === undefined) return
    const now = lstatAt(dir, name)
    const same =
      expect === "absent"
        ? now === undefined
        : now !== undefined &&
          now.dev === expect.dev &&
          now.ino === expect.ino &&
          (expect.mtimeMs === undefined || now.mtimeMs === expect.mtimeMs)
    if (!same) throw changed("write", p, "the file")
  }

  /**
   * Temp file beside the target, in its directory's descriptor, re-checked, filled, renamed over through the same
   * descriptor. Small files in one synchronous step (as reads are); large ones written asynchronously. The temp
   * file is removed through that descriptor on any failure or interruption, and the descriptor closed after.
   */
  const writeFile = (p: string, data: WriteData, options: { readonly mode?: number; readonly expect?: Expect } = {}) =>
    Effect.suspend(() => {
      const flags = fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW
      let dir: DirFd.Dir
      let name: string
      try {
        ;({ dir, name } = DirFd.openParent(p))
      } catch (cause) {
        return Effect.fail(fail("write", p)(cause))
      }
      // The writer's process id in the name lets the next process remove it once this one is gone (TempFiles.sweep).
      const tmpName = TempFiles.tempName(name)
      const tmp = path.join(dir.path, tmpName)
      let mode = options.mode
      let fd: number
      try {
        if (mode === undefined) {
          // A replaced file keeps its mode unless the caller names one.
          const previous = step("lstat", p, () => lstatAt(dir, name))
          mode = previous !== undefined && previous.isFile() ? previous.mode & 0o7777 : undefined
        }
        fd = step("write", p, () => fs.openSync(DirFd.at(dir, tmpName), flags, mode ?? 0o644))
      } catch (cause) {
        DirFd.close(dir)
        return Effect.fail(rethrow("write", p)(cause))
      }
      const unlinkTmp = () => {
        try {
          fs.unlinkSync(DirFd.at(dir, tmpName))
        } catch {
          // Already gone (renamed over, or never filled): nothing to clean.
        }
      }
      if (data instanceof Uint8Array && data.byteLength <= syncLimit) {
        try {
          try {
            step("write", p, () => verifyFd(fd, tmp, undefined, "write"))
            step("write", p, () => fs.writeFileSync(fd, data))
            if (mode !== undefined) step("chmod", p, () => fs.fchmodSync(fd, mode))
          } finally {
            fs.closeSync(fd)
          }
          step("lstat", p, () => checkExpected(dir, name, p, options.expect))
          step("write", p, () => fs.renameSync(DirFd.at(dir, tmpName), DirFd.at(dir, name)))
          return Effect.void
        } catch (cause) {
          unlinkTmp()
          return Effect.fail(rethrow("write", p)(cause))
        } finally {
          DirFd.close(dir)
        }
      }
      const fill = Effect.gen(function* () {
        yield* Effect.try({ try: () => verifyFd(fd, tmp, undefined, "write"), catch: rethrow("write", p) })
        // Chunk by chunk, each written whole before the next is taken (its producer may reuse the buffer).
        for (const chunk of chunksOf(data)) yield* Effect.tryPromise({ try: () => writeAll(fd, chunk), catch: fail("write", p) })
        if (mode !== undefined) yield* sys("chmod", p, () => fs.fchmodSync(fd, mode))
      }).pipe(Effect.ensuring(Effect.sync(() => fs.closeSync(fd))))
      const replace = Effect.zipRight(
        Effect.try({ try: () => checkExpected(dir, name, p, options.expect), catch: rethrow("lstat", p) }),
        sys("write", p, () => fs.renameSync(DirFd.at(dir, tmpName), DirFd.at(dir, name)))
      )
      const removeTmp = Effect.sync(unlinkTmp)
      return Effect.zipRight(fill, replace).pipe(
        Effect.tapError(() => removeTmp),
        Effect.onInterrupt(() => removeTmp),
        Effect.ensuring(Effect.sync(() => DirFd.close(dir)))
      )
    })

  const readDir = (p: string) =>
    sys("list", p, () => {
      const dir = DirFd.open(p)
      try {
        return entriesOf(fs.readdirSync(DirFd.self(dir), { withFileTypes: true }))
      } finally {
        DirFd.close(dir)
      }
    })

  // One buffer for every scan: a scan runs synchronously to its end, so two never share it at once.
  const scanBuffer = Buffer.allocUnsafe(Scan.chunkBytes)

  return FileSystem.of({
    lstat,
    readlink: (p) => sys("readlink", p, () => fs.readlinkSync(p)),
    readFile,
    readChunks,
    writeFile,
    readDir,
    walkTree: (start) =>
      Effect.map(
        sys("list", start, () => FdTree.open(start)),
        // A step fails only as nothing should (out of descriptors): a defect, not a walk that comes back short.
        (tree): TreeWalk => ({
          step: (folders, visit) => Effect.sync(() => tree.step(folders, visit)),
          unreadable: Effect.sync(() => tree.unreadable.slice()),
          close: Effect.sync(tree.close)
        })
      ),
    scan: (dir, names, sink, skip) => sys("list", dir, () => Scan.scanDir(dir, names, sink, scanBuffer, skip)),
    makeDirectory: (p) => sys("mkdir", p, () => DirFd.close(DirFd.open(p, { create: true }))),
    remove: (p, options) =>
      sys("delete", p, () =>
        DirFd.withParent(p, (dir, name) =>
          options?.recursive === true ? DirFd.removeTreeAt(dir, name) : fs.unlinkSync(DirFd.at(dir, name))
        )
      ),
    rename: (from, to) =>
      sys("move", from, () =>
        DirFd.withParent(from, (a, fromName) => DirFd.withParent(to, (b, toName) => fs.renameSync(DirFd.at(a, fromName), DirFd.at(b, toName))))
      ),
    chmod: (p, mode) => sys("chmod", p, () => DirFd.withParent(p, (dir, name) => DirFd.chmodAt(dir, name, mode))),
    symlink: (target, p) => sys("symlink", p, () => DirFd.withParent(p, (dir, name) => fs.symlinkSync(target, DirFd.at(dir, name))))
  })
})

export const layer = Layer.effect(FileSystem, make)
