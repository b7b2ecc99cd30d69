import { Context, type Effect, type Option, Schema } from "effect"

export type FileKind = "file" | "directory" | "symlink" | "other"

export interface FileStat {
  readonly kind: FileKind
  readonly size: number
  readonly mode: number
  readonly nlink: number
  readonly dev: number
  readonly ino: number
  readonly mtimeMs: number
  /** Last status change: a write, chmod, rename or link of the entry moves it (no caller can set it back). */
  readonly ctimeMs: number
}

/**
 * The identity a later open must still find (`fstat` after `O_NOFOLLOW`), or "absent" for a create. Writers add
 * the modification time, since a replaced file can reuse the inode number of the one it replaced. Readers add the
 * link count the jail judged the file by (`nlink`): a file with more links when opened is refused, as a hard link
 * made since may be a protected file's other name that the jail's answer did not look for.
 */
export type Expect = { readonly dev: number; readonly ino: number; readonly mtimeMs?: number; readonly nlink?: number } | "absent"

export interface DirEntry {
  readonly name: string
  readonly kind: FileKind
}

/**
 * Receives the content of one file of a `scan`, a chunk at a time and in order. `bytes` is the adapter's buffer,
 * valid only during the call (copy what you keep). Return false to stop reading that file, "stop" to end the scan
 * there (that file is closed and no later name is opened: the caller goes on with a new scan of the rest, which
 * is how a long search hands control back between files).
 */
export type ScanSink = (index: number, bytes: Uint8Array, first: boolean, last: boolean) => boolean | "stop"

/** One folder of a `walkTree`, as its own descriptor lists it. */
export interface TreeFolder {
  /** Relative to the walk's start ("" for the start itself). */
  readonly rel: string
  readonly entries: ReadonlyArray<DirEntry>
  /** A regular file of this folder read through the folder's descriptor (not followed); undefined when it is not one. */
  readonly read: (name: string) => Uint8Array | undefined
}

/** Hears one folder; returns the names of its subfolders to enter, listed in that order before the walk goes on (depth first). */
export type TreeVisit = (folder: TreeFolder) => ReadonlyArray<string>

/** A walk under way: it holds descriptors (the folders on the way down) until `close`. */
export interface TreeWalk {
  /** Lists up to `folders` folders more, each handed to `visit`; false when no folder is left. */
  readonly step: (folders: number, visit: TreeVisit) => Effect.Effect<boolean>
  /**
   * The folders met so far that could not be listed for want of permission (EACCES, EPERM), relative to the start
   * ("" for the start itself): the walk goes on without them, and says so. A folder gone or swapped for a link
   * mid-walk is not one of them (passed over without a word: it is not there to be read).
   */
  readonly unreadable: Effect.Effect<ReadonlyArray<string>>
  readonly close: Effect.Effect<void>
}

export class FsError extends Schema.TaggedError<FsError>()("FsError", {
  op: Schema.String,
  path: Schema.String,
  code: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `${this.op} ${this.path}: ${this.reason}`
  }
}

/**
 * What a write writes: one buffer, or chunks taken one at a time, each written before the next is asked for (a
 * producer may reuse one buffer for all of them), so a large file is never held whole.
 */
export type WriteData = Uint8Array | Iterable<Uint8Array>

/** The chunks of a write's data. */
export const chunksOf = (data: WriteData): Iterable<Uint8Array> => (data instanceof Uint8Array ? [data] : data)

/**
 * Absolute paths only: the jail has resolved them before any adapter sees them. Opens do not follow a final
 * symlink, and `expect` lets the adapter re-check that what it opened is what the jail validated.
 */
export interface FileSystemShape {
  readonly lstat: (path: string) => Effect.Effect<Option.Option<FileStat>, FsError>
  readonly readlink: (path: string) => Effect.Effect<string, FsError>
  readonly readFile: (path: string, expect?: Expect) => Effect.Effect<Uint8Array, FsError>
  /**
   * Reads a file from its start a chunk at a time, opened and re-checked as `readFile` opens it, for reading part
   * of a file too large to hold whole (read_file's window). `sink` hears each chunk in order (the adapter's buffer,
   * valid only during the call: copy what you keep) and returns false to stop reading there.
   */
  readonly readChunks: (path: string, sink: (bytes: Uint8Array) => boolean, expect?: Expect) => Effect.Effect<void, FsError>
  /**
   * Writes to a temporary file beside `path`, then renames it over: readers never see half a file. The data is one
   * buffer or a run of chunks (`WriteData`).
   */
  readonly writeFile: (
    path: string,
    data: WriteData,
    options?: { readonly mode?: number; readonly expect?: Expect }
  ) => Effect.Effect<void, FsError>
  readonly readDir: (path: string) => Effect.Effect<ReadonlyArray<DirEntry>, FsError>
  /**
   * Walks the folders below `start` through descriptors (one listing per folder, no second look): `start` opened as
   * `readDir` opens it, each folder below opened relative to its parent's descriptor without following a link (a
   * folder swapped for a symlink after its parent was listed fails that open and is passed over: `visit` never hears
   * of it), then listed through its own descriptor. For glob's and grep's walks.
   */
  readonly walkTree: (start: string) => Effect.Effect<TreeWalk, FsError>
  /**
   * Reads the regular files `names` of the directory `dir` in turn (for grep): the directory opened once, as
   * `readDir` opens it, and each name opened relative to it without following a link. A name that is a symlink, a
   * directory or anything but a regular file is passed over (the sink never hears of it); an empty file gives one
   * empty last chunk. Large files come in several chunks, so no file is ever held whole. Fails only when `dir`
   * cannot be opened; the names that could not be read (permissions, gone meanwhile) come back. `skip`: asked the
   * identity of each file as opened (its descriptor's, not its name's), passes over the file when true.
   */
  readonly scan: (dir: string, names: ReadonlyArray<string>, sink: ScanSink, skip?: (dev: number, ino: number) => boolean) => Effect.Effect<ReadonlyArray<string>, FsError>
  readonly makeDirectory: (path: string) => Effect.Effect<void, FsError>
  readonly remove: (path: string, options?: { readonly recursive?: boolean }) => Effect.Effect<void, FsError>
  readonly rename: (from: string, to: string) => Effect.Effect<void, FsError>
  readonly chmod: (path: string, mode: number) => Effect.Effect<void, FsError>
  /** Makes `path` a symlink to `target` (the text as given); fails when `path` exists. */
  readonly symlink: (target: string, path: string) => Effect.Effect<void, FsError>
}

export class FileSystem extends Context.Tag("minicode/FileSystem")<FileSystem, FileSystemShape>() {}
