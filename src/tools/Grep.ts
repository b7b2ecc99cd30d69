/**
 * grep over the workspace: the walk (Walk.ts: .gitignore honoured, .git never entered, no symlink followed) hands
 * over each directory's regular files; names the jail protects (secrets, minicode state) are never opened; the
 * rest are read through `FileSystem.scan` (one directory descriptor, four syscalls a file, chunks of at most
 * 1 MiB, so a big file is streamed, never skipped) and searched as bytes (LineSearch.ts). A binary file that
 * matches is named as such; an unreadable one is counted. Matches come sorted by path, then line, capped at
 * `grepLimits.matches` with a visible count of the rest. Every `turnMs` it ends a scan after the current file and
 * lets the event loop turn, so a cancellation or a deadline lands between two files. When ripgrep is installed it
 * does the walk and the reading instead (GrepRipgrep.ts), and every path it returns is judged here as well.
 *
 * With `env.searchWorkers` (every Node composition) the reading and matching move to a worker thread: this thread
 * walks and judges and hands each folder's names over (several folders in flight); the call's scope ends the worker
 * when the call is cut short. A regex runs to its end once started, and one that backtracks for ever held the
 * thread that answers every other call (issue 40, item 7): in a worker, a cancellation, the deadline or a signal
 * ends it. Without one (in-memory compositions) the search runs here, a file at a time, as described above.
 */
import { Effect } from "effect"
import { ToolFailed } from "../domain/core/Errors.js"
import type { CallOf } from "../domain/core/Tools.js"
import * as Aliases from "../domain/jail/Aliases.js"
import * as Jail from "../domain/jail/Jail.js"
import * as NameScope from "../domain/jail/NameScope.js"
import * as P from "../domain/jail/PosixPath.js"
import { FileSystem } from "../ports/FileSystem.js"
import * as Progress from "../ports/Progress.js"
import * as ProtectedAliases from "../ports/ProtectedAliases.js"
import type { SearchSession, SearchWorkerError } from "../ports/SearchWorkers.js"
import type { Invocation, ToolOutput } from "../ports/ToolExecutor.js"
import type { Env } from "./FileTools.js"
import * as GrepResults from "./GrepResults.js"
import { grepLimits } from "./GrepResults.js"
import * as GrepRipgrep from "./GrepRipgrep.js"
import * as LineSearch from "./LineSearch.js"
import { breathe, walk, type WalkedDir } from "./Walk.js"

export { grepLimits } from "./GrepResults.js"

/**
 * ripgrep searches when the composition provides it (`env.textSearch`) and it can take the pattern; otherwise, or
 * when it is not installed after all, grep's own walk does (the same results: test/tools/Grep.engines.test.ts).
 */
export const grep = (env: Env, inv: Invocation, call: CallOf<"grep">): Effect.Effect<ToolOutput, ToolFailed> => {
  const engine = env.textSearch
  if (engine === undefined) return grepOwn(env, inv, call)
  return Effect.flatMap(GrepRipgrep.grep(env, engine, inv, call), (done) => (done === undefined ? grepOwn(env, inv, call) : Effect.succeed(done)))
}

/** A plain relative path (names joined by single slashes) under an absolute real folder. */
const under = (dir: string, rel: string): string => (dir === "/" ? `/${rel}` : `${dir}/${rel}`)

/** Folders of one walk step searched by the worker at once: it always has the next in hand. */
const inFlight = 8

