/**
 * The workspace file tools, over the FileSystem port. Every path they touch was resolved and judged by the jail;
 * they act on the resolved path and hand the adapter the identity the jail saw, so a swap in between is caught.
 */
import * as OutputSchemas from "../domain/mcp/OutputSchemas.js"
import { Effect, Either, Ref } from "effect"
import * as Edit from "../domain/files/Edit.js"
import { shownPath } from "../domain/files/ShownPath.js"
import { ToolFailed } from "../domain/core/Errors.js"
import * as Jail from "../domain/jail/Jail.js"
import * as P from "../domain/jail/PosixPath.js"
import type { CallOf } from "../domain/core/Tools.js"
import { capText } from "../domain/core/Truncate.js"
import { type Expect, FileSystem, type FileSystemShape, type FsError } from "../ports/FileSystem.js"
import type { SessionShape } from "../ports/Session.js"
import type { ProtectedAliasesShape } from "../ports/ProtectedAliases.js"
import type { SearchWorkersShape } from "../ports/SearchWorkers.js"
import type { TextSearchShape } from "../ports/TextSearch.js"
import type { Invocation, ToolOutput } from "../ports/ToolExecutor.js"
import * as Lru from "./Lru.js"
import * as ReadWindow from "./ReadWindow.js"
import { matcher } from "./PathGlob.js"
import { unreadableFoldersNote, walk } from "./Walk.js"

const decoder = new TextDecoder("utf-8")

export const limits = {
  readLines: 2000,
  lineChars: 2000,
  /** read_file reads a file up to this size whole (its line count known, its listing memoised); a larger one is streamed to the window's last line. */
  wholeBytes: 8 * 1024 * 1024,
  listEntries: 1000,
  globResults: 1000,
  walkEntries: 200_000,
  /** The listings kept for re-reads of unchanged bytes (see `ListingMemo`), weighed as their bytes plus two per char of text. */
  listingsEntries: 256,
  listingsWeight: 8 * 1024 * 1024
}

const failed = (tool: string) => (e: FsError) => new ToolFailed({ tool, reason: e.reason })

const out = (text: string, truncated = false): ToolOutput => ({ text, truncated })

/**
 * What the file tools run with: the session and the FileSystem, handed over by the executor once it is built (not
 * looked up in the context on every call).
 */
export interface Env {
  readonly session: SessionShape
  readonly fs: FileSystemShape
  /** Optional: without it every read builds its listing (same answers, slower re-reads). */
  readonly listings?: ListingMemo | undefined
  /** Optional: ripgrep, which grep then hands its walk to (every path it returns still judged). */
  readonly textSearch?: TextSearchShape | undefined
  /** Optional: protected content under other names (hard links, protected symlinks' targets); none without it. */
  readonly aliases?: ProtectedAliasesShape | undefined
  /**
   * Optional: where grep's own search reads and matches (a worker thread that a cancellation, a deadline or a signal
   * can end). Without it (the in-memory kernels of the tests) the search runs on the calling thread.
   */
  readonly searchWorkers?: SearchWorkersShape | undefined
}

/**
 * A memo of the listings `read_file` made, by file and range, with the bytes each was made from. A re-read still
 * opens, checks and reads the file; only when the bytes are the very same does it reuse the listing's text instead
 * of decoding, splitting and numbering them again. It hands out a fresh output each time: nothing downstream may
 * rely on getting the same object (no identity or frozen-object contract).
 *
 * Kept because it pays (the other result caches of `mcp serve` did not, and went): on `bench/mcp-serve.bench.ts`'s
 * workload (50 files read in turn), with no cache at all the server did 0.73× the sequential and 0.78× the 32-way
 * reads per second of the server with every cache; with this memo alone, 1.08× and 0.95× (5 paired rounds each).
 *
 * A listing is kept only for a file read again while its previous read is still among the last `listingsEntries`
 * (`seen` remembers just the keys): a sweep over more files than that keeps nothing, so it costs no memory churn.
 */
export interface ListingMemo {
  /** The text kept for `key` if it was made from exactly `bytes`. */
  readonly find: (key: string, bytes: Uint8Array) => Effect.Effect<ToolOutput | undefined>
  readonly keep: (key: string, bytes: Uint8Array, output: ToolOutput) => Effect.Effect<void>
}

