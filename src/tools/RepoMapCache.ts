/**
 * The repo map's cache: per workspace file, the lexical scan ranking needs and the outline the map last showed,
 * keyed by a stat signature (size, mtime, inode: an unchanged file is not even read) and a content hash (a file
 * touched but not changed is read, not re-parsed). It lives in the user's cache folder
 * (`$XDG_CACHE_HOME/minicode/repomap/<workspace hash>.json`, else `~/.cache/…`), never in the workspace, so a
 * read-only session writes nothing there; a cache folder inside the workspace is written only in BUILD or EXECUTE.
 */
import { Effect, Option, Schema } from "effect"
import * as P from "../domain/jail/PosixPath.js"
import * as RepoMap from "../domain/repomap/RepoMap.js"
import type { WorkMode } from "../domain/core/Modes.js"
import { FileSystem } from "../ports/FileSystem.js"

const SymbolLine = Schema.Struct({ line: Schema.Number, text: Schema.String, name: Schema.optional(Schema.String) })
const Outline = Schema.Struct({ symbols: Schema.Array(SymbolLine), imports: Schema.Array(Schema.String) })
const Entry = Schema.Struct({
  stat: Schema.String,
  hash: Schema.String,
  scan: Schema.Struct({ ...Outline.fields, refs: Schema.String }),
  /** The outliner the outline was asked of (its cache key): set even when it gave up and the regex answered. */
  outliner: Schema.optional(Schema.String),
  /** Who produced the outline the map shows: "regex" or the outliner's name. */
  parser: Schema.String,
  outline: Schema.optional(Outline)
})
export type Entry = typeof Entry.Type
const Cache = Schema.Struct({ version: Schema.Literal(2), root: Schema.String, files: Schema.Record({ key: Schema.String, value: Entry }) })
export type Cache = typeof Cache.Type
const decodeCache = Schema.decodeUnknownOption(Schema.parseJson(Cache))

const decoder = new TextDecoder("utf-8")
const encoder = new TextEncoder()

/** The cache file of a workspace under a cache folder. */
export const cacheFile = (cacheDir: string, root: string) => P.join(cacheDir, "repomap", `${RepoMap.hash(root)}.json`)

export const empty = (root: string): Cache => ({ version: 2, root, files: {} })

export const load = (file: string | undefined, root: string) =>
  Effect.gen(function* () {
    if (file === undefined) return empty(root)
    const fs = yield* FileSystem
    const bytes = yield* fs.readFile(file).pipe(Effect.option)
    if (Option.isNone(bytes)) return empty(root)
    const cache = Option.getOrElse(decodeCache(decoder.decode(bytes.value)), () => empty(root))
    // A hash collision between two workspaces must not hand one the other's outlines.
    return cache.root === root ? cache : empty(root)
  })

/** Whether this session may write the cache file: always outside the workspace, inside only in a writing mode. */
export const writable = (file: string, root: string, workMode: WorkMode) => !P.isInside(root, file) || workMode === "BUILD" || workMode === "EXECUTE"

export const save = (file: string | undefined, cache: Cache, workMode: WorkMode) =>
  Effect.gen(function* () {
    if (file === undefined || !writable(file, cache.root, workMode)) return false
    const fs = yield* FileSystem
    yield* fs.makeDirectory(P.dirname(file))
    yield* fs.writeFile(file, encoder.encode(JSON.stringify(cache)), { mode: 0o600 })
    return true
  }).pipe(Effect.orElseSucceed(() => false))