const grepOwn = (env: Env, inv: Invocation, call: CallOf<"grep">) =>
  Effect.scoped(Effect.gen(function* () {
    const { fs, session } = env
    const facts = inv.resolved["path"]
    if (facts === undefined) return yield* Effect.dieMessage("the jail did not resolve path")
    const shown = Jail.shown(session, facts.lexical)
    if (!facts.exists) return yield* new ToolFailed({ tool: "grep", reason: `${shown} does not exist` })
    const m = LineSearch.matcher(call.args.pattern, call.args.ignore_case === true)
    const progress = yield* Progress.current
    const glob = call.args.glob
    const filter = glob === undefined ? undefined : GrepResults.globFilter(glob)
    // Protected content under other names (hard links, protected symlinks' targets): never opened.
    const aliases = yield* (env.aliases ?? ProtectedAliases.nothing).of(session.root, "all", { long: true })
    const found = GrepResults.collector()
    let bytesSinceTurn = 0
    let turnStarted = performance.now()
    /** Hands control back (a cancellation, another request) and starts a new turn. */
    const turn = Effect.zipRight(
      breathe,
      Effect.sync(() => {
        bytesSinceTurn = 0
        turnStarted = performance.now()
      })
    )
    // One search for every file (reset at each file's first chunk), the file's path made only when it is shown.
    let searchingIn = ""
    let searching = ""
    const search = LineSearch.fileSearch(m, (line, text) => {
      found.hit(searchingIn + searching, line, text)
      return true
    })
    // A protected file's content under a path the scan does not know (a copy an exposed call left, renamed by the
    // user since: the exposed list (`Exposed`) lists it by inode too), judged by the descriptor read. Was a hole: grep's
    // own walk found the renamed copy by its new path, which no rule names.
    const protectedId = aliases.inodes.size > 0 ? (dev: number, ino: number) => aliases.inodes.has(Aliases.key(dev, ino)) : undefined
    const aliased = aliases.paths.size > 0 ? Aliases.byPath(aliases, session.root) : undefined
    // The worker's session (a thread this call's scope ends if the call is cut short), when the composition has one.
    const remote =
      env.searchWorkers === undefined
        ? undefined
        : yield* env.searchWorkers
            .open({ pattern: call.args.pattern, ignoreCase: call.args.ignore_case === true, protectedInodes: [...aliases.inodes], lineChars: grepLimits.lineChars, maxHits: grepLimits.matches })
            .pipe(
              Effect.map((s): SearchSession | undefined => s),
              Effect.catchIf((e) => e.kind === "unavailable", () => Effect.succeed(undefined)),
              Effect.mapError((e) => new ToolFailed({ tool: "grep", reason: e.message }))
            )
    /** The names of `dir` grep may open: the glob's, no protected name, no protected path under another name. */
    const namesIn = (dir: WalkedDir, prefix: string, abs: string) => {
      const judge = NameScope.protectedNameIn(abs, session.root)
      return dir.files.filter(
        (name) =>
          (filter === undefined || filter(prefix + name)) && judge(name) === undefined && (aliased === undefined || !aliases.paths.has(under(abs, name)))
      )
    }
    // The worker broke (it never does for a file it cannot read): the search stops and the call fails with why.
    let broken: SearchWorkerError | undefined
    const searchDirRemote = (dir: WalkedDir) =>
      Effect.gen(function* () {
        if (remote === undefined || broken !== undefined) return
        const prefix = dir.rel === "" ? "" : `${dir.rel}/`
        const abs = dir.rel === "" ? session.root : under(session.root, dir.rel)
        if (aliased !== undefined && aliased(abs)) return
        const names = namesIn(dir, prefix, abs)
        if (names.length === 0) return
        const r = yield* Effect.either(remote.searchDir(abs, names))
        if (r._tag === "Left") broken = r.left
        else GrepResults.takeAnswer(found, prefix, names, r.right)
      })
    const searchDir = (dir: WalkedDir) =>
      Effect.gen(function* () {
        const prefix = dir.rel === "" ? "" : `${dir.rel}/`
        // The walk's paths are plain (names joined by single slashes under the real root): joined as strings.
        const abs = dir.rel === "" ? session.root : under(session.root, dir.rel)
        // Protected paths under other names: the folder (or one above it) once, by the protected paths' prefixes
        // (`Aliases.byPath`: walking up each folder through `Aliases.reason` was ~110 ms and much of the walk's
        // garbage on the bench tree), then each file's own path. Was each file's folders walked up: 170 MB of garbage.
        if (aliased !== undefined && aliased(abs)) return
        const names = namesIn(dir, prefix, abs)
        let from = 0
        while (from < names.length) {
          const batch = names.slice(from, from + grepLimits.batch)
          let next = batch.length
          const missed = yield* fs
            .scan(abs, batch, (i, bytes, first, last) => {
              bytesSinceTurn += bytes.byteLength
              if (first) {
                searchingIn = prefix
                searching = batch[i] ?? ""
                search.reset()
              }
              const more = search.feed(bytes, first, last)
              if (more && !last) return true
              if (search.binaryMatch()) found.binary(prefix + (batch[i] ?? ""))
              if (search.longLine()) found.longLine(prefix + (batch[i] ?? ""))
              // Past the turn's time: end the scan after this file, let the event loop run, go on with the rest.
              if (performance.now() - turnStarted > grepLimits.turnMs || bytesSinceTurn >= grepLimits.bytesPerTurn) {
                next = i + 1
                return "stop"
              }
              return false
            }, protectedId)
            .pipe(Effect.orElseSucceed(() => batch))
          for (const name of missed) found.unreadable(prefix + name)
          from += next
          if (next < batch.length || performance.now() - turnStarted > grepLimits.turnMs) yield* turn
        }
      })
    // Each step of the walk's folders searched as it comes (the walk holds one step's listings, not the tree's).
    let listed = 0
    let searched = 0
    const noted = () => {
      if (progress.watched) progress.note(`grep: ${searched} files searched (${listed} listed so far), ${found.total()} matches`)
    }
    const searchDirs = (dirs: ReadonlyArray<WalkedDir>) =>
      Effect.gen(function* () {
        for (const dir of dirs) listed += dir.files.length
        if (remote !== undefined) {
          yield* Effect.forEach(
            dirs,
            (dir) =>
              Effect.tap(searchDirRemote(dir), () => {
                searched += dir.files.length
                noted()
              }),
            { concurrency: inFlight, discard: true }
          )
          return
        }
        for (const dir of dirs) {
          yield* searchDir(dir)
          searched += dir.files.length
          noted()
        }
      })
    if (progress.watched) progress.note("grep: listing files")
    const walked =
      facts.kind === "directory"
        ? yield* walk({
            root: session.root,
            start: facts.real,
            maxEntries: grepLimits.walkEntries,
            files: false,
            each: searchDirs,
            onProgress: progress.watched ? (n) => progress.note(`grep: listing files (${n} entries so far)`) : undefined
          }).pipe(Effect.provideService(FileSystem, fs))
        : yield* Effect.as(searchDirs([{ rel: P.relative(session.root, P.dirname(facts.real)), files: [P.basename(facts.real)] }]), { incomplete: false, unreadable: [] })
    if (broken !== undefined) return yield* new ToolFailed({ tool: "grep", reason: broken.message })
    for (const folder of walked.unreadable) found.unreadableFolder(folder)
    found.protectedLeft(aliases.paths, session.root, facts.real, filter)
    return found.finish(call.args.pattern, walked.incomplete)
  }))