interface Listed {
  readonly bytes: Uint8Array
  readonly text: string
  readonly truncated: boolean
}

export const makeListingMemo: Effect.Effect<ListingMemo> = Effect.map(
  Ref.make({
    kept: Lru.empty<string, Listed>({ maxEntries: limits.listingsEntries, maxWeight: limits.listingsWeight }),
    seen: Lru.empty<string, true>({ maxEntries: limits.listingsEntries, maxWeight: limits.listingsEntries * 8 })
  }),
  (state) => ({
    find: (key, bytes) =>
      Ref.modify(state, (l) => {
        const kept = Lru.get(l.kept, key)
        return [kept !== undefined && sameBytes(kept.bytes, bytes) ? out(kept.text, kept.truncated) : undefined, l] as const
      }),
    keep: (key, bytes, output) =>
      Ref.update(state, (l) => {
        if (Lru.get(l.seen, key) === undefined) Lru.set(l.seen, key, true, 1)
        else Lru.set(l.kept, key, { bytes: owned(bytes), text: output.text, truncated: output.truncated }, bytes.byteLength + output.text.length * 2)
        return l
      })
  })
)

/** memcmp through Node's Buffer (a Uint8Array is accepted): a JavaScript loop over 16 KiB costs ten times more. */
const sameBytes = (a: Uint8Array, b: Uint8Array) => a.byteLength === b.byteLength && Buffer.compare(a, b) === 0

/** A copy that owns its memory: a small Buffer is a view on a shared 8 KiB slab, which keeping it would pin. */
const owned = (bytes: Uint8Array) => (bytes.byteOffset === 0 && bytes.buffer.byteLength === bytes.byteLength ? bytes : bytes.slice())

const resolvedOf = (env: Env, inv: Invocation, field: string) => {
  const facts = inv.resolved[field]
  return facts === undefined
    ? Effect.dieMessage(`the jail did not resolve ${field}`)
    : Effect.succeed({ facts, shown: Jail.shown(env.session, facts.lexical) })
}

const identity = (facts: Jail.PathFacts): Expect => (facts.exists ? { dev: facts.dev, ino: facts.ino, nlink: facts.nlink } : "absent")
const unchanged = (facts: Jail.PathFacts): Expect =>
  facts.exists ? { dev: facts.dev, ino: facts.ino, mtimeMs: facts.mtimeMs } : "absent"

/** A write over what the jail saw: it must still be there unchanged, and a replaced file keeps the mode it had. */
const replacing = (facts: Jail.PathFacts) =>
  facts.kind === "file" ? { expect: unchanged(facts), mode: facts.mode } : { expect: unchanged(facts) }

const isBinary = (bytes: Uint8Array) => bytes.subarray(0, 8192).includes(0)


/** Said under line 1 of a file that starts with a BOM, which the listing does not show (the path is not named: listings are memoised). */
export const bomNote = "\n[the file starts with a UTF-8 byte order mark (EF BB BF), not shown above; edit_file and write_file keep it]"

const pads = ["", " ", "  ", "   ", "    ", "     "]

/** `cat -n` style: the line number right-aligned in six columns, a tab, the line (long lines cut, visibly). */
const numbered = (lines: ReadonlyArray<string>, first: number, cut?: ReadonlyArray<number | undefined>) => {
  // Joined once into a flat string (not grown by `+=` into a rope): it is what the caller serialises and may keep.
  const out = new Array<string>(lines.length)
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? ""
    const n = String(first + i)
    // `cut`: a line streamed in already cut to what is shown, with its whole length.
    const length = cut?.[i] ?? line.length
    const shown = length > limits.lineChars ? `${line.slice(0, limits.lineChars)} [truncated: line has ${length} chars]` : line
    out[i] = (pads[6 - n.length] ?? "") + n + "\t" + shown
  }
  return out.join("\n")
}

