/**
 * `repo_map`: walks the (jailed) directory honouring .gitignore, outlines each source file (a tree-sitter outliner
 * when one is given and knows the language, else the regex fallback; `mode: "regex"` forces the fallback), ranks
 * files by how much the rest imports them and prints the map within the size budget. Outlines are cached in
 * `<workspace>/.minicode/repomap.json`, keyed by path and content hash: an unchanged file is never parsed twice.
 */
import { Effect, Option, Schema } from "effect"
import { ToolFailed } from "../domain/core/Errors.js"
import * as Jail from "../domain/jail/Jail.js"
import * as P from "../domain/jail/PosixPath.js"
import * as RepoMap from "../domain/repomap/RepoMap.js"
import type { CallOf } from "../domain/core/Tools.js"
import { FileSystem } from "../ports/FileSystem.js"
import { Session } from "../ports/Session.js"
import type { Invocation, ToolOutput } from "../ports/ToolExecutor.js"
import type { Extension } from "../kernel/Executor.js"
import { walk } from "./Walk.js"

export const limits = { fileBytes: 512 * 1024, walkEntries: 100_000, files: 20_000 }

/** An outliner for the languages it has a grammar for (undefined for the others: the regex fallback runs). */
export type Outliner = (path: string, text: string) => Effect.Effect<RepoMap.Outline | undefined>

export interface Options {
  /** "regex" forces the fallback (MINICODE_REPOMAP=regex). */
  readonly mode?: "auto" | "regex"
  readonly outliner?: Outliner
  /** Name of the outliner, part of the cache key (an outline is reused only from the same outliner). */
  readonly outlinerName?: string
}

const SymbolLine = Schema.Struct({ line: Schema.Number, text: Schema.String })
const Entry = Schema.Struct({
  hash: Schema.String,
  parser: Schema.String,
  symbols: Schema.Array(SymbolLine),
  imports: Schema.Array(Schema.String)
})
const Cache = Schema.Struct({ version: Schema.Literal(1), files: Schema.Record({ key: Schema.String, value: Entry }) })
type Cache = typeof Cache.Type
const decodeCache = Schema.decodeUnknownOption(Schema.parseJson(Cache))

const decoder = new TextDecoder("utf-8")
const encoder = new TextEncoder()

export const cachePath = (root: string) => P.join(root, ".minicode", "repomap.json")

export const make = (options: Options = {}) =>
  Effect.gen(function* () {
    const session = yield* Session
    const fs = yield* FileSystem
    const jail: Jail.JailContext = { root: session.root, unrestricted: false }
    const useOutliner = options.mode !== "regex" && options.outliner !== undefined
    const parserName = useOutliner ? (options.outlinerName ?? "outliner") : "regex"

    const loadCache = fs.readFile(cachePath(session.root)).pipe(
      Effect.map((bytes) => Option.getOrElse(decodeCache(decoder.decode(bytes)), (): Cache => ({ version: 1, files: {} }))),
      Effect.orElseSucceed((): Cache => ({ version: 1, files: {} }))
    )
    const saveCache = (cache: Cache) =>
      fs.makeDirectory(P.dirname(cachePath(session.root))).pipe(
        Effect.zipRight(fs.writeFile(cachePath(session.root), encoder.encode(JSON.stringify(cache)))),
        Effect.ignore
      )

    const outline = (path: string, text: string): Effect.Effect<{ readonly outline: RepoMap.Outline; readonly parser: string }> =>
      useOutliner && options.outliner !== undefined
        ? Effect.map(options.outliner(path, text), (o) =>
            o === undefined ? { outline: RepoMap.extractRegex(path, text), parser: "regex" } : { outline: o, parser: parserName }
          )
        : Effect.succeed({ outline: RepoMap.extractRegex(path, text), parser: "regex" })

    const build = (inv: Invocation, call: CallOf<"repo_map">) =>
      Effect.gen(function* () {
        const facts = inv.resolved["path"]
        if (facts === undefined) return yield* Effect.dieMessage("the jail did not resolve path")
        const shown = Jail.display(session, facts.lexical)
        if (facts.kind !== "directory") return yield* new ToolFailed({ tool: "repo_map", reason: `${shown} is not a directory` })
        const walked = yield* walk({ root: session.root, start: facts.real, maxEntries: limits.walkEntries })
        const sources = walked.files
          .filter((f) => RepoMap.languageOf(f) !== undefined && Jail.checkLexical(jail, session.root, f, "read").ok)
          .slice(0, limits.files)
        const cache = yield* loadCache
        const fresh: Record<string, typeof Entry.Type> = {}
        let changed = false
        const outlines = new Map<string, RepoMap.Outline>()
        yield* Effect.forEach(
          sources,
          (file) =>
            Effect.gen(function* () {
              const abs = P.join(session.root, file)
              const stat = yield* fs.lstat(abs).pipe(Effect.option)
              if (Option.isNone(stat) || Option.isNone(stat.value) || stat.value.value.kind !== "file" || stat.value.value.size > limits.fileBytes) return
              const bytes = yield* fs.readFile(abs).pipe(Effect.option)
              if (Option.isNone(bytes) || bytes.value.subarray(0, 8192).includes(0)) return
              const text = decoder.decode(bytes.value)
              const hash = RepoMap.hash(text)
              const cached = cache.files[file]
              if (cached !== undefined && cached.hash === hash && (cached.parser === parserName || (!useOutliner && cached.parser === "regex"))) {
                fresh[file] = cached
                outlines.set(file, cached)
                return
              }
              const made = yield* outline(file, text)
              changed = true
              fresh[file] = { hash, parser: made.parser, symbols: made.outline.symbols, imports: made.outline.imports }
              outlines.set(file, made.outline)
            }),
          { concurrency: 16, discard: true }
        )
        // Entries of files outside this walk are kept; entries of files that vanished from it are dropped.
        const base = P.relative(session.root, facts.real)
        const kept = Object.fromEntries(Object.entries(cache.files).filter(([f]) => base !== "" && !f.startsWith(`${base}/`)))
        if (changed || Object.keys(cache.files).length !== Object.keys(kept).length + Object.keys(fresh).length) {
          yield* saveCache({ version: 1, files: { ...kept, ...fresh } })
        }
        const ranked = RepoMap.rank(outlines)
        const map = RepoMap.format(shown, ranked, outlines, call.args.max_chars ?? RepoMap.defaultMaxChars)
        const notes = walked.incomplete ? `\n[truncated: the walk stopped after ${limits.walkEntries} entries]` : ""
        const result: ToolOutput = { text: map.text + notes, truncated: map.truncated || notes !== "" }
        return result
      }).pipe(Effect.provideService(FileSystem, fs))

    const extension: Extension = (inv) => (inv.facts.call.tool === "repo_map" ? build(inv, inv.facts.call) : undefined)
    return extension
  })
