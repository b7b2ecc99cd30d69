/**
 * grep through ripgrep (the TextSearch port): rg walks and reads with every core, grep keeps the judging. Each path
 * rg returns is checked before anything from it is counted: workspace-relative with no `..`, not below a `.git` or
 * `.minicode` folder, not a name the jail protects (secrets, minicode state; rg was also told to leave those out),
 * matching the glob as grep's own walk matches it; and each file whose lines or name are shown, by `lstat`, is a
 * regular file whose every folder below the root is a real folder, not a symlink (a file that fails is taken back
 * whole). The files only counted in "[truncated: N more matches]" get the first checks, not the lstat. Results are
 * gathered exactly as the own walk gathers them (GrepResults.ts), so both show the same text.
 *
 * A race this check cannot see: rg opens files itself, by path, so a folder on a file's path swapped for a symlink
 * out of the workspace after rg listed it and before it opened the file (and swapped back before the `lstat` here)
 * would have rg read outside content. The composition runs rg inside the read-only sandbox whenever one is usable
 * (adapters/search/RipgrepSearch.ts, `wrap`), where such a link leads nowhere outside the workspace's own view;
 * grep's own walk (MINICODE_GREP=node) has no such window, since it opens each file beneath a held directory
 * descriptor with O_NOFOLLOW.
 *
 * A file rg names as binary is decided again by the own walk's rule (a NUL in the first 8 KiB, as git has it): rg
 * stops at the first NUL it reads, however far in, so a file whose first NUL comes later is searched here as text.
 *
 * Known differences from the own walk, outside what the test trees hold: with a sub-folder `path`, a .gitignore above the workspace root counts
 * for rg (at the root it is told not to look above); a folder named like a secret file (`x.pem/`) is left out whole.
 *
 * What rg cannot take (a pattern with no faithful Rust rewrite, rg missing): undefined, and grep's own walk runs.
 */
import { Effect, Either } from "effect"
import { ToolFailed } from "../domain/core/Errors.js"
import type { CallOf } from "../domain/core/Tools.js"
import * as RustRegex from "../domain/files/RustRegex.js"
import type * as Aliases from "../domain/jail/Aliases.js"
import * as Jail from "../domain/jail/Jail.js"
import * as P from "../domain/jail/PosixPath.js"
import * as Progress from "../ports/Progress.js"
import * as ProtectedAliases from "../ports/ProtectedAliases.js"
import type { SearchSession, SearchWorkersShape } from "../ports/SearchWorkers.js"
import type { SearchSpec, TextSearchError, TextSearchShape } from "../ports/TextSearch.js"
import type { Invocation, ToolOutput } from "../ports/ToolExecutor.js"
import type { Env } from "./FileTools.js"
import { pathJudge } from "./PathJudge.js"
import * as GrepResults from "./GrepResults.js"
import * as LineSearch from "./LineSearch.js"

/** Lines longer than this come cut from rg (enough bytes for `grepLimits.lineChars` characters of any UTF-8). */
const lineBytes = 4 * GrepResults.grepLimits.lineChars + 16

/** A glob rg can take as a file-name type (no `/`, no class): a prefilter; grep's own glob test still decides. */
const simpleNameGlob = (glob: string | undefined) => (glob !== undefined && /^[\w.*?{},@+-]+$/.test(glob) ? glob : undefined)

/** What the search gathered, before the `lstat` checks of the files it would show. */
interface Gathered {
  readonly found: GrepResults.Collector
  /** Each held file's hits, to take them back should it fail the check. */
  readonly counts: ReadonlyMap<string, number>
  /** The files rg named as binary, with how many of their lines it had shown or counted before it stopped. */
  readonly binaries: ReadonlyMap<string, number>
}

/**
 * One rg run, streamed into the results as rg finds them (at most four caps' worth kept), each path judged by its
 * name and by `aliases` (the lexical check); `scanSince` tells the sandbox which scan its mask may come from.
 */
