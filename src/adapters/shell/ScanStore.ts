/**
 * The workspace scan's per-folder cache (`WorkspaceScan.Cache`), kept across processes in `.minicode/scan-cache`
 * (`StateFile`: private, ours, checksummed, masked in every sandbox), so a one-shot CLI call validates the folders
 * (one `lstat` each, by inode and ctime, the settle window kept) instead of reading all of them again.
 *
 * The file is one workspace's: its root's path, device and inode are in it, and any other root, a corrupt, foreign
 * or unreadable file, or one an older minicode wrote, loads as nothing (a full scan). What loads is exactly what an
 * earlier read found: the scan then trusts a folder only as it trusts its own cache within one process.
 *
 * Body: a first line, JSON `[rootPath, dev, ino]`, then a line per folder of the cached tree (`WorkspaceScan.Folder`)
 * in the walk's order (a parent before its folders, its folders in its list's order, each folder's own folders
 * right after it): `parent ino ctimeMs name [hits]`, the parent's index among those lines (-1: the root), the inode
 * (-1: not read), the ctime (`-`: not settled), the name as a JSON string, and when it has hits, a space and their
 * JSON `[[path from the root, kind 0 file | 1 directory, verdict index], …]`. Read a line at a time, so a process
 * holds the text and the folders on one path down, never a parsed copy of the whole tree (format 3, one JSON
 * array, held ~3.6 MB of arrays and ~2 MB of records on the bench tree's 25,000 folders while every folder was
 * checked, enough to put a one-shot grep's peak past 100 MB). Format 5: format 4 (this one's layout) found no
 * symlink at a control folder below the top name (`.kiro/settings`, `mise/conf.d`). Format 6: format 5 masked a folder
 * named like a secret file whole (`credentials/`, its source code too); formats 1 to 5 load as nothing.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import * as StateFile from "../fs/StateFile.js"
import * as WorkspaceScan from "./WorkspaceScan.js"

const file = "scan-cache"
const format = "minicode-scan/6"
const kinds = ["file", "directory"] as const
const verdicts = ["mask", "sanitize", "pin", "hold", "link", "secret-link", "control"] as const

const isName = (s: string): boolean => s !== "" && s !== "." && s !== ".." && !s.includes("/") && !s.includes("\0")

const identity = (root: string): { readonly dev: number; readonly ino: number } | undefined => {
  const st = fs.lstatSync(root, { throwIfNoEntry: false })
  return st === undefined || !st.isDirectory() ? undefined : { dev: st.dev, ino: st.ino }
}

/** A decimal integer as `String` writes it (`-1`, `0`, `42`), else undefined. */
const integer = (text: string, from: number, to: number): number | undefined => {
  let at = from
  const negative = text.charCodeAt(at) === 45
  if (negative) at++
  if (at >= to || to - at > 15 || (text.charCodeAt(at) === 48 && to - at > 1)) return undefined
  let n = 0
  for (; at < to; at++) {
    const c = text.charCodeAt(at) - 48
    if (c < 0 || c > 9) return undefined
    n = n * 10 + c
  }
  return negative ? (n === 0 ? undefined : -n) : n
}

/** One stored folder, as `folders` hands it over. */
export interface Stored {
  readonly name: string
  /** Its absolute path (the root's: `root`). */
  readonly path: string
  readonly ino: number
  /** NaN: not settled when read (read again before it is trusted). */
  readonly ctimeMs: number
  readonly hits: ReadonlyArray<WorkspaceScan.Hit>
}

/**
 * Each folder last saved for `root`, in the walk's order: `visit` is told it with the value it returned for the
 * parent (undefined for the root), and returns the folder's own (undefined: stop, the answer is false); `leave` is
 * told each folder's value once every folder below it was visited. False when there is none, or anything is not
 * exactly as written (the caller scans in full).
 */
