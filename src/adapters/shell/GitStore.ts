/**
 * A git object store read without git (nothing the repository controls runs): loose objects, pack indexes (v2),
 * packs (v2/v3, deltas resolved for trees only), tree entries and index files (v2 to v4). Every reader answers
 * `undefined` for what it cannot parse, so its caller can fail closed.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import * as zlib from "node:zlib"

const lstat = (p: string) => fs.lstatSync(p, { throwIfNoEntry: false })

/** The largest object body rebuilt here (a tree is far smaller): a crafted delta or zlib bomb fails instead. */
const maxBody = 64 * 1024 * 1024
const inflate = (b: Buffer, size?: number) =>
  zlib.inflateSync(b, { maxOutputLength: maxBody, ...(size === undefined ? {} : { chunkSize: Math.min(Math.max(64, size + 1), maxBody) }) })

export interface PackIndex {
  /** The sorted object ids, 20 bytes each. */
  readonly ids: Buffer
  readonly count: number
  /** The pack offset of the object at sorted position `i`. */
  readonly offset: (i: number) => number
}

/** A pack index (version 2): its sorted ids and offsets; undefined when it is not one. */
export const readPackIndex = (b: Buffer): PackIndex | undefined => {
  if (b.length < 8 + 256 * 4 || b.readUInt32BE(0) !== 0xff744f63 || b.readUInt32BE(4) !== 2) return undefined
  const count = b.readUInt32BE(8 + 255 * 4)
  const idsAt = 8 + 256 * 4
  const offsetsAt = idsAt + 24 * count
  const largeAt = offsetsAt + 4 * count
  if (b.length < largeAt + 40) return undefined
  const offset = (i: number) => {
    const o = b.readUInt32BE(offsetsAt + 4 * i)
    return (o & 0x80000000) === 0 ? o : Number(b.readBigUInt64BE(largeAt + 8 * (o & 0x7fffffff)))
  }
  return { ids: b.subarray(idsAt, idsAt + 20 * count), count, offset }
}

/** The sorted position of `id` (20 bytes) in a pack index, or -1. */
export const find = (pack: Pick<PackIndex, "ids" | "count">, id: Buffer): number => {
  let lo = 0
  let hi = pack.count - 1
  while (lo <= hi) {
    const mid = (lo + hi) >> 1
    const c = pack.ids.compare(id, 0, 20, mid * 20, mid * 20 + 20)
    if (c === 0) return mid
    if (c < 0) lo = mid + 1
    else hi = mid - 1
  }
  return -1
}

/**
 * The loose object ids of a store, and the fan-out folders that are not plain folders (a symlink there makes git
 * write objects wherever it points: their real paths).
 */
export const looseIds = (objects: string): { readonly ids: Set<string>; readonly elsewhere: Array<string> } => {
  const ids = new Set<string>()
  const elsewhere: Array<string> = []
  let names: Array<string> = []
  try {
    names = fs.readdirSync(objects)
  } catch {
    return { ids, elsewhere }
  }
  for (const fan of names) {
    if (!/^[0-9a-f]{2}$/.test(fan) && fan !== "pack" && fan !== "info") continue
    const dir = path.join(objects, fan)
    const st = lstat(dir)
    if (st?.isSymbolicLink() === true) {
      try {
        elsewhere.push(fs.realpathSync(dir))
      } catch {
        // A dangling link holds nothing.
      }
    }
    if (fan === "pack" || fan === "info") continue
    let files: Array<string> = []
    try {
      files = fs.readdirSync(dir)
    } catch {
      continue
    }
    for (const f of files) if (/^[0-9a-f]{38}$/.test(f)) ids.add(fan + f)
  }
  return { ids, elsewhere }
}

/** A loose object's type, and its body when it is a tree; undefined when it cannot be read. */
export const looseTree = (objects: string, id: string): { readonly type: string; readonly body?: Buffer } | undefined => {
  try {
    const raw = fs.readFileSync(path.join(objects, id.slice(0, 2), id.slice(2)))
    const head = zlib.inflateSync(raw.subarray(0, 64), { finishFlush: zlib.constants.Z_SYNC_FLUSH })
    const type = head.subarray(0, head.indexOf(0x20)).toString("latin1")
    if (type !== "tree") return { type }
    const all = inflate(raw)
    return { type, body: all.subarray(all.indexOf(0) + 1) }
  } catch {
    return undefined
  }
}

export interface TreeEntry {
  readonly name: string
  readonly id: string
  readonly kind: "blob" | "tree" | "commit"
}

