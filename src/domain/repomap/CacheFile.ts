/**
 * The repo map cache's bytes. A small header, then the per-file fields as JSON (paths, stat signatures, hashes,
 * who outlined, the outlines of the files the map showed, import specifiers), then one binary section: the words
 * table (`Summary.Words`: two hash halves and a kind per word) and every file's definitions and mentions as 32-bit
 * word ids. The bulk is never parsed as text, and a file's ids are views of that section, not copies. Decoding checks every
 * field and every id; anything unexpected (another version, a truncated or damaged file, a byte-order mismatch)
 * decodes to undefined and the cache is started afresh. Pure.
 */
import type { Outline, SymbolLine } from "./RepoMap.js"
import type { Summary, Words } from "./Summary.js"
import { words as wordTable } from "./Summary.js"

export const version = 3
const magic = 0x4d52434d // "MCRM", little-endian

export interface Entry {
  /** Size, mtime and inode: an unchanged file is not even read. */
  readonly stat: string
  /** The content hash: a file touched but not changed is read, not re-summarised. */
  readonly hash: string
  readonly summary: Summary
  /** The outliner the outline was asked of (its cache key): set even when it gave up and the regex answered. */
  readonly outliner?: string | undefined
  /** Who produced the outline: "regex" or the outliner's name. */
  readonly parser: string
  /** The outline the map showed (only files the map could show are outlined). */
  readonly outline?: Outline | undefined
}

export interface Cache {
  readonly root: string
  readonly words: Words
  readonly files: Record<string, Entry>
}

type Row = [string, string, string, string, string, number, ReadonlyArray<string>, Outline | null]

const encoder = new TextEncoder()
const decoder = new TextDecoder("utf-8", { fatal: true })

export const encode = (cache: Cache): Uint8Array => {
  // Only the words some file still uses are written, renumbered in order of first use.
  const table = cache.words.contents()
  const renumber = new Int32Array(table.h1.length).fill(-1)
  const usedIds = new Int32Array(table.h1.length)
  let usedCount = 0
  const entries = Object.entries(cache.files)
  let ints = 0
  for (const [, e] of entries) {
    for (const ids of [e.summary.defs, e.summary.refs]) {
      ints += 1 + ids.length
      for (const id of ids) {
        if (renumber[id] === -1) {
          renumber[id] = usedCount
          usedIds[usedCount++] = id
        }
      }
    }
  }
  const used = usedIds.subarray(0, usedCount)
  const rows: Array<Row> = entries.map(([path, e]) => [path, e.stat, e.hash, e.outliner ?? "", e.parser, e.summary.symbols, e.summary.imports, e.outline ?? null])
  const meta = encoder.encode(JSON.stringify({ root: cache.root, words: used.length, files: rows }))
  // Header, meta, then (4-aligned) the words' two hash halves, the files' ids, and the words' kinds.
  const binaryAt = (12 + meta.length + 3) & ~3
  const bytes = new Uint8Array(binaryAt + 4 * (2 * used.length + ints) + used.length)
  const view = new DataView(bytes.buffer)
  view.setUint32(0, magic, true)
  view.setUint32(4, version, true)
  view.setUint32(8, meta.length, true)
  bytes.set(meta, 12)
  const out = new Int32Array(bytes.buffer, binaryAt, 2 * used.length + ints)
  used.forEach((id, k) => {
    out[k] = table.h1[id] ?? 0
    out[used.length + k] = table.h2[id] ?? 0
  })
  let at = 2 * used.length
  for (const [, e] of entries) {
    for (const ids of [e.summary.defs, e.summary.refs]) {
      out[at++] = ids.length
      for (const id of ids) out[at++] = renumber[id] ?? 0
    }
  }
  const kinds = bytes.subarray(binaryAt + 4 * at)
  used.forEach((id, k) => {
    kinds[k] = table.kinds[id] ?? 0
  })
  return bytes
}

const isString = (x: unknown): x is string => typeof x === "string"
const isStrings = (x: unknown): x is ReadonlyArray<string> => Array.isArray(x) && x.every(isString)
const isSymbol = (x: unknown): x is SymbolLine => {
  if (typeof x !== "object" || x === null) return false
  const s = x as Record<string, unknown>
  return typeof s["line"] === "number" && isString(s["text"]) && (s["name"] === undefined || isString(s["name"]))
}
const isOutline = (x: unknown): x is Outline => {
  if (typeof x !== "object" || x === null) return false
  const o = x as Record<string, unknown>
  return Array.isArray(o["symbols"]) && o["symbols"].every(isSymbol) && isStrings(o["imports"])
}
const isRow = (x: unknown): x is Row =>
  Array.isArray(x) &&
  x.length === 8 &&
  isString(x[0]) && isString(x[1]) && isString(x[2]) && isString(x[3]) && isString(x[4]) &&
  typeof x[5] === "number" && isStrings(x[6]) && (x[7] === null || isOutline(x[7]))

/** The cache in `bytes`, or undefined when they are not one this version wrote whole. */
export const decode = (bytes: Uint8Array): Cache | undefined => {
  try {
    if (bytes.length < 12) return undefined
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    if (view.getUint32(0, true) !== magic || view.getUint32(4, true) !== version) return undefined
    const metaLength = view.getUint32(8, true)
    if (12 + metaLength > bytes.length) return undefined
    const meta: unknown = JSON.parse(decoder.decode(bytes.subarray(12, 12 + metaLength)))
    if (typeof meta !== "object" || meta === null) return undefined
    const { root, words, files } = meta as Record<string, unknown>
    if (!isString(root) || typeof words !== "number" || !Number.isInteger(words) || words < 0 || !Array.isArray(files)) return undefined
    const binaryAt = (12 + metaLength + 3) & ~3
    const intBytes = bytes.length - binaryAt - words
    if (intBytes < 8 * words || intBytes % 4 !== 0) return undefined
    // Aligned views need the section at a multiple of 4 in its buffer: copied once when it is not.
    const section = (bytes.byteOffset + binaryAt) % 4 === 0 ? bytes.subarray(binaryAt) : bytes.slice(binaryAt)
    const all = new Int32Array(section.buffer, section.byteOffset, intBytes / 4)
    const kinds = section.subarray(intBytes, intBytes + words)
    if (kinds.some((k) => k > 3)) return undefined
    const table = wordTable({
      h1: new Uint32Array(all.buffer, all.byteOffset, words),
      h2: new Uint32Array(all.buffer, all.byteOffset + 4 * words, words),
      kinds
    })
    // A hash twice would give two ids one entry.
    if (table.size() !== words) return undefined
    const ints = all.subarray(2 * words)
    let at = 0
    const ids = (): Int32Array | undefined => {
      const n = ints[at] ?? -1
      if (n < 0 || at + 1 + n > ints.length) return undefined
      const out = ints.subarray(at + 1, at + 1 + n)
      at += 1 + n
      for (const id of out) if (id < 0 || id >= words) return undefined
      return out
    }
    const out: Record<string, Entry> = {}
    for (const row of files) {
      if (!isRow(row)) return undefined
      const defs = ids()
      const refs = ids()
      if (defs === undefined || refs === undefined) return undefined
      const [path, stat, hash, outliner, parser, symbols, imports, outline] = row
      out[path] = {
        stat,
        hash,
        summary: { symbols, defs, imports, refs },
        ...(outliner === "" ? {} : { outliner }),
        parser,
        ...(outline === null ? {} : { outline })
      }
    }
    return at === ints.length ? { root, words: table, files: out } : undefined
  } catch {
    return undefined
  }
}