const folders = <T>(root: string, visit: (parent: T | undefined, f: Stored) => T | undefined, leave?: (value: T) => boolean): boolean => {
  const id = identity(root)
  const body = id === undefined ? undefined : StateFile.read(root, file, format)
  // Paths are built by concatenation (as path.join would give them for a normalized root and plain names).
  if (id === undefined || body === undefined || path.normalize(root) !== root || root.endsWith("/")) return false
  try {
    let nl = body.indexOf("\n")
    const head: unknown = JSON.parse(nl < 0 ? body : body.slice(0, nl))
    if (!Array.isArray(head) || head.length !== 3 || head[0] !== root || head[1] !== id.dev || head[2] !== id.ino || nl < 0) return false
    // The folders on the way down to the last one read: their line's index, value, inode, path, and subfolders' names.
    const indexes: Array<number> = []
    const values: Array<T> = []
    const inos: Array<number> = []
    const paths: Array<string> = []
    const names: Array<Set<string> | undefined> = []
    const pop = (): boolean => {
      indexes.pop()
      inos.pop()
      paths.pop()
      names.pop()
      const v = values.pop() as T
      return leave === undefined || leave(v)
    }
    let count = 0
    for (let at = nl + 1; at < body.length; at = nl + 1, count++) {
      nl = body.indexOf("\n", at)
      if (nl < 0) nl = body.length
      const s1 = body.indexOf(" ", at)
      const s2 = s1 < 0 || s1 > nl ? -1 : body.indexOf(" ", s1 + 1)
      const s3 = s2 < 0 || s2 > nl ? -1 : body.indexOf(" ", s2 + 1)
      if (s3 < 0 || s3 > nl || body.charCodeAt(s3 + 1) !== 34) return false
      const parent = integer(body, at, s1)
      const ino = integer(body, s1 + 1, s2)
      const ctimeText = body.slice(s2 + 1, s3)
      const ctimeMs = ctimeText === "-" ? Number.NaN : Number(ctimeText)
      if (parent === undefined || ino === undefined || ino < -1 || (ctimeText !== "-" && (!Number.isFinite(ctimeMs) || String(ctimeMs) !== ctimeText))) return false
      // The name: a JSON string, read as is when nothing in it is escaped.
      let end = s3 + 2
      let escaped = false
      for (; end < nl; end++) {
        const c = body.charCodeAt(end)
        if (c === 34) break
        if (c === 92) {
          escaped = true
          end++
        }
      }
      if (end >= nl) return false
      const quoted = escaped ? JSON.parse(body.slice(s3 + 1, end + 1)) : body.slice(s3 + 2, end)
      if (typeof quoted !== "string") return false
      const found: Array<WorkspaceScan.Hit> = []
      if (end + 1 < nl) {
        if (body.charCodeAt(end + 1) !== 32) return false
        const hits: unknown = JSON.parse(body.slice(end + 2, nl))
        if (!Array.isArray(hits) || hits.length === 0) return false
        for (const h of hits as Array<unknown>) {
          if (!Array.isArray(h) || h.length !== 3 || typeof h[0] !== "string" || h[0].includes("\0")) return false
          const kind = kinds[h[1] as number]
          const verdict = verdicts[h[2] as number]
          if (kind === undefined || verdict === undefined || !Number.isInteger(h[1]) || !Number.isInteger(h[2])) return false
          const p = h[0] === "" ? root : path.join(root, h[0])
          if (p !== root && !p.startsWith(`${root}/`)) return false
          found.push({ path: p, kind, verdict })
        }
      }
      if (ino === -1 && (!Number.isNaN(ctimeMs) || found.length > 0)) return false
      let dir: string
      if (count === 0) {
        if (parent !== -1 || quoted !== "") return false
        dir = root
      } else {
        // The parent is on the way down (the walk's order), read (a folder not read has nothing below it), and
        // holds no other folder of this name (not what a walk writes).
        if (parent < 0 || !isName(quoted)) return false
        while (indexes.length > 0 && indexes[indexes.length - 1] !== parent) if (!pop()) return false
        if (indexes.length === 0 || inos[inos.length - 1] === -1) return false
        const siblings = (names[names.length - 1] ??= new Set())
        if (siblings.has(quoted)) return false
        siblings.add(quoted)
        dir = WorkspaceScan.join(paths[paths.length - 1] as string, quoted)
      }
      const value = visit(values[values.length - 1], { name: quoted, path: dir, ino, ctimeMs, hits: found })
      if (value === undefined) return false
      indexes.push(count)
      values.push(value)
      inos.push(ino)
      paths.push(dir)
      names.push(undefined)
    }
    while (indexes.length > 0) if (!pop()) return false
    return count > 0
  } catch {
    return false
  }
}

/** The tree last saved for `root`, or undefined (none, or anything not exactly as written: a full scan). */
export const load = (root: string): WorkspaceScan.Folder | undefined => {
  let top: WorkspaceScan.Folder | undefined
  const lasts = new Map<WorkspaceScan.Folder, WorkspaceScan.Folder>()
  const ok = folders<WorkspaceScan.Folder>(
    root,
    (up, e) => {
      const f = WorkspaceScan.node(up === undefined ? root : e.name, up)
      if (up === undefined) top = f
      else {
        const last = lasts.get(up)
        if (last === undefined) up.first = f
        else last.next = f
        lasts.set(up, f)
      }
      f.ino = e.ino
      f.ctimeMs = e.ctimeMs
      if (e.hits.length > 0) f.hits = e.hits
      return f
    },
    (f) => {
      lasts.delete(f)
      return true
    }
  )
  return ok ? top : undefined
}

/** A hit as text, to compare a folder's read with what was stored of it. */
const said = (h: WorkspaceScan.Hit): string => `${h.verdict} ${h.kind} ${h.path}`

