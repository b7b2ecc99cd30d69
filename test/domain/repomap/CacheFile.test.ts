/**
 * The repo map cache written in chunks (`encodeChunks`, one buffer reused) is byte for byte the file the one-buffer
 * encoder wrote (kept below as the reference: the format did not change, so caches written before still load), over
 * random caches: non-ASCII and astral paths, lone surrogates, outlines, empty id lists, unused words, and chunk sizes
 * that split strings, characters and ints anywhere.
 */
import { assert, describe, it } from "@effect/vitest"
import * as CacheFile from "../../../src/domain/repomap/CacheFile.js"
import * as Summary from "../../../src/domain/repomap/Summary.js"

/** The encoder as it was before chunking (one buffer for the whole file). */
const referenceEncode = (cache: CacheFile.Cache): Uint8Array => {
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
  const rows = entries.map(([path, e]) => [path, e.stat, e.hash, e.outliner ?? "", e.parser, e.summary.symbols, e.summary.imports, e.outline ?? null])
  const meta = new TextEncoder().encode(JSON.stringify({ root: cache.root, words: used.length, files: rows }))
  const binaryAt = (12 + meta.length + 3) & ~3
  const bytes = new Uint8Array(binaryAt + 4 * (2 * used.length + ints) + used.length)
  const view = new DataView(bytes.buffer)
  view.setUint32(0, 0x4d52434d, true) // "MCRM"
  view.setUint32(4, CacheFile.version, true)
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

/** A small seeded generator (mulberry32): a failure names its seed and replays. */
const rng = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

const alphabet = ["a", "Z", "_", "/", ".", "é", "ß", "中", "文", "😀", "\ud800", "\udc00", '"', "\\", "\n", "\u0000", "7"]

const randomCache = (seed: number): CacheFile.Cache => {
  const r = rng(seed)
  const int = (n: number) => Math.floor(r() * n)
  const str = (max: number) => Array.from({ length: int(max) }, () => alphabet[int(alphabet.length)]).join("")
  const words = Summary.words()
  const wordCount = 1 + int(3000)
  for (let k = 0; k < wordCount; k++) words.idOf(int(2 ** 32), int(2 ** 32), int(4))
  const ids = (max: number) => Int32Array.from(new Set(Array.from({ length: int(max) }, () => int(words.size())))).sort()
  const files: Record<string, CacheFile.Entry> = {}
  const fileCount = int(200)
  for (let k = 0; k < fileCount; k++) {
    const outline = r() < 0.3 ? { symbols: Array.from({ length: int(4) }, () => ({ line: int(999), text: str(30), ...(r() < 0.5 ? { name: str(8) } : {}) })), imports: [str(10)] } : undefined
    files[`${str(20)}${k}`] = {
      stat: `${int(1e6)}:${r() * 1e12}:${int(1e9)}`,
      hash: str(14),
      summary: { symbols: int(50), defs: ids(20), imports: Array.from({ length: int(3) }, () => str(12)), refs: ids(400) },
      ...(r() < 0.5 ? { outliner: str(6) } : {}),
      parser: r() < 0.5 ? "regex" : "tree-sitter",
      ...(outline === undefined ? {} : { outline })
    }
  }
  return { root: `/w/${str(10)}`, words, files }
}

const join = (chunks: Iterable<Uint8Array>) => {
  // Each chunk copied as it comes: the encoder reuses its buffer for the next.
  const parts: Array<Uint8Array> = []
  for (const c of chunks) parts.push(c.slice())
  const out = new Uint8Array(parts.reduce((n, c) => n + c.length, 0))
  let at = 0
  for (const c of parts) {
    out.set(c, at)
    at += c.length
  }
  return { out, sizes: parts.map((c) => c.length) }
}

/** Where two byte runs first differ (-1: nowhere); chai's deep equality is far too slow over long typed arrays. */
const firstDifference = (a: Uint8Array, b: Uint8Array) => {
  for (let i = 0; i < Math.max(a.length, b.length); i++) if (a[i] !== b[i]) return i
  return -1
}

describe("repo map cache file", () => {
  it("chunked encoding gives the one-buffer encoder's bytes, for any chunk size, and decodes", () => {
    for (let seed = 1; seed <= 30; seed++) {
      const cache = randomCache(seed)
      const expected = referenceEncode(cache)
      for (const chunkBytes of [16, 20, 52, 4096, 1 << 20]) {
        const { out, sizes } = join(CacheFile.encodeChunks(cache, chunkBytes))
        assert.strictEqual(firstDifference(out, expected), -1, `seed ${seed}, chunks of ${chunkBytes}`)
        assert.isTrue(sizes.every((n) => n > 0 && n <= chunkBytes), `seed ${seed}: chunk sizes ${sizes.join(",")}`)
      }
      assert.strictEqual(firstDifference(CacheFile.encode(cache), expected), -1, `seed ${seed}, encode`)
      const back = CacheFile.decode(expected)
      assert.isDefined(back)
      assert.deepStrictEqual(Object.keys(back?.files ?? {}), Object.keys(cache.files))
    }
  })
})
