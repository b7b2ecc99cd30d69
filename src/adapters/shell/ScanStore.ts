/**
 * The workspace scan's per-folder cache (`WorkspaceScan.Cache`), kept across processes in `.minicode/scan-cache`
 * (`StateFile`: private, ours, checksummed, masked in every sandbox), so a one-shot CLI call validates the folders
 * (one `lstat` each, by inode and ctime, the settle window kept) instead of reading all of them again.
 *
 * The file is one workspace's: its root's path, device and inode are in it, and any other root, a corrupt, foreign
 * or unreadable file, or one an older minicode wrote, loads as nothing (a full scan). What loads is exactly what an
 * earlier read found: the scan then trusts a folder only as it trusts its own cache within one process.
 *
 * Body: JSON `[rootPath, dev, ino, entries]`, an entry per folder in the walk's order (a parent before its folders):
 * `[parent index, name, ino, ctimeMs, settled 0|1, [names of the folders walked from it], [[path from the root,
 * kind 0 file | 1 directory, verdict index], …]]`.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import * as StateFile from "../fs/StateFile.js"
import type * as WorkspaceScan from "./WorkspaceScan.js"

const file = "scan-cache"
const format = "minicode-scan/1"
const kinds = ["file", "directory"] as const
const verdicts = ["mask", "sanitize", "pin", "hold", "link", "secret-link"] as const

type Folders = Map<string, WorkspaceScan.Folder>

const isName = (s: unknown): s is string => typeof s === "string" && s !== "" && s !== "." && s !== ".." && !s.includes("/") && !s.includes("\0")
const isNum = (n: unknown): n is number => typeof n === "number" && Number.isFinite(n)

const identity = (root: string): { readonly dev: number; readonly ino: number } | undefined => {
  const st = fs.lstatSync(root, { throwIfNoEntry: false })
  return st === undefined || !st.isDirectory() ? undefined : { dev: st.dev, ino: st.ino }
}

/** The folders last saved for `root`, or undefined (none, or anything not exactly as written: a full scan). */
export const load = (root: string): Folders | undefined => {
  const id = identity(root)
  const body = id === undefined ? undefined : StateFile.read(root, file, format)
  // Paths are rebuilt by concatenation (as path.join would give them for a normalized root and plain names).
  if (id === undefined || body === undefined || path.normalize(root) !== root || root.endsWith("/")) return undefined
  try {
    const data: unknown = JSON.parse(body)
    if (!Array.isArray(data) || data.length !== 4 || data[0] !== root || data[1] !== id.dev || data[2] !== id.ino || !Array.isArray(data[3])) return undefined
    const paths: Array<string> = []
    const out: Folders = new Map()
    for (const e of data[3] as Array<unknown>) {
      if (!Array.isArray(e) || e.length !== 7) return undefined
      const [parent, name, ino, ctimeMs, settled, subs, hits] = e as Array<unknown>
      let dir: string
      if (paths.length === 0) {
        if (parent !== -1 || name !== "") return undefined
        dir = root
      } else {
        if (!Number.isInteger(parent) || (parent as number) < 0 || (parent as number) >= paths.length || !isName(name)) return undefined
        dir = `${paths[parent as number] ?? ""}/${name}`
      }
      if (!isNum(ino) || !isNum(ctimeMs) || (settled !== 0 && settled !== 1) || !Array.isArray(subs) || !Array.isArray(hits)) return undefined
      const folders: Array<string> = []
      for (const s of subs as Array<unknown>) {
        if (!isName(s)) return undefined
        folders.push(`${dir}/${s}`)
      }
      const found: Array<WorkspaceScan.Hit> = []
      for (const h of hits as Array<unknown>) {
        if (!Array.isArray(h) || h.length !== 3 || typeof h[0] !== "string" || h[0].includes("\0")) return undefined
        const kind = kinds[h[1] as number]
        const verdict = verdicts[h[2] as number]
        if (kind === undefined || verdict === undefined || !Number.isInteger(h[1]) || !Number.isInteger(h[2])) return undefined
        const p = h[0] === "" ? root : path.join(root, h[0])
        if (p !== root && !p.startsWith(root.endsWith("/") ? root : `${root}/`)) return undefined
        found.push({ path: p, kind, verdict })
      }
      if (out.has(dir)) return undefined
      paths.push(dir)
      out.set(dir, { ino, ctimeMs, settled: settled === 1, hits: found, folders })
    }
    return out.size > 0 ? out : undefined
  } catch {
    return undefined
  }
}

/** Whether the walk read anything again (a folder it did not take as it was, or a different set of folders). */
const changed = (before: Folders | undefined, after: Folders): boolean => {
  if (before === undefined || before.size !== after.size) return true
  for (const [dir, f] of after) if (before.get(dir) !== f) return true
  return false
}

/**
 * Saves the folders of `root` when the walk changed them (`before` is the cache it started from). A folder saved
 * here is trusted by a later process only as far as the scan would trust it: by inode, ctime and settle window.
 */
export const save = (root: string, before: Folders | undefined, after: Folders | undefined): void => {
  if (after === undefined || !changed(before, after)) return
  const id = identity(root)
  if (id === undefined) return
  const index = new Map<string, number>()
  const entries: Array<unknown> = []
  const vIndex = (v: WorkspaceScan.Hit["verdict"]) => verdicts.indexOf(v)
  for (const [dir, f] of after) {
    let parent = -1
    let name = ""
    if (dir !== root) {
      const p = index.get(path.dirname(dir))
      // Not under a folder saved before it: the walk's order was not kept, so nothing is saved.
      if (p === undefined) return
      parent = p
      name = path.basename(dir)
    }
    index.set(dir, entries.length)
    entries.push([
      parent,
      name,
      f.ino,
      f.ctimeMs,
      f.settled ? 1 : 0,
      f.folders.map((s) => path.basename(s)),
      f.hits.map((h) => [h.path === root ? "" : path.relative(root, h.path), h.kind === "file" ? 0 : 1, vIndex(h.verdict)])
    ])
  }
  try {
    StateFile.write(root, file, format, JSON.stringify([root, id.dev, id.ino, entries]))
  } catch {
    // Not saved: the next process scans in full.
  }
}

/** The hooks `WatchedScan` takes (`store`). */
export const store = { load, save }