const sameSet = (a: ReadonlyArray<string>, b: ReadonlyArray<string>): boolean => {
  if (a.length !== b.length) return false
  const x = [...a].sort()
  const y = [...b].sort()
  return x.every((v, i) => v === y[i])
}

/** A stored folder listed again (its ctime changed): what the read found, and the stored subfolders' names as they come. */
interface Listed {
  readonly now: ReadonlyArray<string>
  readonly stored: Array<string>
}

/**
 * The stored hits when what every stored folder holds is still as stored: what a scan from the store would find.
 * One `lstat` per folder, no tree built; a folder whose ctime differs (any entry made, removed or renamed in it since:
 * a symlink or a hard link the host made, a file GitControl made and removed) is listed again, and must give the
 * same hits and the same subfolders; one of another inode, gone, or not readable as before: undefined (the caller
 * scans). Nothing is saved: what is read here is judged now, so the settle margin does not apply.
 */
export const unchanged = (root: string): ReadonlyArray<WorkspaceScan.Hit> | undefined => {
  const hits: Array<WorkspaceScan.Hit> = []
  // Per folder on the way down: the folder listed again, or `same` (its ctime unchanged).
  const same: Listed = { now: [], stored: [] }
  const ok = folders<Listed>(
    root,
    (up, e) => {
      if (up !== undefined && up !== same) up.stored.push(e.name)
      let st: fs.Stats | undefined
      try {
        st = fs.lstatSync(e.path, { throwIfNoEntry: false })
      } catch {
        // The scan masks a folder it cannot look at: not what was stored.
        return undefined
      }
      if (e.ino === -1) return st !== undefined && st.isDirectory() ? undefined : same
      if (st === undefined || !st.isDirectory() || st.ino !== e.ino) return undefined
      for (let k = 0; k < e.hits.length; k++) hits.push(e.hits[k] as WorkspaceScan.Hit)
      // A NaN ctime (not settled when read) never equals.
      if (st.ctimeMs === e.ctimeMs) return same
      const now = WorkspaceScan.node(e.name, undefined)
      try {
        WorkspaceScan.read(root, now, e.path, st, 0)
      } catch {
        return undefined
      }
      if (!sameSet(now.hits.map(said), e.hits.map(said))) return undefined
      const names: Array<string> = []
      for (let c = now.first; c !== undefined; c = c.next) names.push(c.name)
      return { now: names, stored: [] }
    },
    (l) => l === same || sameSet(l.now, l.stored)
  )
  return ok ? hits : undefined
}

/**
 * Saves the tree of `root` (the caller knows it changed). A folder saved here is trusted by a later process only as
 * far as the scan would trust it: by inode, ctime and settle window.
 */
export const save = (root: string, top: WorkspaceScan.Folder): void => {
  const id = identity(root)
  if (id === undefined || top.parent !== undefined || top.name !== root) return
  const lines: Array<string> = [JSON.stringify([root, id.dev, id.ino])]
  const rel = (p: string) => (p === root ? "" : path.relative(root, p))
  const stack: Array<WorkspaceScan.Folder> = [top]
  const parents: Array<number> = [-1]
  for (let f = stack.pop(), parent = parents.pop(); f !== undefined && parent !== undefined; f = stack.pop(), parent = parents.pop()) {
    const at = lines.length - 1
    const hits = f.hits.length === 0 ? "" : ` ${JSON.stringify(f.hits.map((h) => [rel(h.path), h.kind === "file" ? 0 : 1, verdicts.indexOf(h.verdict)]))}`
    lines.push(`${parent} ${f.ino} ${Number.isNaN(f.ctimeMs) ? "-" : String(f.ctimeMs)} ${JSON.stringify(parent === -1 ? "" : f.name)}${hits}`)
    // Pushed last to first, so popped (and written) in the list's order, each folder's own folders right after it.
    const subs: Array<WorkspaceScan.Folder> = []
    for (let c = f.first; c !== undefined; c = c.next) subs.push(c)
    for (let i = subs.length - 1; i >= 0; i--) {
      stack.push(subs[i] as WorkspaceScan.Folder)
      parents.push(at)
    }
  }
  try {
    StateFile.write(root, file, format, lines.join("\n"))
  } catch {
    // Not saved: the next process scans in full.
  }
}

/** The hooks `WatchedScan` takes (`store`). */
export const store = { load, save, unchanged }

/**
 * The same hooks with saves held until `keep` (the CLI's: the cache is written only after a call the gates let
 * through, so a refused call leaves minicode's state as it was; issue 42). The latest tree of each root is kept.
 */
export const held = () => {
  const pending = new Map<string, WorkspaceScan.Folder>()
  return {
    store: { load, unchanged, save: (root: string, top: WorkspaceScan.Folder) => void pending.set(root, top) },
    keep: (): void => {
      for (const [root, top] of pending) save(root, top)
      pending.clear()
    }
  }
}
