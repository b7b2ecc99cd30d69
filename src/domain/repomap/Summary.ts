/**
 * What ranking keeps of every file, compactly: the names it defines and the identifiers it mentions as ids into one
 * table of words (each distinct word held once for the whole tree), its import specifiers and how many symbols its
 * regex outline has. The declaration lines themselves are not kept: only the files the map can show are outlined,
 * and those are read again. Pure.
 */
import { declarationLines, hashLanes, importsOf, keywords, languageOf, nameOf, type Scan } from "./RepoMap.js"

/**
 * The words of a tree, each once, by id. A word is kept as its 64-bit hash and the two facts ranking weighs it by
 * (long and specific; private), not as a string: a million words take 9 bytes each, and a cache's table loads as
 * three typed arrays. Two words share an id only if both 32-bit halves of their hashes collide (for 1.5 million
 * words, a chance of about 1 in 10^7; at worst one mention counted for the other word).
 */
export interface Words {
  readonly size: () => number
  /** The id of a word, adding it when new. */
  readonly id: (word: string) => number
  /** The id of a known word. */
  readonly lookup: (word: string) => number | undefined
  /** The id of the word with these hash halves (`hashOf`) and kind, adding it when new. */
  readonly idOf: (h1: number, h2: number, kind: number) => number
  /** The id of a known word by its hash halves. */
  readonly lookupHash: (h1: number, h2: number) => number | undefined
  /** Bit 1: long and specific (eight characters or more, camelCase or snake_case); bit 2: starts with `_`. */
  readonly kind: (id: number) => number
  /** The table's contents, by id (views: copy before the table grows). */
  readonly contents: () => WordHashes
}

export interface WordHashes {
  readonly h1: Uint32Array
  readonly h2: Uint32Array
  readonly kinds: Uint8Array
}

export const kindOf = (word: string) =>
  (word.length >= 8 && (/[a-z][A-Z]/.test(word) || word.includes("_")) ? 1 : 0) | (word.startsWith("_") ? 2 : 0)

/** A word's two hash halves (cyrb53's lanes). */
const hash2 = (word: string, out: Uint32Array) => hashLanes(word, 0, word.length, out)

/** A words table, starting with a cache's contents (open addressing over typed arrays). */
export const words = (initial?: WordHashes): Words => {
  let size = 0
  let h1s = new Uint32Array(Math.max(1024, initial?.h1.length ?? 0))
  let h2s = new Uint32Array(h1s.length)
  let kinds = new Uint8Array(h1s.length)
  let slots = new Int32Array(1 << Math.ceil(Math.log2(h1s.length * 2))).fill(-1)
  let mask = slots.length - 1
  const find = (a: number, b: number): number => {
    for (let at = a & mask; ; at = (at + 1) & mask) {
      const id = slots[at] ?? -1
      if (id === -1 || (h1s[id] === a && h2s[id] === b)) return at
    }
  }
  const add = (a: number, b: number, kind: number, at: number) => {
    if (size === h1s.length) {
      const grown = [new Uint32Array(size * 2), new Uint32Array(size * 2), new Uint8Array(size * 2)] as const
      grown[0].set(h1s), grown[1].set(h2s), grown[2].set(kinds)
      ;[h1s, h2s, kinds] = grown
    }
    const id = size++
    h1s[id] = a
    h2s[id] = b
    kinds[id] = kind
    slots[at] = id
    if (size * 2 > slots.length) {
      slots = new Int32Array(slots.length * 2).fill(-1)
      mask = slots.length - 1
      for (let k = 0; k < size; k++) slots[find(h1s[k] ?? 0, h2s[k] ?? 0)] = k
    }
    return id
  }
  if (initial !== undefined) {
    for (let k = 0; k < initial.h1.length; k++) {
      const a = initial.h1[k] ?? 0
      const b = initial.h2[k] ?? 0
      const at = find(a, b)
      // A repeated hash is a damaged table: the caller checks size() against what it loaded.
      if ((slots[at] ?? -1) === -1) add(a, b, initial.kinds[k] ?? 0, at)
    }
  }
  const scratch = new Uint32Array(2)
  return {
    size: () => size,
    id: (word) => {
      hash2(word, scratch)
      const a = scratch[0] ?? 0
      const b = scratch[1] ?? 0
      const at = find(a, b)
      const found = slots[at] ?? -1
      return found !== -1 ? found : add(a, b, kindOf(word), at)
    },
    lookup: (word) => {
      hash2(word, scratch)
      const found = slots[find(scratch[0] ?? 0, scratch[1] ?? 0)] ?? -1
      return found === -1 ? undefined : found
    },
    idOf: (a, b, kind) => {
      const at = find(a, b)
      const found = slots[at] ?? -1
      return found !== -1 ? found : add(a, b, kind, at)
    },
    lookupHash: (a, b) => {
      const found = slots[find(a, b)] ?? -1
      return found === -1 ? undefined : found
    },
    kind: (id) => kinds[id] ?? 0,
    contents: () => ({ h1: h1s.subarray(0, size), h2: h2s.subarray(0, size), kinds: kinds.subarray(0, size) })
  }
}

/** A copy of a string that holds nothing else (V8 keeps a match or a slice as a view of the text it came from). */
const own = (s: string): string => (s.length < 13 ? s : (JSON.parse(JSON.stringify(s)) as string))

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

const keywordTable = words()
for (const k of keywords) keywordTable.id(k)