/** The entries of a tree object's body. */
export const treeEntries = (body: Buffer): Array<TreeEntry> => {
  const out: Array<TreeEntry> = []
  let i = 0
  while (i < body.length) {
    const space = body.indexOf(0x20, i)
    const nul = body.indexOf(0, space)
    if (space < 0 || nul < 0 || nul + 21 > body.length) break
    const mode = body.toString("latin1", i, space)
    out.push({ name: body.toString("utf8", space + 1, nul), id: body.toString("hex", nul + 1, nul + 21), kind: mode === "40000" ? "tree" : mode === "160000" ? "commit" : "blob" })
    i = nul + 21
  }
  return out
}

/** git's offset varint (pack ofs-delta bases, index v4 path prefixes): the value and the position after it. */
const offsetVarint = (b: Buffer, at: number): [number, number] => {
  let c = b[at++] ?? 0
  let v = c & 0x7f
  while ((c & 0x80) !== 0) {
    c = b[at++] ?? 0
    v = (v + 1) * 128 + (c & 0x7f)
  }
  return [v, at]
}

const sizeVarint = (b: Buffer, at: number): [number, number] => {
  let v = 0
  let shift = 0
  let c = 0x80
  while ((c & 0x80) !== 0) {
    c = b[at++] ?? 0
    v += (c & 0x7f) * 2 ** shift
    shift += 7
  }
  return [v, at]
}

/** A delta applied to its base. */
const applyDelta = (base: Buffer, delta: Buffer): Buffer => {
  let [, at] = sizeVarint(delta, 0)
  let size: number
  ;[size, at] = sizeVarint(delta, at)
  if (size > maxBody) throw new Error("delta too large")
  const out = Buffer.alloc(size)
  let w = 0
  while (at < delta.length) {
    const op = delta[at++] ?? 0
    if ((op & 0x80) !== 0) {
      let off = 0
      let len = 0
      for (let k = 0; k < 4; k++) if ((op & (1 << k)) !== 0) off += (delta[at++] ?? 0) * 2 ** (8 * k)
      for (let k = 0; k < 3; k++) if ((op & (0x10 << k)) !== 0) len += (delta[at++] ?? 0) << (8 * k)
      if (len === 0) len = 0x10000
      w += base.copy(out, w, off, off + len)
    } else if (op > 0) {
      w += delta.copy(out, w, at, at + op)
      at += op
    } else throw new Error("bad delta")
  }
  return out
}

/** A step of work that can pause (a generator yielding nothing): run through at once, or a slice at a time. */
export type Steps<A> = Generator<void, A, void>

/** Runs steps to their end without pausing. */
export const drain = <A>(steps: Steps<A>): A => {
  for (;;) {
    const r = steps.next()
    if (r.done === true) return r.value
  }
}

/**
 * A pause every few milliseconds of work (`yield* pause()` in a loop): the caller can give the event loop back in
 * between, so reading a big pack never stops a long-lived process (`mcp serve`) for seconds.
 */
export const pacer = (sliceMs = 5) => {
  let since = performance.now()
  let n = 0
  /**
   * `edge`: at the end of a step of unknown length (an index read, a store judged), the clock is read at once rather
   * than on every 32nd call. Either way the loop turns only once the slice is used up: a warm check, which reads
   * nothing new, goes through without a pause (each pause is a turn of the event loop, ~0.1–1 ms under load, and a
   * warm check made 5 of them per sandboxed call).
   */
  return function* (edge = false): Steps<void> {
    if (!edge && (++n & 31) !== 0) return
    if (performance.now() - since < sliceMs) return
    yield
    since = performance.now()
  }
}

export interface PackVisitor {
  /** Each tree, with its id and body (valid only during the call). */
  readonly tree: (id: string, body: Buffer) => void
  /** Each blob's id. */
  readonly blob?: (id: string) => void
}

/** How much of the pack one read brings in, and the most rebuilt tree bodies kept as delta bases. */
const windowSize = 1024 * 1024
const maxCached = 32 * 1024 * 1024

/**
 * Every tree in a pack, with its id, and every blob's id: the pack is read a window at a time (never whole), object
 * headers for all objects (a delta's type is its base's), and only trees are inflated and rebuilt; a rebuilt tree is
 * kept only while a tree delta still needs it as a base (bounded, rebuilt again past the bound). False when the pack
 * cannot be read (its caller then fails closed). Pauses between slices of work (`Steps`).
 */
