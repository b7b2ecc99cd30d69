/**
 * A tiny FileSystem adapter over node:fs for the journal's tests (the real NodeFileSystem lives in main).
 */
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { Effect, Layer, Option } from "effect"
import { type FileKind, FileSystem, FsError } from "../../src/ports/FileSystem.js"

const kindOf = (s: NodeFs.Stats): FileKind =>
  s.isFile() ? "file" : s.isDirectory() ? "directory" : s.isSymbolicLink() ? "symlink" : "other"

const attempt = <A>(op: string, path: string, f: () => A) =>
  Effect.try({
    try: f,
    catch: (cause) =>
      new FsError({
        op,
        path,
        code: cause instanceof Error && "code" in cause && typeof cause.code === "string" ? cause.code : "EIO",
        reason: String(cause)
      })
  })

export const layer = Layer.succeed(
  FileSystem,
  FileSystem.of({
    lstat: (path) =>
      attempt("lstat", path, () => {
        const s = NodeFs.lstatSync(path, { throwIfNoEntry: false })
        return s === undefined
          ? Option.none()
          : Option.some({ kind: kindOf(s), size: s.size, mode: s.mode, nlink: s.nlink, dev: s.dev, ino: s.ino, mtimeMs: s.mtimeMs })
      }),
    readlink: (path) => attempt("readlink", path, () => NodeFs.readlinkSync(path)),
    readFile: (path) => attempt("readFile", path, () => new Uint8Array(NodeFs.readFileSync(path))),
    writeFile: (path, data, options) =>
      attempt("writeFile", path, () => {
        const tmp = NodePath.join(NodePath.dirname(path), `.${NodePath.basename(path)}.${process.pid}.tmp`)
        NodeFs.writeFileSync(tmp, data, { mode: options?.mode ?? 0o644 })
        NodeFs.renameSync(tmp, path)
      }),
    readDir: (path) =>
      attempt("readDir", path, () =>
        NodeFs.readdirSync(path, { withFileTypes: true }).map((d) => ({
          name: d.name,
          kind: d.isFile() ? "file" : d.isDirectory() ? "directory" : d.isSymbolicLink() ? "symlink" : "other"
        }))),
    makeDirectory: (path) => attempt("makeDirectory", path, () => NodeFs.mkdirSync(path)),
    remove: (path, options) => attempt("remove", path, () => NodeFs.rmSync(path, { recursive: options?.recursive ?? false })),
    rename: (from, to) => attempt("rename", from, () => NodeFs.renameSync(from, to)),
    chmod: (path, mode) => attempt("chmod", path, () => NodeFs.chmodSync(path, mode))
  })
)