export const readFile = (env: Env, inv: Invocation, call: CallOf<"read_file">) =>
  Effect.gen(function* () {
    const fs = env.fs
    const { facts, shown } = yield* resolvedOf(env, inv, "path")
    if (facts.kind === "missing") return yield* new ToolFailed({ tool: "read_file", reason: `${shown} does not exist` })
    if (facts.kind === "directory") return yield* new ToolFailed({ tool: "read_file", reason: `${shown} is a directory: use list_dir` })
    const first = call.args.offset ?? 1
    const limit = call.args.limit ?? limits.readLines
    if (facts.size > limits.wholeBytes) return yield* streamed(env, facts.real, identity(facts), shown, first, limit, facts.size)
    const bytes = yield* fs.readFile(facts.real, identity(facts)).pipe(Effect.mapError(failed("read_file")))
    // The listing depends on the bytes and the range alone (messages naming the path are not kept).
    const key = `${first}:${limit}:${facts.real}`
    const kept = env.listings === undefined ? undefined : yield* env.listings.find(key, bytes)
    if (kept !== undefined) return kept
    if (isBinary(bytes)) return out(`[binary file ${shown}, ${bytes.byteLength} bytes]`)
    const text = decoder.decode(bytes)
    if (text === "") return out(`[${shown} is empty${Edit.hasBom(bytes) ? " but for a UTF-8 byte order mark (EF BB BF)" : ""}]`)
    const all = text.endsWith("\n") ? text.slice(0, -1).split("\n") : text.split("\n")
    if (first > all.length) {
      return yield* new ToolFailed({ tool: "read_file", reason: `offset ${first} is past the end: ${shown} has ${all.length} lines` })
    }
    const lines = all.slice(first - 1, first - 1 + limit)
    const last = first + lines.length - 1
    const body = numbered(lines, first)
    const more = last < all.length ? `\n[truncated: showing lines ${first}-${last} of ${all.length}; use offset/limit to read more]` : ""
    const output = out(body + (first === 1 && Edit.hasBom(bytes) ? bomNote : "") + more, more !== "")
    if (env.listings !== undefined) yield* env.listings.keep(key, bytes, output)
    return output
  })

/** A window of a file over `wholeBytes`, read to its last line and no further (`ReadWindow`). */
const streamed = (env: Env, real: string, expect: Expect, shown: string, first: number, limit: number, size: number) =>
  Effect.gen(function* () {
    const window = ReadWindow.reader(first, limit, limits.lineChars, env.session.maxOutputBytes)
    yield* env.fs.readChunks(real, window.push, expect).pipe(Effect.mapError(failed("read_file")))
    const w = window.end()
    switch (w._tag) {
      case "Binary":
        return out(`[binary file ${shown}, ${size} bytes]`)
      case "Empty":
        return out(`[${shown} is empty]`)
      case "PastEnd":
        return yield* new ToolFailed({ tool: "read_file", reason: `offset ${first} is past the end: ${shown} has ${w.lines} lines` })
      case "Lines": {
        const last = first + w.lines.length - 1
        const more =
          w.total === undefined
            ? `\n[truncated: showing lines ${first}-${last}; the file goes on (${size} bytes in all); use offset/limit to read more]`
            : last < w.total
              ? `\n[truncated: showing lines ${first}-${last} of ${w.total}; use offset/limit to read more]`
              : ""
        return out(numbered(w.lines, first, w.lengths) + (first === 1 && w.bom ? bomNote : "") + more, more !== "")
      }
    }
  })

/** A file's first bytes (its first chunk), for what its start says (a BOM). */
const head = (fs: FileSystemShape, facts: Jail.PathFacts) =>
  Effect.suspend(() => {
    let first: Uint8Array = new Uint8Array(0)
    return fs
      .readChunks(facts.real, (bytes) => ((first = bytes.slice(0, 3)), false), identity(facts))
      .pipe(Effect.mapError(failed("write_file")), Effect.map(() => first))
  })

