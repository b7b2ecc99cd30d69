/**
 * The workspace scan's per-folder cache (`WorkspaceScan.Cache`), kept across processes in `.minicode/scan-cache`
 * (`StateFile`: private, ours, checksummed, masked in every sandbox), so a one-shot CLI call validates the folders
 * (one `lstat` each, by inode and ctime, the settle window kept) instead of reading all of them again.
 *
 * The file is one workspace's: its root's path, device and inode are in it, and any other root, a corrupt, foreign
 * or unreadable file, or one an older minicode wrote, loads as nothing (a full scan). What loads is exactly what an
 * earlier read found: the scan then trusts a folder only as it trusts its own cache within one process.
 *
 * Body: JSON `[rootPath, dev, ino, entries]`, an entry per folder of the cached tree (`WorkspaceScan.Folder`) in the
 * walk's order (a parent before its folders, its folders in its list's order): `[parent index, name, ino (-1: not
 * read), ctimeMs (null: not settled), [[path from the root, kind 0 file | 1 directory, verdict index], …]]`. Format 4:
 * format 1 (an entry listed its subfolders' names) was the map of paths' format, format 2 found no editor controls
 * (`control` hits), and format 3 no symlink at a control folder below the top name (`.kiro/settings`,
 * `mise/conf.d`), so all load as nothing.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import * as StateFile from "../fs/StateFile.js"
import * as WorkspaceScan from "./WorkspaceScan.js"

const file = "scan-cache"
const format = "minicode-scan/4"
const kinds = ["file", "directory"] as const
const verdicts = ["mask", "sanitize", "pin", "hold", "link", "secret-link", "control"] as const

const isName = (s: unknown): s is string => typeof s === "string" && s !== "" && s !== "." && s !== ".." && !s.includes("/") && !s.includes("\0")
const isNum = (n: unknown): n is number => typeof n === "number" && Number.isFinite(n)

const identity = (root: string): { readonly dev: number; readonly ino: number } | undefined => {
  const st = fs.lstatSync(root, { throwIfNoEntry: false })
  return st === undefined || !st.isDirectory() ? undefined : { dev: st.dev, ino: st.ino }
}

/** A stored folder: its parent's index (-1: the root), its name, and what its last read found. */
interface Entry {
  readonly parent: number
  readonly name: string
  readonly ino: number
  /** NaN: not settled when read (read again before it is trusted). */
  readonly ctimeMs: number
  readonly hits: ReadonlyArray<WorkspaceScan.Hit>
}

/** The folders last saved for `root`, in the walk's order, or undefined (none, or anything not exactly as written). */
const decode = (root: string): Array<Entry> | undefined => {
  const id = identity(root)
  const body = id === undefined ? undefined : StateFile.read(root, file, format)
  // Paths are rebuilt by concatenation (as path.join would give them for a normalized root and plain names).
  if (id === undefined || body === undefined || path.normalize(root) !== root || root.endsWith("/")) return undefined
  try {
    const data: unknown = JSON.parse(body)
    if (!Array.isArray(data) || data.length !== 4 || data[0] !== root || data[1] !== id.dev || data[2] !== id.ino || !Array.isArray(data[3])) return undefined
    const out: Array<Entry> = []
    const seen = new Set<string>()
    for (const e of data[3] as Array<unknown>) {
      if (!Array.isArray(e) || e.length !== 5) return undefined
      const [parent, name, ino, ctimeMs, hits] = e as Array<unknown>
      if (out.length === 0) {
        if (parent !== -1 || name !== "") return undefined
      } else {
        if (!Number.isInteger(parent) || (parent as number) < 0 || (parent as number) >= out.length || !isName(name)) return undefined
        // Two folders of one name in one folder: not what a walk writes.
        const key = `${parent as number}/${name}`
        if (seen.has(key)) return undefined
        seen.add(key)
        // A folder not read has nothing below it.
        if ((out[parent as number] as Entry).ino === -1) return undefined
      }
      if (!Number.isInteger(ino) || (ino as number) < -1 || (ctimeMs !== null && !isNum(ctimeMs)) || !Array.isArray(hits)) return undefined
      if (ino === -1 && (ctimeMs !== null || hits.length > 0)) return undefined
      const found: Array<WorkspaceScan.Hit> = []
      for (const h of hits as Array<unknown>) {
        if (!Array.isArray(h) || h.length !== 3 || typeof h[0] !== "string" || h[0].includes("\0")) return undefined
        const kind = kinds[h[1] as number]
        const verdict = verdicts[h[2] as number]
        if (kind === undefined || verdict === undefined || !Number.isInteger(h[1]) || !Number.isInteger(h[2])) return undefined
        const p = h[0] === "" ? root : path.join(root, h[0])
        if (p !== root && !p.startsWith(`${root}/`)) return undefined
        found.push({ path: p, kind, verdict })
      }
      out.push({ parent: parent as number, name: out.length === 0 ? root : (name as string), ino: ino as number, ctimeMs: ctimeMs === null ? Number.NaN : (ctimeMs as number), hits: found })
    }
    return out.length === 0 ? undefined : out
  } catch {
    return undefined
  }
}

