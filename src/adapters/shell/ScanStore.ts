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
 * read), ctimeMs (null: not settled), [[path from the root, kind 0 file | 1 directory, verdict index], …]]`. Format 2:
 * format 1 (an entry listed its subfolders' names) was the map of paths' format, and loads as nothing.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import * as StateFile from "../fs/StateFile.js"
import * as WorkspaceScan from "./WorkspaceScan.js"

const file = "scan-cache"
const format = "minicode-scan/2"
const kinds = ["file", "directory"] as const
const verdicts = ["mask", "sanitize", "pin", "hold", "link", "secret-link"] as const

const isName = (s: unknown): s is string => typeof s === "string" && s !== "" && s !== "." && s !== ".." && !s.includes("/") && !s.includes("\0")
const isNum = (n: unknown): n is number => typeof n === "number" && Number.isFinite(n)

const identity = (root: string): { readonly dev: number; readonly ino: number } | undefined => {
  const st = fs.lstatSync(root, { throwIfNoEntry: false })
  return st === undefined || !st.isDirectory() ? undefined : { dev: st.dev, ino: st.ino }
}

/** The tree last saved for `root`, or undefined (none, or anything not exactly as written: a full scan). */
export const load = (root: string): WorkspaceScan.Folder | undefined => {
  const id = identity(root)
  const body = id === undefined ? undefined : StateFile.read(root, file, format)
  // Paths are rebuilt by concatenation (as path.join would give them for a normalized root and plain names).
  if (id === undefined || body === undefined || path.normalize(root) !== root || root.endsWith("/")) return undefined
  try {
    const data: unknown = JSON.parse(body)
    if (!Array.isArray(data) || data.length !== 4 || data[0] !== root || data[1] !== id.dev || data[2] !== id.ino || !Array.isArray(data[3])) return undefined
    const nodes: Array<WorkspaceScan.Folder> = []
    const lasts: Array<WorkspaceScan.Folder | undefined> = []
    const seen = new Set<string>()
    for (const e of data[3] as Array<unknown>) {
      if (!Array.isArray(e) || e.length !== 5) return undefined
      const [parent, name, ino, ctimeMs, hits] = e as Array<unknown>
      let f: WorkspaceScan.Folder
      if (nodes.length === 0) {
        if (parent !== -1 || name !== "") return undefined
        f = WorkspaceScan.node(root, undefined)
      } else {
        if (!Number.isInteger(parent) || (parent as number) < 0 || (parent as number) >= nodes.length || !isName(name)) return undefined
        // Two folders of one name in one folder: not what a walk writes.
        const key = `${parent as number}/${name}`
        if (seen.has(key)) return undefined
        seen.add(key)
        const up = nodes[parent as number] as WorkspaceScan.Folder
        // A folder not read has nothing below it.
        if (up.ino === -1) return undefined
        f = WorkspaceScan.node(name, up)
        const last = lasts[parent as number]
        if (last === undefined) up.first = f
        else last.next = f
        lasts[parent as number] = f
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
      f.ino = ino as number
      f.ctimeMs = ctimeMs === null ? Number.NaN : (ctimeMs as number)
      if (found.length > 0) f.hits = found
      nodes.push(f)
      lasts.push(undefined)
    }
    return nodes[0]
  } catch {
    return undefined
  }
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
export const store = { load, save }
