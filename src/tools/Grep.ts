/**
 * grep over the workspace: the walk (Walk.ts: .gitignore honoured, .git never entered, no symlink followed) hands
 * over each directory's regular files; names the jail protects (secrets, minicode state) are never opened; the
 * rest are read through `FileSystem.scan` (one directory descriptor, four syscalls a file, chunks of at most
 * 1 MiB, so a big file is streamed, never skipped) and searched as bytes (LineSearch.ts). A binary file that
 * matches is named as such; an unreadable one is counted. Matches come sorted by path, then line, capped at
 * `grepLimits.matches` with a visible count of the rest. Every `turnMs` it ends a scan after the current file and
 * lets the event loop turn, so a cancellation or a deadline lands between two files.
 */
import { Effect } from "effect"
import picomatch from "picomatch"
import { ToolFailed } from "../domain/core/Errors.js"
import type { CallOf } from "../domain/core/Tools.js"
import * as Jail from "../domain/jail/Jail.js"
import * as P from "../domain/jail/PosixPath.js"
import { FileSystem } from "../ports/FileSystem.js"
import * as Progress from "../ports/Progress.js"
import type { Invocation, ToolOutput } from "../ports/ToolExecutor.js"
import type { Env } from "./FileTools.js"
import * as LineSearch from "./LineSearch.js"
import { breathe, walk, type WalkedDir } from "./Walk.js"

export const grepLimits = {
  matches: 500,
  lineChars: 500,
  walkEntries: 200_000,
  /** Names read per `scan` call, and how much is read between two turns of the event loop. */
  batch: 256,
  /** How long a search runs before it lets the event loop turn (a cancellation lands within about that). */
  turnMs: 20,
  bytesPerTurn: 32 * 1024 * 1024,
  listedBinaries: 20
}

interface Hit {
  readonly file: string
  readonly line: number
  readonly text: string
}

const compare = (a: Hit, b: Hit) => (a.file === b.file ? a.line - b.line : a.file < b.file ? -1 : 1)

export const grep = (env: Env, inv: Invocation, call: CallOf<"grep">) =>
  Effect.gen(function* () {
    const { fs, session } = env
    const facts = inv.resolved["path"]
    if (facts === undefined) return yield* Effect.dieMessage("the jail did not resolve path")
    const shown = Jail.display(session, facts.lexical)
    if (!facts.exists) return yield* new ToolFailed({ tool: "grep", reason: `${shown} does not exist` })
    const m = LineSearch.matcher(call.args.pattern, call.args.ignore_case === true)
    const glob = call.args.glob
    const filter = glob === undefined ? undefined : picomatch(glob, { dot: true, matchBase: !glob.includes("/") })
    const walked =
      facts.kind === "directory"
        ? yield* walk({ root: session.root, start: facts.real, maxEntries: grepLimits.walkEntries }).pipe(Effect.provideService(FileSystem, fs))
        : { dirs: [{ rel: P.relative(session.root, P.dirname(facts.real)), files: [P.basename(facts.real)] }], incomplete: false }

    // Progress for whoever watches (a terminal, a client with a progress token): files searched of how many.
    const progress = yield* Progress.current
    const files = progress.watched ? walked.dirs.reduce((n, d) => n + d.files.length, 0) : 0
    let searched = 0
    if (progress.watched) progress.note(`grep: searching ${files} files`)
    let kept: Array<Hit> = []
    let total = 0
    const binaries: Array<string> = []
    const longLines: Array<string> = []
    const unreadable: Array<string> = []
    const keep = (hit: Hit) => {
      kept.push(hit)
      if (kept.length >= grepLimits.matches * 4) kept = kept.sort(compare).slice(0, grepLimits.matches)
    }
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
    const searchDir = (dir: WalkedDir) =>
      Effect.gen(function* () {
        const prefix = dir.rel === "" ? "" : `${dir.rel}/`
        const abs = dir.rel === "" ? session.root : P.join(session.root, dir.rel)
        const judge = Jail.protectedNameIn(abs, session.root)
        const names = dir.files.filter((name) => (filter === undefined || filter(prefix + name)) && judge(name) === undefined)
        let from = 0
        while (from < names.length) {
          const batch = names.slice(from, from + grepLimits.batch)
          let search: LineSearch.FileSearch | undefined
          let next = batch.length
          const missed = yield* fs
            .scan(abs, batch, (i, bytes, first, last) => {
              bytesSinceTurn += bytes.byteLength
              if (first) {
                const file = prefix + (batch[i] ?? "")
                search = LineSearch.fileSearch(m, (line, text) => {
                  total++
                  // Cut now (a minified file's line can be megabytes, and up to four caps' worth are held), and
                  // copied: a line split out of a decoded chunk is a view that would keep the whole chunk alive.
                  keep({ file, line, text: detach(text.length > grepLimits.lineChars ? `${text.slice(0, grepLimits.lineChars)} [truncated]` : text) })
                  return true
                })
              }
              const s = search
              if (s === undefined) return false
              const more = s.feed(bytes, first, last)
              if (more && !last) return true
              const file = prefix + (batch[i] ?? "")
              if (s.binaryMatch()) binaries.push(file)
              if (s.longLine()) longLines.push(file)
              // Past the turn's time: end the scan after this file, let the event loop run, go on with the rest.
              if (performance.now() - turnStarted > grepLimits.turnMs || bytesSinceTurn >= grepLimits.bytesPerTurn) {
                next = i + 1
                return "stop"
              }
              return false
            })
            .pipe(Effect.orElseSucceed(() => batch))
          for (const name of missed) unreadable.push(prefix + name)
          from += next
          searched += next
          if (progress.watched) progress.note(`grep: searched ${searched} of ${files} files, ${total} matches so far`)
          if (next < batch.length || performance.now() - turnStarted > grepLimits.turnMs) yield* turn
        }
      })
    for (const dir of walked.dirs) yield* searchDir(dir)
    const shownHits = kept.sort(compare).slice(0, grepLimits.matches)
    const lines = shownHits.map((h) => `${h.file}:${h.line}:${h.text}`)
    binaries.sort()
    const notes = [
      total > shownHits.length ? `[truncated: ${total - shownHits.length} more matches]` : "",
      ...binaries.slice(0, grepLimits.listedBinaries).map((f) => `[binary file ${f} matches]`),
      binaries.length > grepLimits.listedBinaries ? `[${binaries.length - grepLimits.listedBinaries} more binary files match]` : "",
      ...longLines.map((f) => `[${f} has a line over ${LineSearch.maxCarry} bytes: searched in its first ${LineSearch.maxCarry} bytes]`),
      unreadable.length > 0 ? `[${unreadable.length} unreadable file${unreadable.length === 1 ? "" : "s"} not searched: ${unreadable.slice(0, 5).join(", ")}${unreadable.length > 5 ? ", …" : ""}]` : "",
      walked.incomplete ? `[truncated: stopped after ${grepLimits.walkEntries} entries]` : ""
    ].filter((n) => n !== "")
    const truncated = total > shownHits.length || walked.incomplete || longLines.length > 0
    if (total === 0 && notes.length === 0) return out(`no matches for /${call.args.pattern}/`, false)
    if (total === 0) return out([`no text matches for /${call.args.pattern}/`, ...notes].join("\n"), truncated)
    return out([...lines, ...notes].join("\n"), truncated)
  })

/** A copy of `s` that shares no memory with the string it was cut from (V8 keeps a slice's parent alive). */
const detach = (s: string): string => (" " + s).slice(1)

const out = (text: string, truncated: boolean): ToolOutput => ({ text, truncated })