const gather = (
  fs: Env["fs"],
  engine: TextSearchShape,
  spec: Omit<SearchSpec, "scanSince">,
  filter: ((file: string) => boolean) | undefined,
  aliases: Aliases.Protected,
  scanSince: number
): Effect.Effect<Either.Either<Gathered, TextSearchError>> =>
  Effect.gen(function* () {
    const judge = pathJudge(fs, spec.root, aliases)
    const found = GrepResults.collector()
    const progress = yield* Progress.current
    if (progress.watched) progress.note("grep: searching with ripgrep")
    const counts = new Map<string, number>()
    const binaries = new Map<string, number>()
    // rg writes each file's output at once, its binary note after its lines: the lines of the file in hand so far.
    let linesOf: string | undefined
    let lines = 0
    const lineOf = (file: string, n: number) => {
      if (file !== linesOf) {
        linesOf = file
        lines = 0
      }
      lines += n
    }
    // A file's lines come together: its verdict is kept for the next event.
    let lastFile: string | undefined
    let lastVerdict = false
    let lastNoted: string | undefined
    const admit = (file: string) => {
      if (file !== lastFile) {
        lastFile = file
        lastVerdict = judge.lexical(file) && (filter === undefined || filter(file))
      }
      return lastVerdict
    }
    const ran = yield* Effect.either(
      engine.search({ ...spec, scanSince }, (e) => {
        // A folder rg could not list: said by its workspace-relative path (no content of it is shown), whatever it is.
        if (e._tag === "Unreadable" && e.folder) {
          if (plainRel(e.file)) found.unreadableFolder(e.file)
          return undefined
        }
        // A file left out, or whose next lines could not be shown: the engine only counts the rest of its lines.
        if (!admit(e.file)) return "skip"
        if (progress.watched && e.file !== lastNoted) {
          lastNoted = e.file
          progress.note(`grep: ${found.total()} matches so far (ripgrep, now in ${e.file})`)
        }
        // Counted per file only once a line of it is held: a file whose first line is beyond (its lines come in
        // order) can never be shown, so never taken back, and 25,000 such files need no entry.
        if (e._tag === "Match") {
          lineOf(e.file, 1)
          const held = counts.get(e.file)
          if (found.beyond(e.file, e.line)) {
            found.counted()
            if (held !== undefined) counts.set(e.file, held + 1)
            return "skip"
          }
          counts.set(e.file, (held ?? 0) + 1)
          found.hit(e.file, e.line, e.text(), e.cut, true)
        } else if (e._tag === "Counted") {
          lineOf(e.file, e.lines)
          const held = counts.get(e.file)
          if (held !== undefined) counts.set(e.file, held + e.lines)
          found.counted(e.lines)
        } else if (e._tag === "Binary") binaries.set(e.file, e.file === linesOf ? lines : 0)
        else found.unreadable(e.file)
        return undefined
      })
    )
    return Either.map(ran, (): Gathered => ({ found, counts, binaries }))
  })

/** A workspace-relative path made of plain names: not absolute, no empty, `.` or `..` segment. */
const plainRel = (rel: string) => rel !== "" && rel.split("/").every((s) => s !== "" && s !== "." && s !== "..")

/**
 * The folders of the sandbox's mask that this process may not list, below the search's start: the sandbox masks a
 * folder its scan cannot see into (an empty read-only tmpfs in its place), so rg, inside, finds it empty and says
 * nothing; grep's own walk names it. Told here as the own walk tells it. A protected folder that can be listed (a
 * secret's folder) is not one of them.
 */
const maskedUnreadable = (fs: Env["fs"], root: string, start: string, aliases: Aliases.Protected, found: GrepResults.Collector) =>
  Effect.forEach(
    [...aliases.paths].filter((p) => p.startsWith(`${root}/`) && (start === "" || p === P.join(root, start) || p.startsWith(`${P.join(root, start)}/`))),
    (p) =>
      Effect.flatMap(Effect.either(fs.readDir(p)), (listed) =>
        Effect.sync(() => {
          if (listed._tag === "Left" && (listed.left.code === "EACCES" || listed.left.code === "EPERM")) found.unreadableFolder(P.relative(root, p))
        })
      ),
    { discard: true }
  )

