/**
 * `repo_map`: walks the (jailed) directory honouring .gitignore and maps every source file in it. Each file gets a
 * lexical scan, kept as a compact summary (`domain/repomap/Summary`: the names it defines and the identifiers it
 * mentions as ids into one words table, its imports, its symbol count; cached); ranking (`domain/repomap/Rank`)
 * runs PageRank over definitions and references across all of them, focused on the `focus` files when given; only
 * the files that can appear in the map are then read again and outlined by tree-sitter (the regex outline when the
 * outliner has no grammar, `mode: "regex"`, or a tree with syntax errors), and the budget is filled by a binary
 * search over the ranked symbols. Coverage is never silent: a file left out (too large, binary, a symlink,
 * unreadable, past the walk's budget) is counted and named with its reason. The cache (`RepoMapCache`) is in the
 * user's cache folder, never in the workspace. With `isolate` (app/RepoMapWorker) the map is made in a worker
 * process that exits after the call.
 */
import { Effect, Option } from "effect"
import { shownPath } from "../domain/files/ShownPath.js"
import { ToolFailed } from "../domain/core/Errors.js"
import * as Aliases from "../domain/jail/Aliases.js"
import * as Jail from "../domain/jail/Jail.js"
import * as P from "../domain/jail/PosixPath.js"
import * as Rank from "../domain/repomap/Rank.js"
import * as Render from "../domain/repomap/Render.js"
import * as RepoMap from "../domain/repomap/RepoMap.js"
import * as Summary from "../domain/repomap/Summary.js"
import type { CallOf } from "../domain/core/Tools.js"
import { FileSystem } from "../ports/FileSystem.js"
import { ProtectedAliases } from "../ports/ProtectedAliases.js"
import * as Progress from "../ports/Progress.js"
import { Session } from "../ports/Session.js"
import type { Invocation, ToolOutput } from "../ports/ToolExecutor.js"
import type { Extension } from "../kernel/Executor.js"
import * as Cache from "./RepoMapCache.js"
import { breathe, walk } from "./Walk.js"

export const limits = { fileBytes: 1024 * 1024, walkEntries: 200_000 }

/** An outliner for the languages it has a grammar for (undefined for the others: the regex fallback runs). */
export type Outliner = (path: string, text: string) => Effect.Effect<RepoMap.Outline | undefined>

/** What one call did, for tests and benchmarks. */
export interface Stats {
  readonly sources: number
  /** Files whose cached scan was reused (by stat, or by content hash after a touch). */
  readonly scanHits: number
  readonly scanned: number
  /** Candidate files whose cached outline was reused, and those outlined this call. */
  readonly outlineHits: number
  readonly outlined: number
  readonly excluded: number
  readonly cacheWritten: boolean
}

export interface Options {
  /** "regex" forces the fallback (MINICODE_REPOMAP=regex). */
  readonly mode?: "auto" | "regex"
  readonly outliner?: Outliner
  /** Name of the outliner, part of the cache key (an outline is reused only from the same outliner). */
  readonly outlinerName?: string
  /** The user's cache folder (`$XDG_CACHE_HOME/minicode`); undefined: nothing is cached between calls. */
  readonly cacheDir?: string | undefined
  readonly onStats?: (stats: Stats) => Effect.Effect<void>
  /**
   * Runs the map elsewhere (a worker process that exits after the call, so the parse's native trees and heap go
   * with it); undefined when it cannot, and the map is then made in this process.
   */
  readonly isolate?: Isolate
  /**
   * Called between the phases (after the scan, after the ranking is dropped): a worker that may collect garbage
   * (`--expose-gc`) does, so the phases' peaks do not add up.
   */
  readonly betweenPhases?: () => void
}

/** What a map needs beyond the session: the resolved folder and the call's arguments. */
export interface Request {
  /** The folder mapped, real path. */
  readonly start: string
  /** How the map's title names it. */
  readonly shown: string
  readonly args: { readonly focus?: ReadonlyArray<string> | undefined; readonly max_chars?: number | undefined }
  /**
   * Protected content under other names (`ProtectedAliases`: a protected symlink's target, a hard link to a
   * protected file), as the workspace scan found it for this call: never read, left out as denied by the jail.
   * Was a hole (issue 19): with `.env -> config/prod.ts`, read_file refused `config/prod.ts` and repo_map showed its
   * definitions.
   */
  readonly protect?: { readonly paths: ReadonlyArray<string>; readonly inodes: ReadonlyArray<string> } | undefined
}

export interface Result {
  readonly text: string
  readonly truncated: boolean
  readonly stats: Stats
}

export type Isolate = (request: Request, note: ((message: string) => void) | undefined) => Effect.Effect<Result | undefined>

const decoder = new TextDecoder("utf-8")

