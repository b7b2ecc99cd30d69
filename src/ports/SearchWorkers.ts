import { Context, type Effect, Schema, type Scope } from "effect"

/**
 * Where grep's own search of file content runs: away from the thread that answers calls (a worker thread), so a
 * pattern that backtracks for minutes (`(a+)+(?=b)` on a long line) holds no other call up, and a cancellation, a
 * deadline or a signal stops it (the worker is ended). The caller walks and judges; it hands over a folder's
 * regular files by name, and the worker opens each beneath the folder's descriptor (no link followed, as
 * FileSystem.scan does), searches its bytes as grep's LineSearch does, and answers with the hits.
 */
export interface SearchSpec {
  readonly pattern: string
  readonly ignoreCase: boolean
  /** `dev:ino` of protected files: passed over whatever name they are reached by. */
  readonly protectedInodes: ReadonlyArray<string>
  /** A hit's text is cut to this many characters and one more (the caller shows it cut). */
  readonly lineChars: number
  /**
   * At most this many hits come back per folder, the first by name then line (its names come sorted), the rest
   * only counted (`more`): grep shows the first `grepLimits.matches` of the whole tree, and no folder's later hits
   * can be among them. A log with a million matching lines is not cloned to the main thread.
   */
  readonly maxHits: number
}

export interface DirResult {
  /** `[index of the name, line, text]` for each matching line of a text file, the first `maxHits`. */
  readonly hits: ReadonlyArray<readonly [number, number, string]>
  /** Matching lines past `maxHits`, only counted. */
  readonly more: number
  /** The names (indexes) of binary files (a NUL in the first 8 KiB) that hold a match. */
  readonly binaryMatches: ReadonlyArray<number>
  /** The names (indexes) of every binary file met. */
  readonly binaries: ReadonlyArray<number>
  /** The names (indexes) of files with a line longer than grep keeps, searched in part. */
  readonly longLines: ReadonlyArray<number>
  /** Names that could not be read. */
  readonly unreadable: ReadonlyArray<string>
}

export class SearchWorkerError extends Schema.TaggedError<SearchWorkerError>()("SearchWorkerError", {
  /** "unavailable": the composition has no worker (grep then searches on the calling thread); "failed": it broke. */
  kind: Schema.Literal("unavailable", "failed"),
  reason: Schema.String
}) {
  override get message() {
    return `grep's search worker failed: ${this.reason}`
  }
}

/** One search (one call): folders searched in turn by one worker, several in flight. */
export interface SearchSession {
  /** The files `names` of the absolute folder `dir`; fails when the worker breaks (never for a file it cannot read). */
  readonly searchDir: (dir: string, names: ReadonlyArray<string>) => Effect.Effect<DirResult, SearchWorkerError>
}

export interface SearchWorkersShape {
  /** A session for one search; closing its scope with work still under way ends the worker. */
  readonly open: (spec: SearchSpec) => Effect.Effect<SearchSession, SearchWorkerError, Scope.Scope>
}

export class SearchWorkers extends Context.Tag("minicode/SearchWorkers")<SearchWorkers, SearchWorkersShape>() {}