export function* scanPack(packFile: string, index: PackIndex, visit: PackVisitor, pause = pacer()): Steps<boolean> {
  let fd: number | undefined
  try {
    fd = fs.openSync(packFile, "r")
    const file = fd
    const size = fs.fstatSync(file).size
    const window = Buffer.allocUnsafe(windowSize)
    let windowAt = 0
    let windowLength = 0
    /** `len` bytes at `pos`, valid until the next read. */
    const read = (pos: number, len: number): Buffer => {
      const want = Math.max(0, Math.min(len, size - pos))
      if (pos >= windowAt && pos + want <= windowAt + windowLength) return window.subarray(pos - windowAt, pos - windowAt + want)
      if (want > windowSize) {
        const b = Buffer.allocUnsafe(want)
        return b.subarray(0, fs.readSync(file, b, 0, want, pos))
      }
      windowAt = pos
      windowLength = fs.readSync(file, window, 0, Math.min(windowSize, size - pos), pos)
      return window.subarray(0, Math.min(want, windowLength))
    }
    if (read(0, 12).toString("latin1", 0, 4) !== "PACK") return false
    const count = index.count
    // Objects by pack offset: `at[k]` the k-th offset, `order[k]` its position in the index.
    const offsets = new Float64Array(count)
    for (let i = 0; i < count; i++) offsets[i] = index.offset(i)
    const order = new Uint32Array(count)
    if (count < 2 ** 21 && size < 2 ** 32) {
      // Offset and position in one number, sorted natively (a comparator sort of 80,000 took ~100 ms).
      const keys = new Float64Array(count)
      for (let i = 0; i < count; i++) keys[i] = (offsets[i] ?? 0) * 2 ** 21 + i
      keys.sort()
      for (let k = 0; k < count; k++) order[k] = (keys[k] ?? 0) % 2 ** 21
    } else {
      for (let i = 0; i < count; i++) order[i] = i
      order.sort((a, b) => (offsets[a] ?? 0) - (offsets[b] ?? 0))
    }
    yield
    const at = new Float64Array(count)
    const rank = new Uint32Array(count)
    for (let k = 0; k < count; k++) {
      const i = order[k] ?? 0
      at[k] = offsets[i] ?? 0
      rank[i] = k
    }
    const byOffset = (o: number): number => {
      let lo = 0
      let hi = count - 1
      while (lo <= hi) {
        const mid = (lo + hi) >> 1
        const v = at[mid] ?? 0
        if (v === o) return mid
        if (v < o) lo = mid + 1
        else hi = mid - 1
      }
      return -1
    }
    const end = (k: number) => (k + 1 < count ? (at[k + 1] ?? 0) : size - 20)
    const raw = new Uint8Array(count)
    /** Each object's inflated size (a delta's own), and where its zlib data starts. */
    const sizes = new Float64Array(count)
    const data = new Float64Array(count)
    /** The base's k of a delta, -1 for none (not a delta), -2 for one outside the pack (a thin pack). */
    const base = new Int32Array(count)
    for (let k = 0; k < count; k++) {
      yield* pause()
      const o = at[k] ?? 0
      const h = read(o, 64)
      let p = 0
      let c = h[p++] ?? 0
      raw[k] = (c >> 4) & 7
      let length = c & 15
      for (let shift = 4; (c & 0x80) !== 0; shift += 7) {
        c = h[p++] ?? 0
        length += (c & 0x7f) * 2 ** shift
      }
      sizes[k] = length
      base[k] = -1
      if (raw[k] === 6) {
        const [back, next] = offsetVarint(h, p)
        const b = byOffset(o - back)
        base[k] = b < 0 ? -2 : b
        p = next
      } else if (raw[k] === 7) {
        const pos = find(index, h.subarray(p, p + 20))
        base[k] = pos < 0 ? -2 : (rank[pos] ?? -2)
        p += 20
      }
      data[k] = o + p
    }
    // A delta's type is its base's (a chain's end); 0 for a base outside the pack or a chain too long (a loop).
    const type = new Uint8Array(count)
    const chain: Array<number> = []
    for (let k = 0; k < count; k++) {
      yield* pause()
      let j = k
      chain.length = 0
      while (j >= 0 && type[j] === 0 && (raw[j] === 6 || raw[j] === 7) && chain.length < 10_000) {
        chain.push(j)
        j = base[j] ?? -2
      }
      const t = j < 0 || chain.length >= 10_000 ? 0 : type[j] !== 0 ? (type[j] ?? 0) : (raw[j] ?? 0)
      if (j >= 0 && type[j] === 0 && raw[j] !== 6 && raw[j] !== 7) type[j] = raw[j] ?? 0
      for (const d of chain) type[d] = t
    }
    // How many tree deltas still need each tree as their base.
    const pending = new Uint32Array(count)
    for (let k = 0; k < count; k++) {
      const b = base[k] ?? -1
      if (type[k] === 2 && b >= 0) pending[b] = (pending[b] ?? 0) + 1
    }
    yield
    const cached = new Map<number, Buffer>()
    let cachedBytes = 0
    const bodyOf = (k: number, depth = 0): Buffer => {
      const known = cached.get(k)
      if (known !== undefined) return known
      if (depth > 10_000) throw new Error("delta chain too long")
      const b = base[k] ?? -1
      if (b === -2) throw new Error("missing base")
      const start = data[k] ?? 0
      // One output chunk of the known size: zlib's default (16 KB a call) made the GC the scan's main cost.
      const delta = inflate(read(start, end(k) - start), sizes[k] ?? 0)
      const body = b >= 0 ? applyDelta(bodyOf(b, depth + 1), delta) : delta
      if ((pending[k] ?? 0) > 0 && cachedBytes + body.length <= maxCached) {
        cached.set(k, body)
        cachedBytes += body.length
      }
      return body
    }
    const hex = (k: number) => {
      const i = order[k] ?? 0
      return index.ids.toString("hex", i * 20, i * 20 + 20)
    }
    for (let k = 0; k < count; k++) {
      yield* pause()
      if (type[k] === 3) visit.blob?.(hex(k))
      if (type[k] !== 2) continue
      visit.tree(hex(k), bodyOf(k))
      const b = base[k] ?? -1
      const left = b >= 0 ? (pending[b] ?? 1) - 1 : -1
      if (b >= 0) pending[b] = left
      if (left === 0) {
        const body = cached.get(b)
        if (body !== undefined) (cached.delete(b), (cachedBytes -= body.length))
      }
    }
    return true
  } catch {
    return false
  } finally {
    if (fd !== undefined) fs.closeSync(fd)
  }
}

