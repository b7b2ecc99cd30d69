/**
 * What ranking keeps of every file, compactly: the names it defines and the identifiers it mentions as ids into one
 * table of words (each distinct word held once for the whole tree), its import specifiers and how many symbols its
 * regex outline has. The declaration lines themselves are not kept: only the files the map can show are outlined,
 * and those are read again. Pure.
 */
import { extractRegex, identifierSet, type Scan } from "./RepoMap.js"

/** The words of a tree, each once, by id. */
export interface Words {
  readonly list: ReadonlyArray<string>
  /** The id of a word, adding it when new. */
  readonly id: (word: string) => number
  /** The id of a known word. */
  readonly lookup: (word: string) => number | undefined
}

/**
 * A copy of a string that holds nothing else: V8 keeps a substring (a match, a slice) as a view of the text it came
 * from, which would keep every file's text alive through the words table.
 */
const own = (s: string): string => (s.length < 13 ? s : (JSON.parse(JSON.stringify(s)) as string))

/** A words table, starting with `initial` (`copied`: false when they hold no other text already). */
export const words = (initial: ReadonlyArray<string> = [], copied = true): Words => {
  const list: Array<string> = []
  const ids = new Map<string, number>()
  let copy = true
  const id = (word: string) => {
    let i = ids.get(word)
    if (i === undefined) {
      i = list.length
      const owned = copy ? own(word) : word
      list.push(owned)
      ids.set(owned, i)
    }
    return i
  }
  copy = copied
  for (const w of initial) id(w)
  copy = true
  return { list, id, lookup: (word) => ids.get(word) }
}

export interface Summary {
  /** How many symbols the regex outline has. */
  readonly symbols: number
  /** The ids of the names it defines (distinct, two characters or more). */
  readonly defs: Int32Array
  readonly imports: ReadonlyArray<string>
  /** The ids of the identifiers it mentions (distinct, ascending). */
  readonly refs: Int32Array
}

const distinct = (ids: Iterable<number>) => Int32Array.from(new Set(ids)).sort()

/** A file's summary from its lexical scan (the regex outline and the identifiers). */
export const ofScan = (scan: Scan, table: Words): Summary => ({
  symbols: scan.symbols.length,
  defs: distinct(scan.symbols.flatMap((s) => (s.name === undefined || s.name.length < 2 ? [] : [table.id(s.name)]))),
  imports: scan.imports.map(own),
  refs: scan.refs === "" ? new Int32Array(0) : distinct(scan.refs.split(" ").map(table.id))
})

/** A file's summary from its text. */
export const summarize = (path: string, text: string, table: Words): Summary => {
  const outline = extractRegex(path, text)
  return {
    symbols: outline.symbols.length,
    defs: distinct(outline.symbols.flatMap((s) => (s.name === undefined || s.name.length < 2 ? [] : [table.id(s.name)]))),
    imports: outline.imports.map(own),
    refs: Int32Array.from(identifierSet(text), table.id).sort()
  }
}

/** Whether a summary's (ascending) refs hold `id`. */
export const mentions = (summary: Summary, id: number): boolean => {
  const refs = summary.refs
  let lo = 0
  let hi = refs.length - 1
  while (lo <= hi) {
    const mid = (lo + hi) >> 1
    const v = refs[mid] ?? 0
    if (v === id) return true
    if (v < id) lo = mid + 1
    else hi = mid - 1
  }
  return false
}
