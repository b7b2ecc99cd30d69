/**
 * The worker thread of grep's own search (ports/SearchWorkers, adapters/search/ThreadSearchWorkers): built as
 * dist/grep-worker.cjs. Told the pattern once per search, then folders' names in turn; each folder is read with
 * FileSystem.scan's own code (Scan.scanDir: the folder's descriptor, each name opened beneath it without following
 * a link) and each file searched by LineSearch, exactly as the own walk searched on the main thread before.
 */
import { parentPort } from "node:worker_threads"
import * as Scan from "../adapters/fs/Scan.js"
import * as LineSearch from "../tools/LineSearch.js"

interface Init {
  readonly type: "init"
  readonly pattern: string
  readonly ignoreCase: boolean
  readonly protectedInodes: ReadonlyArray<string>
  readonly lineChars: number
  readonly maxHits: number
}
interface Search {
  readonly type: "search"
  readonly id: number
  readonly dir: string
  readonly names: ReadonlyArray<string>
}

const buffer = Buffer.allocUnsafe(Scan.chunkBytes)
let state:
  | { readonly search: LineSearch.FileSearch; readonly skip: ((dev: number, ino: number) => boolean) | undefined; readonly lineChars: number; readonly maxHits: number; hits: Array<readonly [number, number, string]>; more: number; current: number }
  | undefined

const init = (m: Init) => {
  const matcher = LineSearch.matcher(m.pattern, m.ignoreCase)
  const inodes = new Set(m.protectedInodes)
  const s = {
    search: LineSearch.fileSearch(matcher, (line, text) => {
      if (s.hits.length < s.maxHits) s.hits.push([s.current, line, text.length > s.lineChars ? text.slice(0, s.lineChars + 1) : text])
      else s.more++
      return true
    }),
    skip: inodes.size > 0 ? (dev: number, ino: number) => inodes.has(`${dev}:${ino}`) : undefined,
    lineChars: m.lineChars,
    maxHits: m.maxHits,
    hits: [] as Array<readonly [number, number, string]>,
    more: 0,
    current: 0
  }
  state = s
}

const search = (m: Search) => {
  const s = state
  if (s === undefined) throw new Error("search before init")
  s.hits = []
  s.more = 0
  const binaryMatches: Array<number> = []
  const binaries: Array<number> = []
  const longLines: Array<number> = []
  let unreadable: ReadonlyArray<string>
  try {
    unreadable = Scan.scanDir(
      m.dir,
      m.names,
      (i, bytes, first, last) => {
        if (first) {
          s.current = i
          s.search.reset()
        }
        const more = s.search.feed(bytes, first, last)
        if (more && !last) return true
        if (s.search.binary()) binaries.push(i)
        if (s.search.binaryMatch()) binaryMatches.push(i)
        if (s.search.longLine()) longLines.push(i)
        return false
      },
      buffer,
      s.skip
    )
  } catch {
    // The folder could not be opened (gone, swapped): none of its files were read.
    unreadable = m.names
  }
  parentPort?.postMessage({ id: m.id, hits: s.hits, more: s.more, binaryMatches, binaries, longLines, unreadable })
}

parentPort?.on("message", (m: Init | Search) => {
  if (m.type === "init") init(m)
  else search(m)
})