/** `scanPack` run through at once, trees only. */
export const packTrees = (packFile: string, index: PackIndex, visit: (id: string, body: Buffer) => void): boolean => drain(scanPack(packFile, index, { tree: visit }))

/**
 * The entries of an index file (versions 2 to 4): path and blob id (gitlinks left out), and the stages a resolved
 * conflict left in the resolve-undo extension (`REUC`); undefined if not one.
 */
export const indexEntries = (b: Buffer, withPaths = true): Array<{ readonly path: string; readonly id: string }> | undefined => {
  if (b.length < 12 || b.toString("latin1", 0, 4) !== "DIRC") return undefined
  const version = b.readUInt32BE(4)
  if (version < 2 || version > 4) return undefined
  const count = b.readUInt32BE(8)
  const out: Array<{ readonly path: string; readonly id: string }> = []
  let at = 12
  let previous: Buffer = Buffer.alloc(0)
  for (let n = 0; n < count; n++) {
    if (at + 62 > b.length) return undefined
    const mode = b.readUInt32BE(at + 24)
    const id = b.toString("hex", at + 40, at + 60)
    const flags = b.readUInt16BE(at + 60)
    const p = at + 62 + (version >= 3 && (flags & 0x4000) !== 0 ? 2 : 0)
    let name: Buffer
    if (version === 4) {
      const [strip, next] = offsetVarint(b, p)
      const nul = b.indexOf(0, next)
      if (nul < 0) return undefined
      // Paths not asked for (ids only, `withPaths` false) are not rebuilt: a 60,000-entry index then costs little.
      name = withPaths ? Buffer.concat([previous.subarray(0, Math.max(0, previous.length - strip)), b.subarray(next, nul)]) : previous
      at = nul + 1
    } else {
      const nul = b.indexOf(0, p)
      if (nul < 0) return undefined
      name = b.subarray(p, nul)
      at += (nul - at + 8) & ~7
    }
    previous = name
    if ((mode & 0o170000) !== 0o160000) out.push({ path: withPaths ? name.toString("utf8") : "", id })
  }
  while (at + 8 <= b.length - 20) {
    const sig = b.toString("latin1", at, at + 4)
    const size = b.readUInt32BE(at + 4)
    const end = at + 8 + size
    if (end > b.length - 20) break
    if (sig === "REUC") resolveUndo(b.subarray(at + 8, end), out)
    at = end
  }
  return out
}

/** The resolve-undo extension: per path, three octal modes, then an id for each stage whose mode is not 0. */
const resolveUndo = (b: Buffer, out: Array<{ readonly path: string; readonly id: string }>) => {
  let at = 0
  while (at < b.length) {
    const nul = b.indexOf(0, at)
    if (nul < 0) return
    const name = b.toString("utf8", at, nul)
    at = nul + 1
    const modes: Array<number> = []
    for (let k = 0; k < 3; k++) {
      const end = b.indexOf(0, at)
      if (end < 0) return
      modes.push(parseInt(b.toString("latin1", at, end), 8))
      at = end + 1
    }
    for (const m of modes) {
      if (m === 0 || Number.isNaN(m)) continue
      if (at + 20 > b.length) return
      if ((m & 0o170000) !== 0o160000) out.push({ path: name, id: b.toString("hex", at, at + 20) })
      at += 20
    }
  }
}