/**
 * The lstat check for every file whose content is shown (a failing one is taken back, and the next in line checked
 * in turn), judged with `aliases` (a scan of this call's: the inodes of protected files as they are now); the
 * others' lines are only counted, and passed the lexical and name checks.
 */
const finish = (env: Env, start: string, g: Gathered, aliases: Aliases.Protected, m: LineSearch.Matcher, call: CallOf<"grep">, filter: ((file: string) => boolean) | undefined) =>
  Effect.scoped(Effect.gen(function* () {
    const { fs } = env
    const root = env.session.root
    const pattern = call.args.pattern
    const judge = pathJudge(fs, root, aliases)
    const { found } = g
    yield* maskedUnreadable(fs, root, start, aliases, found)
    let unsafe = 0
    const checked = new Set<string>()
    // The worker's session, opened for the first file that needs one.
    let worker: SearchSession | undefined
    for (const [file, lines] of g.binaries) {
      checked.add(file)
      // rg's lines of it (those before the NUL it found) are taken back either way.
      found.drop(file, lines)
      if (!(yield* judge.real(file))) {
        unsafe++
        continue
      }
      // Binary as git and grep's own walk decide: a NUL in the first 8 KiB. rg decides on what it has read so far,
      // so a file whose first NUL comes later came back as binary, with only its lines before that NUL: such a
      // file is searched here, whole, as text. Was a difference between the engines (a NUL after 1 MB).
      if (env.searchWorkers !== undefined && worker === undefined) worker = yield* openWorker(env.searchWorkers, call, aliases)
      const own = worker === undefined ? yield* searchText(fs, root, file, m, found) : yield* searchInWorker(worker, root, file, found)
      if (own === "binary") found.binary(file)
      else if (own === "unreadable") found.unreadable(file)
    }
    for (;;) {
      const pending = [...found.shownFiles()].filter((f) => !checked.has(f))
      if (pending.length === 0) break
      for (const file of pending) {
        checked.add(file)
        if (yield* judge.real(file)) continue
        unsafe++
        found.drop(file, g.counts.get(file) ?? 0)
      }
    }
    if (unsafe > 0) found.note(`[${unsafe} file${unsafe === 1 ? "" : "s"} left out: not a regular file beneath real folders of the workspace when checked]`)
    found.protectedLeft(aliases.paths, root, P.resolve(root, start), filter)
    return found.finish(pattern, false)
  }))

const openWorker = (workers: SearchWorkersShape, call: CallOf<"grep">, aliases: Aliases.Protected) =>
  workers
    .open({ pattern: call.args.pattern, ignoreCase: call.args.ignore_case === true, protectedInodes: [...aliases.inodes], lineChars: GrepResults.grepLimits.lineChars, maxHits: GrepResults.grepLimits.matches })
    .pipe(
      Effect.map((s): SearchSession | undefined => s),
      Effect.catchIf((e) => e.kind === "unavailable", () => Effect.succeed(undefined)),
      Effect.mapError((e) => new ToolFailed({ tool: "grep", reason: e.message }))
    )

/** `searchText` in the worker (where a cancellation can stop a regex that backtracks for minutes). */
const searchInWorker = (session: SearchSession, root: string, file: string, found: GrepResults.Collector) =>
  Effect.map(
    session.searchDir(P.dirname(P.join(root, file)), [P.basename(file)]).pipe(Effect.mapError((e) => new ToolFailed({ tool: "grep", reason: e.message }))),
    (r) => {
      if (r.unreadable.length > 0) return "unreadable" as const
      if (r.binaries.length > 0) return "binary" as const
      // The file's folder as grep shows paths: "" at the root, else workspace-relative with a final `/`.
      GrepResults.takeAnswer(found, file.slice(0, file.lastIndexOf("/") + 1), [file.slice(file.lastIndexOf("/") + 1)], r)
      return "text" as const
    }
  )

/**
 * One file (already judged) searched as grep's own walk searches it (LineSearch.ts, its hits into `found`): "binary"
 * as soon as its first chunk shows it is one, without reading on.
 */
