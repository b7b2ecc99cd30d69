import { Context, type Effect, Schema } from "effect"

/**
 * A fast external search engine over a directory tree (ripgrep), which grep may hand the walk and the reading to. It is given workspace-relative paths and returns workspace-relative paths: the caller judges every
 * one of them with the jail before it shows anything, and keeps its own walk as the fallback.
 *
 * The engine honours `.gitignore` files (nested ones, negations) in the workspace whether or not it is a git
 * repository, and no other ignore file; searches hidden files; never follows a symlink; never enters a folder
 * named `.git` or `.minicode`; and need not read what `exclude` names (globs, gitignore syntax, as spelled: a
 * prefilter, since the caller judges every path it is given, whatever its case).
 */
export interface SearchSpec {
  /** The workspace root (absolute): the engine runs there and answers relative to it. */
  readonly root: string
  /** Workspace-relative start, a folder or a file; "" for the root. */
  readonly path: string
  /** A pattern in the engine's own syntax (see domain/files/RustRegex.ts). */
  readonly pattern: string
  readonly ignoreCase: boolean
  /** A glob on file names only (a prefilter: it does not override the ignore rules), or undefined. */
  readonly nameGlob?: string | undefined
  readonly exclude: ReadonlyArray<string>
  /** Longer lines come cut to about this many bytes (`cut`). */
  readonly lineBytes: number
  /**
   * A sandbox's workspace scan that started at or after this moment (`performance.now()` of this process) may
   * serve the search: the caller's own scan of this call (grep asks the protected aliases first), not a second one.
   */
  readonly scanSince?: number | undefined
}

export type SearchEvent =
  /** `text` decodes the line when called, during the callback only (a line that cannot be shown is never decoded). */
  | { readonly _tag: "Match"; readonly file: string; readonly line: number; readonly text: () => string; readonly cut: boolean }
  /** `lines` more matching lines of `file`, only counted: what follows a Match the callback answered "skip" to. */
  | { readonly _tag: "Counted"; readonly file: string; readonly lines: number }
  /** A binary file (a NUL byte) that holds a match: only its name is given. */
  | { readonly _tag: "Binary"; readonly file: string }
  /** A file, or a folder (`folder`), the engine could not read: nothing in it was searched. */
  | { readonly _tag: "Unreadable"; readonly file: string; readonly folder: boolean }

/** Where to search and what to leave out: the part of a search that is not the pattern. */
export interface FilesSpec {
  readonly root: string
  readonly path: string
  readonly nameGlob?: string | undefined
  readonly exclude: ReadonlyArray<string>
}

export class TextSearchError extends Schema.TaggedError<TextSearchError>()("TextSearchError", {
  /** "unavailable": no engine (not installed); "unsupported": it cannot take this pattern; "failed": it broke. */
  kind: Schema.Literal("unavailable", "unsupported", "failed"),
  reason: Schema.String
}) {}

export interface TextSearchShape {
  readonly engine: string
  /**
   * Streams what the engine finds to `onEvent`, in no particular order (but a file's lines in order, one after
   * another); interruption stops the engine. `onEvent` answering "skip" to a Match means the file's next lines are
   * only to be counted: they then come as one Counted event, their numbers and text never parsed.
   */
  readonly search: (spec: SearchSpec, onEvent: (event: SearchEvent) => "skip" | void) => Effect.Effect<void, TextSearchError>
}

export class TextSearch extends Context.Tag("minicode/TextSearch")<TextSearch, TextSearchShape>() {}
