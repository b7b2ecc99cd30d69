/**
 * The repo map's cache: per workspace file, the summary ranking needs and the outline the map last showed, keyed by
 * a stat signature (size, mtime, inode: an unchanged file is not even read) and a content hash (a file touched but
 * not changed is read, not re-summarised); the bytes are `domain/repomap/CacheFile`'s. It lives in the user's cache
 * folder (`$XDG_CACHE_HOME/minicode/repomap/<workspace hash>.bin`, else `~/.cache/…`), never in the workspace, so a
 * read-only session writes nothing there; a cache folder inside the workspace is written only in BUILD or EXECUTE.
 * A file this version cannot read (damaged, another version's, another workspace's) is ignored: the map is made
 * without it and the next save replaces it.
 */
import { Effect, Option } from "effect"
import * as P from "../domain/jail/PosixPath.js"
import * as CacheFile from "../domain/repomap/CacheFile.js"
import * as RepoMap from "../domain/repomap/RepoMap.js"
import * as Summary from "../domain/repomap/Summary.js"
import type { WorkMode } from "../domain/core/Modes.js"
import { FileSystem } from "../ports/FileSystem.js"

export type Entry = CacheFile.Entry
export type Cache = CacheFile.Cache

/** The cache file of a workspace under a cache folder. */
export const cacheFile = (cacheDir: string, root: string) => P.join(cacheDir, "repomap", `${RepoMap.hash(root)}.bin`)
/** Where the JSON cache of earlier versions was: removed when the new one is written. */
const legacyFile = (file: string) => file.replace(/\.bin$/, ".json")

export const empty = (root: string): Cache => ({ root, words: Summary.words(), files: {} })

export const load = (file: string | undefined, root: string) =>
  Effect.gen(function* () {
    if (file === undefined) return empty(root)
    const fs = yield* FileSystem
    const bytes = yield* fs.readFile(file).pipe(Effect.option)
    if (Option.isNone(bytes)) return empty(root)
    const cache = CacheFile.decode(bytes.value)
    // A hash collision between two workspaces must not hand one the other's outlines.
    return cache !== undefined && cache.root === root ? cache : empty(root)
  })

/** Whether this session may write the cache file: always outside the workspace, inside only in a writing mode. */
export const writable = (file: string, root: string, workMode: WorkMode) => !P.isInside(root, file) || workMode === "BUILD" || workMode === "EXECUTE"

export const save = (file: string | undefined, cache: Cache, workMode: WorkMode) =>
  Effect.gen(function* () {
    if (file === undefined || !writable(file, cache.root, workMode)) return false
    const fs = yield* FileSystem
    yield* fs.makeDirectory(P.dirname(file))
    // In chunks: the 60k-file bench tree's cache is 43 MB, and one buffer of it was the call's peak.
    yield* fs.writeFile(file, CacheFile.encodeChunks(cache), { mode: 0o600 })
    yield* fs.remove(legacyFile(file)).pipe(Effect.ignore)
    return true
  }).pipe(Effect.orElseSucceed(() => false))