/** Per ASCII character: 1 a word may start with it (letters, `_`, `$`), 2 a digit (inside a word only), 0 neither. */
const charClass = new Uint8Array(128)
for (let c = 0; c < 128; c++) charClass[c] = (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 || c === 36 ? 1 : c >= 48 && c <= 57 ? 2 : 0
let scratchIds = new Int32Array(4096)

/**
 * The words of the text being read, each once (open addressing over typed arrays, stamped with the call that wrote
 * a slot, so nothing is cleared between texts): a word met again costs a lookup here, not in the tree's table.
 */
let seenMask = 4095
let seenStamp = new Int32Array(seenMask + 1)
let seenH1 = new Uint32Array(seenMask + 1)
let seenH2 = new Uint32Array(seenMask + 1)
let seenCount = 0
let stamp = 0

const seenGrow = () => {
  const [stamps, h1s, h2s] = [seenStamp, seenH1, seenH2]
  seenMask = seenMask * 2 + 1
  seenStamp = new Int32Array(seenMask + 1)
  seenH1 = new Uint32Array(seenMask + 1)
  seenH2 = new Uint32Array(seenMask + 1)
  for (let k = 0; k < stamps.length; k++) {
    if (stamps[k] !== stamp) continue
    const a = h1s[k] ?? 0
    let at = a & seenMask
    while (seenStamp[at] === stamp) at = (at + 1) & seenMask
    seenStamp[at] = stamp
    seenH1[at] = a
    seenH2[at] = h2s[k] ?? 0
  }
}

/**
 * The ids of the distinct identifiers of a text (`identifierSet`'s words: three characters or more, keywords left
 * out), ascending; read off the characters with the hash (cyrb53's lanes, as `hashLanes`) computed on the way, so no
 * word becomes a string. New words get their ids in the order they first occur, as `identifierSet` lists them; a
 * word met again in the same text is found in a small table of this text's words.
 */
export const mentionIds = (text: string, table: Words): Int32Array => {
  let count = 0
  const length = text.length
  stamp = (stamp + 1) | 0
  if (stamp === 0) {
    seenStamp.fill(0)
    stamp = 1
  }
  seenCount = 0
  let i = 0
  while (i < length) {
    const c = text.charCodeAt(i)
    if (c >= 128 || charClass[c] !== 1) {
      i++
      continue
    }
    const start = i
    let h1 = 0xdeadbeef
    let h2 = 0x41c6ce57
    for (; i < length; i++) {
      const ch = text.charCodeAt(i)
      if (ch >= 128 || charClass[ch] === 0) break
      h1 = Math.imul(h1 ^ ch, 2654435761)
      h2 = Math.imul(h2 ^ ch, 1597334677)
    }
    const n = i - start
    if (n < 3) continue
    h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909)
    h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909)
    const a = h1 >>> 0
    const b = h2 >>> 0
    let at = a & seenMask
    let known = false
    while (seenStamp[at] === stamp) {
      if (seenH1[at] === a && seenH2[at] === b) {
        known = true
        break
      }
      at = (at + 1) & seenMask
    }
    if (known) continue
    seenStamp[at] = stamp
    seenH1[at] = a
    seenH2[at] = b
    if (++seenCount * 2 > seenMask) seenGrow()
    if (n <= 10 && keywordTable.lookupHash(a, b) !== undefined) continue
    // The word's kind (`kindOf`), read off its characters again: only for a word new to this text.
    let specific = false
    if (n >= 8) {
      for (let k = start, prev = 0; k < i && !specific; k++) {
        const ch = text.charCodeAt(k)
        specific = ch === 95 || (ch >= 65 && ch <= 90 && prev >= 97 && prev <= 122)
        prev = ch
      }
    }
    const kind = (specific ? 1 : 0) | (c === 95 ? 2 : 0)
    if (count === scratchIds.length) {
      const grown = new Int32Array(count * 2)
      grown.set(scratchIds)
      scratchIds = grown
    }
    scratchIds[count++] = table.idOf(a, b, kind)
  }
  // Distinct words, but two may share an id (a collision of both hash halves): sorted, then kept once.
  const sorted = scratchIds.subarray(0, count).sort()
  let distinct = 0
  for (let k = 0; k < count; k++) if (k === 0 || sorted[k] !== sorted[k - 1]) sorted[distinct++] = sorted[k] ?? 0
  return sorted.slice(0, distinct)
}

/** The ids of names (given in symbol order); distinct, ascending. */
const idsOf = (names: ReadonlyArray<string>, table: Words): Int32Array => {
  const ids = new Int32Array(names.length)
  let count = 0
  for (const name of names) ids[count++] = table.id(name)
  const sorted = ids.subarray(0, count).sort()
  let distinct = 0
  for (let k = 0; k < count; k++) if (k === 0 || sorted[k] !== sorted[k - 1]) sorted[distinct++] = sorted[k] ?? 0
  return sorted.slice(0, distinct)
}

/**
 * A file's summary from its text: `extractRegex`'s symbols counted and their names (two characters or more) taken
 * as ids, its imports, the identifiers it mentions. The symbols' signatures are not made: nothing here shows them.
 */
export const summarize = (path: string, text: string, table: Words): Summary => {
  const language = languageOf(path) ?? "generic"
  let symbols = 0
  const names: Array<string> = []
  declarationLines(language, text, (_, source) => {
    symbols++
    const name = nameOf(language, source)
    if (name !== undefined && name.length >= 2) names.push(name)
  })
  return {
    symbols,
    defs: idsOf(names, table),
    imports: importsOf(language, text).map(own),
    refs: mentionIds(text, table)
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