type Reason = "larger than 1 MB" | "binary" | "a symlink (not followed)" | "not a regular file" | "unreadable" | "denied by the jail"

const concat = (chunks: ReadonlyArray<Uint8Array>): Uint8Array => {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.byteLength, 0))
  let at = 0
  for (const c of chunks) out.set(c, at), (at += c.byteLength)
  return out
}

/** The coverage note: every file left out, by reason (the first few named), so the map is never silently partial. */
const coverage = (excluded: ReadonlyMap<Reason, ReadonlyArray<string>>, walkIncomplete: boolean): ReadonlyArray<string> => {
  const lines: Array<string> = []
  for (const [reason, files] of excluded) {
    const named = files.slice(0, 10).map(shownPath).join(", ")
    lines.push(`[not mapped: ${files.length} file${files.length === 1 ? "" : "s"} ${reason}: ${named}${files.length > 10 ? `, and ${files.length - 10} more` : ""}]`)
  }
  if (walkIncomplete) lines.push(`[not mapped: the walk stopped after ${limits.walkEntries} entries; files past it are not counted; map a subdirectory]`)
  return lines
}

/** The tool's extension and the map itself (`compute`, what a worker process runs). */
export const makeWith = (options: Options = {}) =>
  Effect.gen(function* () {
    const session = yield* Session
    const fs = yield* FileSystem
    const jail: Jail.JailContext = { root: session.root, unrestricted: false }
    const useOutliner = options.mode !== "regex" && options.outliner !== undefined
    const parserName = useOutliner ? (options.outlinerName ?? "outliner") : "regex"
    const cacheFile = options.cacheDir === undefined ? undefined : Cache.cacheFile(options.cacheDir, session.root)

    const statKey = (s: { readonly size: number; readonly mtimeMs: number; readonly ino: number }) => `${s.size}:${s.mtimeMs}:${s.ino}`

    /** One map, in this process: everything but resolving the call (a worker process runs this too). */
    const compute = (request: Request, note: ((message: string) => void) | undefined) =>
      Effect.gen(function* () {
        const { shown, start } = request
        const call = { args: request.args }
        const protect: Aliases.Protected = request.protect === undefined ? Aliases.none : { paths: new Set(request.protect.paths), inodes: new Set(request.protect.inodes) }
        note?.("repo_map: listing files")
        const walked = yield* walk({
          root: session.root,
          start,
          maxEntries: limits.walkEntries,
          onProgress: note === undefined ? undefined : (n) => note(`repo_map: listing files (${n} entries so far)`)
        })
        const cache = yield* Cache.load(cacheFile, session.root)
        const excluded = new Map<Reason, Array<string>>()
        const exclude = (reason: Reason, file: string) => {
          const list = excluded.get(reason)
          if (list === undefined) excluded.set(reason, [file])
          else list.push(file)
        }
        const fresh: Record<string, Cache.Entry> = {}
        const words = cache.words
        const summaries = new Map<string, Summary.Summary>()
        let sources = 0
        let scanHits = 0
        let changed = false
        const read = (abs: string) =>
          fs.readFile(abs).pipe(
            Effect.map((bytes) => (bytes.subarray(0, 8192).includes(0) ? ("binary" as const) : decoder.decode(bytes))),
            Effect.orElseSucceed(() => "unreadable" as const)
          )
        /** What became of one file of a folder's run: decided by its stat, or to be read (`read`). */
        type Step =
          | { readonly file: string; readonly name: string; readonly read: true; readonly key: string; readonly cached: Cache.Entry | undefined }
          | { readonly file: string; readonly read: false; readonly apply: () => void }
        /** A file's text, read: summarised unless binary, or reused from the cache when its content is unchanged. */
        const take = (step: Step & { readonly read: true }, bytes: Uint8Array) => {
          if (bytes.subarray(0, 8192).includes(0)) return exclude("binary", step.file)
          const text = decoder.decode(bytes)
          const hash = RepoMap.hash(text)
          changed = true
          if (step.cached !== undefined && step.cached.hash === hash) {
            fresh[step.file] = { ...step.cached, stat: step.key }
            summaries.set(step.file, step.cached.summary)
            scanHits++
            return
          }
          const summary = Summary.summarize(step.file, text, words)
          fresh[step.file] = { stat: step.key, hash, summary, parser: "regex" }
          summaries.set(step.file, summary)
        }
        const sourceFiles = walked.files.filter((file) => RepoMap.languageOf(file) !== undefined)
        // The files are taken in path order, a run of files of one folder at a time: each run's stats first, then the
        // files to read are read through one descriptor of their folder (`scan`), and every file's outcome (excluded,
        // cached, summarised) is applied in path order as the reads come in.
        for (let from = 0; from < sourceFiles.length; ) {
          const first = sourceFiles[from] ?? ""
          const dir = first.slice(0, Math.max(0, first.lastIndexOf("/")))
          const prefix = dir === "" ? "" : `${dir}/`
          let to = from + 1
          while (to < sourceFiles.length && to - from < 256) {
            const next = sourceFiles[to] ?? ""
            if (!next.startsWith(prefix) || next.indexOf("/", prefix.length) !== -1) break
            to++
          }
          const steps: Array<Step> = []
          for (let k = from; k < to; k++) {
            const file = sourceFiles[k] ?? ""
            sources++
            if (sources % 256 === 0) {
              note?.(`repo_map: ${sources} source files scanned (${walked.files.length} files listed)`)
              yield* breathe
            }
            if (!Jail.checkLexical(jail, session.root, file, "read").ok || (protect.paths.size > 0 && Aliases.reason(protect, session.root, P.join(session.root, file)) !== undefined)) {
              steps.push({ file, read: false, apply: () => exclude("denied by the jail", file) })
              continue
            }
            const stat = Option.flatten(yield* fs.lstat(P.join(session.root, file)).pipe(Effect.option))
            if (Option.isNone(stat)) {
              steps.push({ file, read: false, apply: () => exclude("unreadable", file) })
              continue
            }
            const st = stat.value
            if (st.kind !== "file") {
              const reason = st.kind === "symlink" ? "a symlink (not followed)" : "not a regular file"
              steps.push({ file, read: false, apply: () => exclude(reason, file) })
              continue
            }
            if (protect.inodes.size > 0 && protect.inodes.has(Aliases.key(st.dev, st.ino))) {
              steps.push({ file, read: false, apply: () => exclude("denied by the jail", file) })
              continue
            }
            if (st.size > limits.fileBytes) {
              steps.push({ file, read: false, apply: () => exclude("larger than 1 MB", file) })
              continue
            }
            const key = statKey(st)
            const cached = cache.files[file]
            if (cached !== undefined && cached.stat === key) {
              steps.push({
                file,
                read: false,
                apply: () => {
                  fresh[file] = cached
                  summaries.set(file, cached.summary)
                  scanHits++
                }
              })
              continue
            }
            steps.push({ file, name: file.slice(prefix.length), read: true, key, cached })
          }
          from = to
          const reads: Array<Step & { readonly read: true }> = []
          const readAt: Array<number> = []
          steps.forEach((step, k) => {
            if (step.read) reads.push(step), readAt.push(k)
          })
          // Applies the outcomes of the steps before `until` (a read step not read by then was unreadable).
          let applied = 0
          const applyUpTo = (until: number) => {
            for (; applied < until; applied++) {
              const step = steps[applied]
              if (step === undefined) continue
              if (step.read) exclude("unreadable", step.file)
              else step.apply()
            }
          }
          if (reads.length > 0) {
            let chunks: Array<Uint8Array> = []
            yield* fs
              .scan(dir === "" ? session.root : P.join(session.root, dir), reads.map((r) => r.name), (i, bytes, firstChunk, last) => {
                const step = reads[i]
                if (step === undefined) return false
                if (firstChunk) {
                  applyUpTo(readAt[i] ?? 0)
                  chunks = []
                }
                if (!(firstChunk && last)) chunks.push(bytes.slice())
                if (!last) return true
                take(step, firstChunk ? bytes : concat(chunks))
                chunks = []
                applied++
                return false
              })
              .pipe(Effect.orElseSucceed(() => []))
          }
          applyUpTo(steps.length)
        }

        const root = P.relative(session.root, start)
        const focusPaths = (call.args.focus ?? []).map((f) => P.relative(session.root, P.resolve(session.root, f)))
        const focus = new Set([...summaries.keys()].filter((f) => focusPaths.some((p) => f === p || (p === "" ? true : f.startsWith(`${p}/`)))))
        note?.(`repo_map: ranking the symbols of ${summaries.size} files`)
        options.betweenPhases?.()
        let ranking: Rank.Ranking | undefined = Rank.rankSummaries(summaries, words, focus)
        note?.("repo_map: outlining the top-ranked files")
        const maxChars = call.args.max_chars ?? Render.defaultMaxChars

        // Outline the files in rank order until their outlines hold well more than the budget: only what can be shown.
        const candidates: Array<{ readonly file: Rank.RankedFile; readonly outline: RepoMap.Outline }> = []
        let held = 0
        let outlineHits = 0
        let outlined = 0
        const none: RepoMap.Outline = { symbols: [], imports: [] }
        // A file's outline: the cached one when the same outliner made it, else the file is read again and outlined
        // (by the regex when the outliner has no answer, or in regex mode); a file changed since its summary was
        // taken shows nothing until the next call summarises it again.
        const outlineOf = (file: string, entry: Cache.Entry) =>
          Effect.gen(function* () {
            if (entry.outliner === parserName && entry.outline !== undefined) {
              outlineHits++
              return entry.outline
            }
            const text = yield* read(P.join(session.root, file))
            if (typeof text !== "string" || RepoMap.hash(text) !== entry.hash) return none
            outlined++
            changed = true
            const made = useOutliner && options.outliner !== undefined ? yield* options.outliner(file, text) : undefined
            const outline = made ?? RepoMap.extractRegex(file, text)
            fresh[file] = { stat: entry.stat, hash: entry.hash, summary: entry.summary, outliner: parserName, parser: made === undefined ? "regex" : parserName, outline }
            return outline
          })
        for (const file of ranking.files) {
          if (held > 3 * maxChars) break
          const entry = fresh[file.path]
          if (entry === undefined) continue
          if (note !== undefined && candidates.length % 32 === 0) note(`repo_map: outlining the top-ranked files (${candidates.length} so far)`)
          const outline = yield* outlineOf(file.path, entry)
          if (outline.symbols.length === 0) continue
          candidates.push({ file, outline: { symbols: outline.symbols, imports: outline.imports } })
          held += file.path.length + outline.symbols.reduce((n, s) => n + s.text.length + 8, 0)
        }
        const shownIndex = new Map(candidates.map((c) => [c.file.path, c.outline]))
        let totalFiles = 0
        let totalSymbols = 0
        for (const [file, summary] of summaries) {
          const n = shownIndex.get(file)?.symbols.length ?? summary.symbols
          if (n > 0) totalFiles++
          totalSymbols += n
        }


        const notes = coverage(excluded, walked.incomplete)
        const left = [...excluded.values()].reduce((n, l) => n + l.length, 0)
        const covered =
          left === 0 && !walked.incomplete
            ? `covers all ${sources} source files`
            : `covers ${sources - left} of ${sources} source files; left out:`
        const map = Render.render({
          title: shown,
          candidates,
          totalFiles,
          totalSymbols,
          symbolScore: ranking.symbolScore,
          coverage: covered,
          headerNotes: notes,
          focus: focusPaths,
          maxChars
        })
        // Saved once the ranking is garbage: the cache's bytes and the ranking's arrays are never held at once.
        ranking = undefined
        options.betweenPhases?.()
        // Entries of files outside this walk are kept; entries of files that vanished from it are dropped.
        // (A map of the whole workspace keeps none, and its fresh entries are saved as they are, not copied.)
        const kept = root === "" ? {} : Object.fromEntries(Object.entries(cache.files).filter(([f]) => !f.startsWith(`${root}/`)))
        const keptCount = Object.keys(kept).length
        const dropped = Object.keys(cache.files).length !== keptCount + Object.keys(fresh).length
        const files = keptCount === 0 ? fresh : { ...kept, ...fresh }
        const cacheWritten = changed || dropped ? yield* Cache.save(cacheFile, { root: session.root, words, files }, session.workMode) : false
        const stats: Stats = { sources, scanHits, scanned: summaries.size - scanHits, outlineHits, outlined, excluded: left, cacheWritten }
        const result: Result = { text: map.text, truncated: map.truncated || left > 0 || walked.incomplete, stats }
        return result
      }).pipe(Effect.provideService(FileSystem, fs))

    // The composition's scan of protected aliases (a worker process is given none: its parent sends what it found).
    const aliasesPort = yield* ProtectedAliases
    const build = (inv: Invocation, call: CallOf<"repo_map">) =>
      Effect.gen(function* () {
        const facts = inv.resolved["path"]
        if (facts === undefined) return yield* Effect.dieMessage("the jail did not resolve path")
        const shown = Jail.shown(session, facts.lexical)
        if (facts.kind !== "directory") return yield* new ToolFailed({ tool: "repo_map", reason: `${shown} is not a directory` })
        const progress = yield* Progress.current
        const note = progress.watched ? progress.note : undefined
        const found = yield* aliasesPort.of(session.root)
        const request: Request = {
          start: facts.real,
          shown,
          args: { focus: call.args.focus, max_chars: call.args.max_chars },
          protect: { paths: [...found.paths], inodes: [...found.inodes] }
        }
        const isolated = options.isolate === undefined ? undefined : yield* options.isolate(request, note)
        const result = isolated ?? (yield* compute(request, note))
        if (options.onStats !== undefined) yield* options.onStats(result.stats)
        const output: ToolOutput = { text: result.text, truncated: result.truncated }
        return output
      })

    const extension: Extension = (inv) => (inv.facts.call.tool === "repo_map" ? build(inv, inv.facts.call) : undefined)
    return { extension, compute }
  })

export const make = (options: Options = {}) => Effect.map(makeWith(options), (m) => m.extension)
