/**
 * What grep found, gathered the same way whichever engine searched (its own walk in Grep.ts, or ripgrep in
 * GrepRipgrep.ts): the first `grepLimits.matches` hits by path then line (at most four caps' worth held at once),
 * a count of the rest, the binary files that match, long lines, unreadable files; then the one text both show.
 */
import picomatch from "picomatch"
import * as Visible from "../domain/core/Visible.js"
import { shownPath } from "../domain/files/ShownPath.js"
import * as P from "../domain/jail/PosixPath.js"
import * as OutputSchemas from "../domain/mcp/OutputSchemas.js"
import type { DirResult } from "../ports/SearchWorkers.js"
import type { ToolOutput } from "../ports/ToolExecutor.js"
import * as LineSearch from "./LineSearch.js"
import { unreadableFoldersNote } from "./Walk.js"
import * as PathGlob from "./PathGlob.js"
import { negatedClassesSkipSlash } from "./PathGlob.js"
import * as LinearGlob from "../domain/files/LinearGlob.js"

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

/** The last segment of a path as picomatch's `matchBase` takes it (after a trailing `/`, the one before it). */
const lastSegment = (path: string): string => {
  const slash = path.lastIndexOf("/")
  if (slash !== path.length - 1) return path.slice(slash + 1)
  return path.slice(path.lastIndexOf("/", slash - 1) + 1, slash)
}

/**
 * grep's `glob` as both engines test a workspace-relative path: picomatch with `dot` and `posix`, and for a glob with no `/`
 * its `matchBase` (the path's last segment). That case tests picomatch's own regex on the last segment here:
 * picomatch split each whole path on `/` to find it (rg names 12,205 files for the bench's regex).
 */
export const globFilter = (glob: string): ((file: string) => boolean) => {
  // As glob's (PathGlob.matcher): a plain glob is matched without a backtracking regex (issue 40).
  const linear = LinearGlob.parse(glob)
  if (linear !== undefined && LinearGlob.risky(linear)) {
    const m = PathGlob.matcher(glob)
    return (file) => {
      if (file === "") return false
      const cut = file.lastIndexOf("/") + 1
      return m(file.slice(0, cut), file.slice(cut))
    }
  }
  // `posix`: `[!a-z]` negates, as glob's (PathGlob) and the shell's (issue 40).
  if (glob.includes("/")) return picomatch(negatedClassesSkipSlash(glob), { dot: true, matchBase: false, posix: true })
  const re = picomatch.makeRe(negatedClassesSkipSlash(glob), { dot: true, matchBase: true, posix: true })
  return (file) => file !== "" && (file === glob || re.test(lastSegment(file)))
}

/**
 * The note saying how many protected paths at or below `start` (the workspace scan's: files and folders the jail
 * protects by name, and protected content under other names) grep left out without opening them, those `filter`
 * (grep's `glob`) takes; "" for none. Was silence (issue 40). The same for both engines, and the same whatever the
 * pattern: a count of protected files that matched would tell what they hold. Git's folder and minicode's state,
 * which grep never enters, are not counted; files an ignore rule leaves out may be.
 */
export const protectedNote = (
  paths: ReadonlySet<string>,
  root: string,
  start: string,
  filter: ((rel: string) => boolean) | undefined,
  said: ReadonlyArray<string> = []
): string => {
  let n = 0
  for (const p of paths) {
    if (p !== start && !P.isInside(start, p)) continue
    const rel = P.relative(root, p)
    if (rel === "" || rel.startsWith("../")) continue
    // A folder already said to be unreadable (the sandbox's scan masks such a folder whole) is not counted again.
    if (said.some((f) => f === "" || rel === f || rel.startsWith(`${f}/`))) continue
    if (rel.split("/").some((seg) => seg.toLowerCase() === ".git" || seg === ".minicode")) continue
    if (filter !== undefined && !filter(rel)) continue
    n++
  }
  return n === 0 ? "" : `[${n} protected path${n === 1 ? "" : "s"} left out, never opened: secrets by name, or protected content under another name]`
}

interface Hit {
  readonly file: string
  readonly line: number
  readonly text: string
}

const compare = (a: Hit, b: Hit) => (a.file === b.file ? a.line - b.line : a.file < b.file ? -1 : 1)

/** A copy of `s` that shares no memory with the string it was cut from (V8 keeps a slice's parent alive). */
const detach = (s: string): string => (" " + s).slice(1)

const out = (text: string, truncated: boolean): ToolOutput => ({ text, truncated })

export { shownPath }

