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

/** UTF-8 length of a string (what `TextEncoder` would make of it, lone surrogates as U+FFFD), without encoding it. */
const utf8Length = (s: string) => {
  let n = 0
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c < 0x80) n += 1
    else if (c < 0x800) n += 2
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4
      i++
    } else n += 3
  }
  return n
}

const rowOf = (path: string, e: Entry): Row => [path, e.stat, e.hash, e.outliner ?? "", e.parser, e.summary.symbols, e.summary.imports, e.outline ?? null]
const littleEndian = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1

/**
 * The cache's bytes as a run of chunks of at most `chunkBytes` (the last one shorter), one buffer reused: each chunk
 * must be consumed (written) before the next is asked for. The bytes are those of one buffer holding the whole file
 * (ints in this machine's byte order, as the decoder's typed views read them), but neither the file, nor its JSON
 * part, nor the rows of that JSON are ever held whole: on the 60k-file bench tree the file is 43 MB, and building it
 * in one piece was the call's peak.
 */
export function* encodeChunks(cache: Cache, chunkBytes = 1 << 20): Generator<Uint8Array, void, undefined> {
  // Only the words some file still uses are written, renumbered in order of first use.
  const table = cache.words.contents()
  const renumber = new Int32Array(table.h1.length).fill(-1)
  const usedIds = new Int32Array(table.h1.length)
  let usedCount = 0
  const paths = Object.keys(cache.files)
  const entryOf = (path: string) => cache.files[path] as Entry
  let ints = 0
  for (const path of paths) {
    const e = entryOf(path)
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
  // The JSON part is `{"root":…,"words":…,"files":[row,row,…]}`, as JSON.stringify writes it: its length first
  // (the header holds it), each row made again when its bytes are written.
  const head = `{"root":${JSON.stringify(cache.root)},"words":${used.length},"files":[`
  let metaLength = utf8Length(head) + 2 + Math.max(0, paths.length - 1)
  for (const path of paths) metaLength += utf8Length(JSON.stringify(rowOf(path, entryOf(path))))

  const chunk = new Uint8Array(Math.max(16, chunkBytes & ~3))
  const view = new DataView(chunk.buffer)
  let fill = 0
  let written = 0
  const flush = () => {
    const out = chunk.subarray(0, fill)
    written += fill
    fill = 0
    return out
  }
  // Strings: encoded straight into the chunk, a string that does not fit continuing in the next ones.
  function* text(s: string): Generator<Uint8Array, void, undefined> {
    let rest = s
    for (;;) {
      const r = encoder.encodeInto(rest, chunk.subarray(fill))
      fill += r.written
      if (r.read === rest.length) return
      rest = rest.slice(r.read)
      // Room for a character's bytes was short (or none left): go on in an emptied chunk.
      yield flush()
    }
  }
  // Ints and bytes are put inline (a generator per int would cost more than the write): room is made first.
  const putInt = (v: number) => {
    view.setInt32(fill, v, littleEndian)
    fill += 4
  }
  putInt(magic)
  putInt(version)
  putInt(metaLength)
  yield* text(head)
  for (let k = 0; k < paths.length; k++) {
    const path = paths[k] as string
    yield* text(`${k === 0 ? "" : ","}${JSON.stringify(rowOf(path, entryOf(path)))}`)
  }
  yield* text("]}")
  // Header, meta, then (4-aligned) the words' two hash halves, the files' ids, and the words' kinds.
  const pad = (4 - ((written + fill) % 4)) % 4
  if (fill + pad > chunk.length) yield flush()
  for (let k = 0; k < pad; k++) chunk[fill++] = 0
  for (const half of [table.h1, table.h2]) {
    for (const id of used) {
      if (fill + 4 > chunk.length) yield flush()
      putInt(half[id] ?? 0)
    }
  }
  for (const path of paths) {
    const e = entryOf(path)
    for (const ids of [e.summary.defs, e.summary.refs]) {
      if (fill + 4 > chunk.length) yield flush()
      putInt(ids.length)
      for (const id of ids) {
        if (fill + 4 > chunk.length) yield flush()
        putInt(renumber[id] ?? 0)
      }
    }
  }
  for (const id of used) {
    if (fill === chunk.length) yield flush()
    chunk[fill++] = table.kinds[id] ?? 0
  }
  if (fill > 0) yield flush()
}

/** The cache's bytes in one buffer (`encodeChunks` joined). */
export const encode = (cache: Cache): Uint8Array => {
  const parts: Array<Uint8Array> = []
  for (const c of encodeChunks(cache)) parts.push(c.slice())
  const bytes = new Uint8Array(parts.reduce((n, c) => n + c.length, 0))
  let at = 0
  for (const c of parts) {
    bytes.set(c, at)
    at += c.length
  }
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
