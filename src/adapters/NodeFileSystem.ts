/**
 * FileSystem on node:fs. Opens never follow a final symlink (O_NOFOLLOW), and after opening, the descriptor is
 * checked against what the jail validated: same device and inode, and on Linux the path the kernel reports for
 * the descriptor (so a parent directory swapped for a symlink between check and use is caught too).
 */
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as fsp from "node:fs/promises"
import * as path from "node:path"
import { Effect, Layer, Option } from "effect"
import { type DirEntry, type Expect, type FileKind, FileSystem, FsError, type FileStat } from "../ports/FileSystem.js"

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

/** Re-checks an open descriptor: identity as expected, and opened where we meant to open. */
const verify = (handle: fsp.FileHandle, p: string, expect: Expect | undefined, op: string) =>
  Effect.gen(function* () {
    const st = yield* Effect.tryPromise({ try: () => handle.stat(), catch: fail(op, p) })
    if (expect !== undefined && expect !== "absent" && (st.dev !== expect.dev || st.ino !== expect.ino)) {
      return yield* new FsError({ op, path: p, code: "ECHANGED", reason: "the file changed between check and use" })
    }
    if (procFd) {
      const actual = yield* Effect.tryPromise({ try: () => fsp.readlink(`/proc/self/fd/${handle.fd}`), catch: fail(op, p) })
      if (actual !== p) {
        return yield* new FsError({ op, path: p, code: "ECHANGED", reason: "a parent directory changed between check and use" })
      }
    }
    return st
  })

const withHandle = <A>(
  p: string,
  flags: number,
  mode: number | undefined,
  op: string,
  use: (handle: fsp.FileHandle) => Effect.Effect<A, FsError>
) =>
  Effect.acquireUseRelease(
    Effect.tryPromise({ try: () => fsp.open(p, flags, mode), catch: fail(op, p) }),
    use,
    (handle) => Effect.promise(() => handle.close())
  )

export const make = Effect.sync(() => {
  const lstat = (p: string) =>
    Effect.tryPromise({ try: () => fsp.lstat(p), catch: fail("lstat", p) }).pipe(
      Effect.map((s) => Option.some(toStat(s))),
      Effect.catchIf(
        (e) => e.code === "ENOENT" || e.code === "ENOTDIR",
        () => Effect.succeed(Option.none<FileStat>())
      )
    )

  const readFile = (p: string, expect?: Expect) =>
    withHandle(p, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW, undefined, "read", (handle) =>
      Effect.gen(function* () {
        const st = yield* verify(handle, p, expect, "read")
        if (st.isDirectory()) return yield* new FsError({ op: "read", path: p, code: "EISDIR", reason: "is a directory" })
        const buffer = yield* Effect.tryPromise({ try: () => handle.readFile(), catch: fail("read", p) })
        return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength)
      })
    )

  const writeFile = (p: string, data: Uint8Array, options: { readonly mode?: number; readonly expect?: Expect } = {}) =>
    Effect.gen(function* () {
      const dir = path.dirname(p)
      const tmp = path.join(dir, `.${path.basename(p)}.${randomBytes(6).toString("hex")}.minicode-tmp`)
      const flags = fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW
      // A replaced file keeps its mode unless the caller names one.
      const previous = options.mode === undefined ? yield* lstat(p) : Option.none<FileStat>()
      const mode = options.mode ?? (Option.isSome(previous) && previous.value.kind === "file" ? previous.value.mode : undefined)
      yield* withHandle(tmp, flags, mode ?? 0o644, "write", (handle) =>
        Effect.gen(function* () {
          yield* verify(handle, tmp, undefined, "write")
          yield* Effect.tryPromise({ try: () => handle.writeFile(data), catch: fail("write", p) })
          if (mode !== undefined) yield* Effect.tryPromise({ try: () => handle.chmod(mode), catch: fail("chmod", p) })
        })
      ).pipe(Effect.tapError(() => Effect.promise(() => fsp.rm(tmp, { force: true }))))
      const replace = Effect.gen(function* () {
        const expect = options.expect
        if (expect !== undefined) {
          const now = yield* lstat(p)
          const same =
            expect === "absent"
              ? Option.isNone(now)
              : Option.isSome(now) &&
                now.value.dev === expect.dev &&
                now.value.ino === expect.ino &&
                (expect.mtimeMs === undefined || now.value.mtimeMs === expect.mtimeMs)
          if (!same) {
            return yield* new FsError({ op: "write", path: p, code: "ECHANGED", reason: "the file changed between check and use" })
          }
        }
        yield* Effect.tryPromise({ try: () => fsp.rename(tmp, p), catch: fail("write", p) })
      })
      yield* replace.pipe(Effect.tapError(() => Effect.promise(() => fsp.rm(tmp, { force: true }))))
    })

  const readDir = (p: string) =>
    Effect.tryPromise({ try: () => fsp.readdir(p, { withFileTypes: true }), catch: fail("list", p) }).pipe(
      Effect.map((entries): ReadonlyArray<DirEntry> =>
        entries.map((e) => ({
          name: e.name,
          kind: e.isFile() ? "file" : e.isDirectory() ? "directory" : e.isSymbolicLink() ? "symlink" : "other"
        }))
      )
    )

  return FileSystem.of({
    lstat,
    readlink: (p) => Effect.tryPromise({ try: () => fsp.readlink(p), catch: fail("readlink", p) }),
    readFile,
    writeFile,
    readDir,
    makeDirectory: (p) =>
      Effect.tryPromise({ try: () => fsp.mkdir(p, { recursive: true }), catch: fail("mkdir", p) }).pipe(Effect.asVoid),
    remove: (p, options) =>
      Effect.tryPromise({
        try: () => (options?.recursive === true ? fsp.rm(p, { recursive: true }) : fsp.unlink(p)),
        catch: fail("delete", p)
      }),
    rename: (from, to) => Effect.tryPromise({ try: () => fsp.rename(from, to), catch: fail("move", from) }),
    chmod: (p, mode) => Effect.tryPromise({ try: () => fsp.chmod(p, mode), catch: fail("chmod", p) })
  })
})

export const layer = Layer.effect(FileSystem, make)
