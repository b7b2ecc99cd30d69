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
const inflate = (b: Buffer) => zlib.inflateSync(b, { maxOutputLength: maxBody })

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

/**
 * Every tree in a pack, with its id: object headers are read for all objects (a delta's type is its base's), and
 * only trees are inflated and rebuilt. False when the pack cannot be read (its caller then fails closed).
 */
export const packTrees = (packFile: string, index: PackIndex, visit: (id: string, body: Buffer) => void): boolean => {
  let fd: number | undefined
  try {
    fd = fs.openSync(packFile, "r")
    const size = fs.fstatSync(fd).size
    const whole = size <= 256 * 1024 * 1024 ? fs.readFileSync(fd) : undefined
    const read = (pos: number, len: number): Buffer => {
      if (whole !== undefined) return whole.subarray(pos, pos + len)
      const b = Buffer.alloc(Math.max(0, Math.min(len, size - pos)))
      fs.readSync(fd ?? -1, b, 0, b.length, pos)
      return b
    }
    const head = read(0, 12)
    if (head.toString("latin1", 0, 4) !== "PACK") return false
    const order = Array.from({ length: index.count }, (_, i) => i).map((i) => ({ i, at: index.offset(i) })).sort((a, b) => a.at - b.at)
    const byOffset = new Map<number, { readonly i: number; readonly raw: number; readonly data: number; readonly end: number; readonly base: number }>()
    for (let k = 0; k < order.length; k++) {
      const { i, at } = order[k] ?? { i: 0, at: 0 }
      const end = order[k + 1]?.at ?? size - 20
      const h = read(at, 64)
      let p = 0
      let c = h[p++] ?? 0
      const raw = (c >> 4) & 7
      while ((c & 0x80) !== 0) c = h[p++] ?? 0
      let base = -1
      if (raw === 6) {
        const [back, next] = offsetVarint(h, p)
        base = at - back
        p = next
      } else if (raw === 7) {
        const pos = find(index, h.subarray(p, p + 20))
        base = pos < 0 ? -2 : index.offset(pos)
        p += 20
      }
      byOffset.set(at, { i, raw, data: at + p, end, base })
    }
    const types = new Map<number, number>()
    const typeOf = (at: number, depth = 0): number => {
      const known = types.get(at)
      if (known !== undefined) return known
      const o = byOffset.get(at)
      // A base outside the pack (a thin pack) or too deep a chain: a type nobody reads.
      const t = o === undefined || depth > 10_000 ? 0 : o.raw === 6 || o.raw === 7 ? typeOf(o.base, depth + 1) : o.raw
      types.set(at, t)
      return t
    }
    const bodies = new Map<number, Buffer>()
    const bodyOf = (at: number): Buffer => {
      const known = bodies.get(at)
      if (known !== undefined) return known
      const o = byOffset.get(at)
      if (o === undefined) throw new Error("missing base")
      const data = inflate(read(o.data, o.end - o.data))
      const body = o.raw === 6 || o.raw === 7 ? applyDelta(bodyOf(o.base), data) : data
      bodies.set(at, body)
      return body
    }
    for (const { i, at } of order) {
      if (typeOf(at) !== 2) continue
      visit(index.ids.toString("hex", i * 20, i * 20 + 20), bodyOf(at))
    }
    return true
  } catch {
    return false
  } finally {
    if (fd !== undefined) fs.closeSync(fd)
  }
}

/**
 * The entries of an index file (versions 2 to 4): path and blob id (gitlinks left out), and the stages a resolved
 * conflict left in the resolve-undo extension (`REUC`); undefined if not one.
 */
export const indexEntries = (b: Buffer): Array<{ readonly path: string; readonly id: string }> | undefined => {
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
      name = Buffer.concat([previous.subarray(0, Math.max(0, previous.length - strip)), b.subarray(next, nul)])
      at = nul + 1
    } else {
      const nul = b.indexOf(0, p)
      if (nul < 0) return undefined
      name = b.subarray(p, nul)
      at += (nul - at + 8) & ~7
    }
    previous = name
    if ((mode & 0o170000) !== 0o160000) out.push({ path: name.toString("utf8"), id })
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