export const writeFile = (env: Env, inv: Invocation, call: CallOf<"write_file">) =>
  Effect.gen(function* () {
    const fs = env.fs
    const { facts, shown } = yield* resolvedOf(env, inv, "path")
    if (facts.kind === "directory") return yield* new ToolFailed({ tool: "write_file", reason: `${shown} is a directory` })
    if (!facts.exists) yield* fs.makeDirectory(P.dirname(facts.real)).pipe(Effect.mapError(failed("write_file")))
    // The bytes the Journal stage recorded as intended, or, with no journal in the chain, made here the same way
    // (a replaced file's UTF-8 BOM kept: `Edit.written`).
    const previous = inv.written !== undefined || facts.kind !== "file" ? undefined : yield* head(fs, facts)
    const { bytes: data, bomKept } = inv.written ?? Edit.written(previous, call.args.content)
    yield* fs.writeFile(facts.real, data, replacing(facts)).pipe(Effect.mapError(failed("write_file")))
    return out(`${facts.exists ? "replaced" : "created"} ${shown} (${data.byteLength} bytes${bomKept ? ", its UTF-8 byte order mark kept" : ""})`)
  })

/** What an edit says about line endings when it compared them loosely. */
const loosely = (endings: string | undefined) =>
  endings === undefined ? "" : ` (line endings compared loosely, CRLF, LF and CR alike: the file has ${endings})`

export const editFile = (env: Env, inv: Invocation, call: CallOf<"edit_file">) =>
  Effect.gen(function* () {
    const fs = env.fs
    const { facts, shown } = yield* resolvedOf(env, inv, "path")
    if (facts.kind !== "file") return yield* new ToolFailed({ tool: "edit_file", reason: `${shown} ${facts.exists ? "is not a file" : "does not exist"}` })
    // Applied once: the outcome the Journal stage computed on its snapshot (the write below still checks that the
    // file is unchanged since the jail saw it), or, with no journal in the chain, on the bytes read here.
    const edited = inv.edited ?? Edit.applyTo(yield* fs.readFile(facts.real, identity(facts)).pipe(Effect.mapError(failed("edit_file"))), call.args)
    if (Either.isLeft(edited)) {
      const e = edited.left
      return yield* new ToolFailed({
        tool: "edit_file",
        reason:
          e._tag === "NotFound"
            ? `old_string was not found in ${shown}${loosely(e.endings)}${e.nearMatch ? " (it does match with different surrounding whitespace)" : ""}; read the file and copy the text exactly`
            : `old_string matches ${e.matches} times in ${shown}${loosely(e.endings)}; add surrounding context to make it unique, or set replace_all`
      })
    }
    const { after, replacements: n } = edited.right
    yield* fs.writeFile(facts.real, after, replacing(facts)).pipe(Effect.mapError(failed("edit_file")))
    return out(`edited ${shown}: ${n} replacement${n === 1 ? "" : "s"}`)
  })

export const listDir = (env: Env, inv: Invocation) =>
  Effect.gen(function* () {
    const fs = env.fs
    const { facts, shown } = yield* resolvedOf(env, inv, "path")
    if (facts.kind !== "directory") return yield* new ToolFailed({ tool: "list_dir", reason: `${shown} ${facts.exists ? "is not a directory" : "does not exist"}` })
    const entries = (yield* fs.readDir(facts.real).pipe(Effect.mapError(failed("list_dir")))).filter((e) => e.name !== ".minicode")
    const sorted = [...entries].sort((a, b) => (a.kind === "directory") === (b.kind === "directory") ? (a.name < b.name ? -1 : 1) : a.kind === "directory" ? -1 : 1)
    // A name with a control character (a newline forging a line, an ESC) is quoted as glob quotes it (`shownPath`).
    const shownEntries = sorted.slice(0, limits.listEntries).map((e) => e.kind === "directory" ? `${shownPath(e.name)}/` : e.kind === "symlink" ? `${shownPath(e.name)}@` : shownPath(e.name))
    const more = sorted.length > limits.listEntries ? `\n[truncated: ${sorted.length - limits.listEntries} more entries]` : ""
    const structured = OutputSchemas.listDirContent(sorted.slice(0, limits.listEntries), more !== "")
    if (sorted.length === 0) return { ...out(`[${shown} is empty]`), structured }
    return { ...out(shownEntries.join("\n") + more, more !== ""), structured }
  })