const searchText = (fs: Env["fs"], root: string, file: string, m: LineSearch.Matcher, found: GrepResults.Collector) =>
  Effect.gen(function* () {
    let binary = false
    const search = LineSearch.fileSearch(m, (line, text) => {
      found.hit(file, line, text)
      return true
    })
    const missed = yield* fs
      .scan(P.dirname(P.join(root, file)), [P.basename(file)], (_i, bytes, first, last) => {
        const more = search.feed(bytes, first, last)
        if (first && search.binary()) {
          binary = true
          return false
        }
        if (last || !more) {
          if (search.longLine()) found.longLine(file)
          return false
        }
        return true
      })
      .pipe(Effect.orElseSucceed(() => [file]))
    return missed.length > 0 ? ("unreadable" as const) : binary ? ("binary" as const) : ("text" as const)
  })

export const grep = (env: Env, engine: TextSearchShape, inv: Invocation, call: CallOf<"grep">): Effect.Effect<ToolOutput | undefined, ToolFailed> =>
  Effect.gen(function* () {
    const { fs, session } = env
    const facts = inv.resolved["path"]
    if (facts === undefined || !facts.exists) return undefined
    const pattern = RustRegex.fromJs(call.args.pattern)
    if (pattern === undefined) return undefined
    const m = LineSearch.matcher(call.args.pattern, call.args.ignore_case === true)
    const root = session.root
    const start = P.relative(root, facts.real)
    if (start.startsWith("..")) return undefined
    const glob = call.args.glob
    const filter = glob === undefined ? undefined : GrepResults.globFilter(glob)
    const spec = { root, path: start, pattern, ignoreCase: call.args.ignore_case === true, nameGlob: simpleNameGlob(glob), exclude: Jail.alwaysSecretGlobs, lineBytes }
    const aliases = env.aliases ?? ProtectedAliases.nothing
    const done = (ran: Either.Either<Gathered, TextSearchError>, checked: Aliases.Protected) =>
      // Not installed, a pattern it rejects, or it broke: grep's own walk answers.
      ran._tag === "Left" ? Effect.succeed(undefined) : finish(env, start, ran.right, checked, m, call, filter)
    // In turn: the scan asked for the aliases (started now), then rg, whose sandbox takes that same scan.
    const inTurn = Effect.suspend(() => {
      const scanSince = performance.now()
      return Effect.flatMap(aliases.of(root, "all", { long: true }), (fresh) => Effect.flatMap(gather(fs, engine, spec, filter, fresh, scanSince), (ran) => done(ran, fresh)))
    })
    const known = yield* aliases.known(root)
    if (known === undefined) return yield* inTurn
    // Side by side: rg starts in a sandbox masked as the last scan found the workspace, while this call's scan
    // checks it (~80 ms on the bench tree). The same version after it: every scan since found the same to hide, so
    // the mask was this call's. Else everything gathered is dropped and the search runs again in turn, masked as
    // the workspace is now: rg read what the old mask showed, and a new secret's content could have reached it
    // under another name (a folder swapped for a symlink as it walked), which no check of the path shown can see.
    const [first, checked] = yield* Effect.all(
      [
        gather(fs, engine, spec, filter, known.aliases, Number.NEGATIVE_INFINITY),
        Effect.zipRight(
          // After rg's start: the scan holds the event loop while it runs.
          Effect.yieldNow(),
          Effect.suspend(() => {
            const askedAt = performance.now()
            return Effect.flatMap(aliases.of(root, "all", { long: true }), (fresh) =>
              Effect.map(aliases.known(root), (now) => ({ fresh, same: now !== undefined && now.startedAt >= askedAt && now.version === known.version }))
            )
          })
        )
      ],
      { concurrency: 2 }
    )
    // A sandbox the old mask could not build (a folder it pins is gone) is no reason to leave rg.
    if (checked.same && !(first._tag === "Left" && first.left.kind === "failed")) return yield* done(first, checked.fresh)
    return yield* inTurn
  })