export const collector = () => {
  let kept: Array<Hit> = []
  let total = 0
  const binaries: Array<string> = []
  const longLines: Array<string> = []
  const unreadable: Array<string> = []
  const unreadableFolders: Array<string> = []
  const notes: Array<string> = []
  /** The last hit held after the latest trim, once `matches` are held: anything after it is never shown. */
  let bound: Hit | undefined
  const trim = () => {
    kept = kept.sort(compare).slice(0, grepLimits.matches)
    bound = kept.length >= grepLimits.matches ? kept[kept.length - 1] : undefined
  }
  return {
    /** One matching line; `cut` when the engine already cut it (it is then long, shown cut either way). */
    hit: (file: string, line: number, text: string, cut = false, owned = false) => {
      total++
      // Cut now (a minified file's line can be megabytes, and up to four caps' worth are held), and copied unless
      // `owned` (decoded on its own): a line split out of a decoded chunk is a view that would keep the chunk alive.
      const long = cut || text.length > grepLimits.lineChars
      const shown = long ? `${text.slice(0, grepLimits.lineChars)} [truncated]` : text
      kept.push({ file, line, text: owned && !long ? shown : detach(shown) })
      if (kept.length >= grepLimits.matches * 4) trim()
    },
    /**
     * Whether a hit at (file, line) can no longer be shown: `matches` hits that sort before it are already held.
     * Such a hit is only counted (`counted`), its text never made.
     */
    beyond: (file: string, line: number) => bound !== undefined && (file === bound.file ? line > bound.line : file > bound.file),
    /** `lines` more hits beyond what can be shown (a file's lines come in order: once one is beyond, the rest are). */
    counted: (lines = 1) => {
      total += lines
    },
    /** Takes back the `count` hits of `file` (a path found unsafe after the search). */
    drop: (file: string, count: number) => {
      kept = kept.filter((h) => h.file !== file)
      total -= count
      // Hits past the old bound were only counted: with fewer held, the bound no longer holds.
      bound = undefined
    },
    /** The files whose lines `finish` would show now. */
    shownFiles: (): ReadonlySet<string> => {
      trim()
      return new Set(kept.map((h) => h.file))
    },
    binary: (file: string) => binaries.push(file),
    longLine: (file: string) => longLines.push(file),
    unreadable: (file: string) => unreadable.push(file),
    /** A folder that could not be listed ("" for the root): nothing in it was searched. */
    unreadableFolder: (folder: string) => unreadableFolders.push(folder),
    /** The protected-paths note (`protectedNote`), leaving out what the unreadable folders' note says already. */
    protectedLeft: (paths: ReadonlySet<string>, root: string, start: string, filter: ((rel: string) => boolean) | undefined) => {
      const left = protectedNote(paths, root, start, filter, unreadableFolders)
      if (left !== "") notes.push(left)
    },
    /** Matches so far (for progress notes). */
    total: () => total,
    /** A note of its own (shown after the others). */
    note: (text: string) => notes.push(text),
    finish: (pattern: string, walkIncomplete: boolean): ToolOutput => {
      const shownHits = kept.sort(compare).slice(0, grepLimits.matches)
      const lines = shownHits.map((h) => `${shownPath(h.file)}:${h.line}:${h.text}`)
      binaries.sort()
      unreadable.sort()
      const all = [
        total > shownHits.length ? `[truncated: ${total - shownHits.length} more matches]` : "",
        ...binaries.slice(0, grepLimits.listedBinaries).map((f) => `[binary file ${shownPath(f)} matches]`),
        binaries.length > grepLimits.listedBinaries ? `[${binaries.length - grepLimits.listedBinaries} more binary files match]` : "",
        ...longLines.map((f) => `[${shownPath(f)} has a line over ${LineSearch.maxCarry} bytes: searched in its first ${LineSearch.maxCarry} bytes]`),
        unreadable.length > 0 ? `[${unreadable.length} unreadable file${unreadable.length === 1 ? "" : "s"} not searched: ${unreadable.slice(0, 5).map(shownPath).join(", ")}${unreadable.length > 5 ? ", …" : ""}]` : "",
        unreadableFoldersNote(unreadableFolders, "searched"),
        walkIncomplete ? `[truncated: stopped after ${grepLimits.walkEntries} entries]` : "",
        ...notes
      ].filter((n) => n !== "")
      const truncated = total > shownHits.length || walkIncomplete || longLines.length > 0
      // The same hits as data (mcp serve's structuredContent); cut too when files could not be searched.
      const structured = OutputSchemas.grepContent(shownHits, total, binaries, truncated || unreadable.length > 0 || unreadableFolders.length > 0)
      if (total === 0 && all.length === 0) return { ...out(`no matches for /${Visible.line(pattern)}/`, false), structured }
      if (total === 0) return { ...out([`no text matches for /${Visible.line(pattern)}/`, ...all].join("\n"), truncated), structured }
      return { ...out([...lines, ...all].join("\n"), truncated), structured }
    }
  }
}

export type Collector = ReturnType<typeof collector>

/** A worker's answer for the folder `prefix` (its `names`) put into the results, as the in-thread search puts them. */
export const takeAnswer = (found: Collector, prefix: string, names: ReadonlyArray<string>, r: DirResult) => {
  for (const [i, line, text] of r.hits) found.hit(prefix + (names[i] ?? ""), line, text, false, true)
  if (r.more > 0) found.counted(r.more)
  for (const i of r.binaryMatches) found.binary(prefix + (names[i] ?? ""))
  for (const i of r.longLines) found.longLine(prefix + (names[i] ?? ""))
  for (const name of r.unreadable) found.unreadable(prefix + name)
}