export const glob = (env: Env, inv: Invocation, call: CallOf<"glob">) =>
  Effect.gen(function* () {
    const session = env.session
    const { facts, shown } = yield* resolvedOf(env, inv, "path")
    if (facts.kind !== "directory") return yield* new ToolFailed({ tool: "glob", reason: `${shown} is not a directory` })
    const isMatch = matcher(call.args.pattern)
    const base = P.relative(session.root, facts.real)
    // Folders come workspace-relative; the pattern is relative to the glob's folder (each folder cut once).
    let folderIn = ""
    let folderBelow = ""
    const keep = (folder: string, name: string) => {
      if (base === "") return isMatch(folder, name)
      if (folder !== folderIn) {
        folderIn = folder
        folderBelow = folder.slice(base.length + 1)
      }
      return isMatch(folderBelow, name)
    }
    // One walk through descriptors (Walk.ts): every folder opened without following a link and listed once, so what
    // it finds and counts lies in the workspace as it is. Was a hole (red team), when glob walked by path and then
    // confirmed each hit: a count of the hits left out was an oracle on the names of a folder outside that bash swapped
    // in (`glob OUTSIDEN*` noted one, `OUTSIDEX*` none); a walk that never lists the outside folder has nothing to count.
    // Only the first globResults hits are kept and sorted; the rest are counted.
    const walked = yield* walk({ root: session.root, start: facts.real, maxEntries: limits.walkEntries, dirs: false, keep, first: limits.globResults }).pipe(
      Effect.provideService(FileSystem, env.fs)
    )
    const shownHits = walked.files
    const notes = [
      walked.matched > shownHits.length ? `[truncated: ${walked.matched - shownHits.length} more matches]` : "",
      walked.incomplete ? `[truncated: stopped after ${limits.walkEntries} entries]` : "",
      unreadableFoldersNote(walked.unreadable, "listed")
    ].filter((n) => n !== "")
    if (shownHits.length === 0) return out(`no files match ${call.args.pattern}${notes.length > 0 ? "\n" + notes.join("\n") : ""}`, notes.length > 0)
    return out([...shownHits.map(shownPath), ...notes].join("\n"), notes.length > 0)
  })

export const moveFile = (env: Env, inv: Invocation, call: CallOf<"move_file">) =>
  Effect.gen(function* () {
    const fs = env.fs
    const from = yield* resolvedOf(env, inv, "from")
    const to = yield* resolvedOf(env, inv, "to")
    if (!from.facts.exists && from.facts.kind !== "symlink") return yield* new ToolFailed({ tool: "move_file", reason: `${from.shown} does not exist` })
    if (to.facts.exists && call.args.overwrite !== true) {
      return yield* new ToolFailed({ tool: "move_file", reason: `${to.shown} already exists; pass overwrite: true to replace it` })
    }
    if (to.facts.kind === "directory") return yield* new ToolFailed({ tool: "move_file", reason: `${to.shown} is a directory; name the new path itself` })
    if (P.isInside(from.facts.entry, to.facts.entry)) return yield* new ToolFailed({ tool: "move_file", reason: `cannot move ${from.shown} into itself` })
    yield* fs.makeDirectory(P.dirname(to.facts.entry)).pipe(Effect.mapError(failed("move_file")))
    yield* fs.rename(from.facts.entry, to.facts.entry).pipe(Effect.mapError(failed("move_file")))
    return out(`moved ${from.shown} → ${to.shown}`)
  })

export const deleteFile = (env: Env, inv: Invocation) =>
  Effect.gen(function* () {
    const fs = env.fs
    const { facts, shown } = yield* resolvedOf(env, inv, "path")
    if (facts.kind === "missing") return yield* new ToolFailed({ tool: "delete_file", reason: `${shown} does not exist` })
    if (facts.kind === "directory") return yield* new ToolFailed({ tool: "delete_file", reason: `${shown} is a directory; delete_file removes files only` })
    yield* fs.remove(facts.entry).pipe(Effect.mapError(failed("delete_file")))
    return out(`deleted ${shown}`)
  })

/** The output itself when it fits, else a capped copy. */
export const cap = (output: ToolOutput, maxBytes: number): ToolOutput => {
  const capped = capText(output.text, maxBytes)
  return capped.truncated ? { ...output, text: capped.text, truncated: true } : output
}