/** The tree last saved for `root`, or undefined (none, or anything not exactly as written: a full scan). */
export const load = (root: string): WorkspaceScan.Folder | undefined => {
  const entries = decode(root)
  if (entries === undefined) return undefined
  const nodes: Array<WorkspaceScan.Folder> = []
  const lasts: Array<WorkspaceScan.Folder | undefined> = []
  for (const e of entries) {
    const up = nodes[e.parent]
    const f = WorkspaceScan.node(e.name, up)
    if (up !== undefined) {
      const last = lasts[e.parent]
      if (last === undefined) up.first = f
      else last.next = f
      lasts[e.parent] = f
    }
    f.ino = e.ino
    f.ctimeMs = e.ctimeMs
    if (e.hits.length > 0) f.hits = e.hits
    nodes.push(f)
    lasts.push(undefined)
  }
  return nodes[0]
}

/** A hit as text, to compare a folder's read with what was stored of it. */
const said = (h: WorkspaceScan.Hit): string => `${h.verdict} ${h.kind} ${h.path}`

const sameSet = (a: ReadonlyArray<string>, b: ReadonlyArray<string>): boolean => {
  if (a.length !== b.length) return false
  const x = [...a].sort()
  const y = [...b].sort()
  return x.every((v, i) => v === y[i])
}

/**
 * The stored hits when what every stored folder holds is still as stored: what a scan from the store would find.
 * One `lstat` per folder, no tree built; a folder whose ctime differs (any entry made, removed or renamed in it since:
 * a symlink or a hard link the host made, a file GitControl made and removed) is listed again, and must give the
 * same hits and the same subfolders; one of another inode, gone, or not readable as before: undefined (the caller
 * scans). Nothing is saved: what is read here is judged now, so the settle margin does not apply.
 */
export const unchanged = (root: string): ReadonlyArray<WorkspaceScan.Hit> | undefined => {
  const entries = decode(root)
  if (entries === undefined) return undefined
  const paths: Array<string> = []
  const hits: Array<WorkspaceScan.Hit> = []
  // Each folder's subfolders' names, made when a first folder has to be listed again.
  let subfolders: Array<Array<string>> | undefined
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i] as Entry
    const dir = e.parent === -1 ? root : WorkspaceScan.join(paths[e.parent] as string, e.name)
    paths.push(dir)
    let st: fs.Stats | undefined
    try {
      st = fs.lstatSync(dir, { throwIfNoEntry: false })
    } catch {
      // The scan masks a folder it cannot look at: not what was stored.
      return undefined
    }
    if (e.ino === -1) {
      if (st !== undefined && st.isDirectory()) return undefined
      continue
    }
    if (st === undefined || !st.isDirectory() || st.ino !== e.ino) return undefined
    // A NaN ctime (not settled when read) never equals.
    if (st.ctimeMs !== e.ctimeMs) {
      if (subfolders === undefined) {
        subfolders = entries.map(() => [])
        for (let j = 1; j < entries.length; j++) (subfolders[(entries[j] as Entry).parent] as Array<string>).push((entries[j] as Entry).name)
      }
      const now = WorkspaceScan.node(e.name, undefined)
      try {
        WorkspaceScan.read(root, now, dir, st, 0)
      } catch {
        return undefined
      }
      const names: Array<string> = []
      for (let c = now.first; c !== undefined; c = c.next) names.push(c.name)
      if (!sameSet(names, subfolders[i] as Array<string>) || !sameSet(now.hits.map(said), e.hits.map(said))) return undefined
    }
    for (let k = 0; k < e.hits.length; k++) hits.push(e.hits[k] as WorkspaceScan.Hit)
  }
  return hits
}

/**
 * Saves the tree of `root` (the caller knows it changed). A folder saved here is trusted by a later process only as
 * far as the scan would trust it: by inode, ctime and settle window.
 */
export const save = (root: string, top: WorkspaceScan.Folder): void => {
  const id = identity(root)
  if (id === undefined || top.parent !== undefined || top.name !== root) return
  const entries: Array<unknown> = []
  const rel = (p: string) => (p === root ? "" : path.relative(root, p))
  const stack: Array<WorkspaceScan.Folder> = [top]
  const parents: Array<number> = [-1]
  for (let f = stack.pop(), parent = parents.pop(); f !== undefined && parent !== undefined; f = stack.pop(), parent = parents.pop()) {
    const at = entries.length
    entries.push([
      parent,
      parent === -1 ? "" : f.name,
      f.ino,
      Number.isNaN(f.ctimeMs) ? null : f.ctimeMs,
      f.hits.map((h) => [rel(h.path), h.kind === "file" ? 0 : 1, verdicts.indexOf(h.verdict)])
    ])
    // Pushed last to first, so popped (and written) in the list's order.
    const subs: Array<WorkspaceScan.Folder> = []
    for (let c = f.first; c !== undefined; c = c.next) subs.push(c)
    for (let i = subs.length - 1; i >= 0; i--) {
      stack.push(subs[i] as WorkspaceScan.Folder)
      parents.push(at)
    }
  }
  try {
    StateFile.write(root, file, format, JSON.stringify([root, id.dev, id.ino, entries]))
  } catch {
    // Not saved: the next process scans in full.
  }
}

/** The hooks `WatchedScan` takes (`store`). */
export const store = { load, save, unchanged }
