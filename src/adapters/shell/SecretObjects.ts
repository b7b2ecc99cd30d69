/**
 * Object stores the sandbox hides whatever the workspace repository's history says (issue 19, red team):
 *
 * - **A store that holds a protected file's current content.** `git add .env` then `git reset .env` (or a stash,
 *   or a blob written by any tool) leaves the secret's blob in the store, reachable from no ref or reflog, so the
 *   history check (`GitTools.secretHistory`) cannot see it, and `git cat-file --batch-all-objects --batch` prints
 *   it. Every protected file the scan masks is hashed as git would (`blob <size>\0<content>`, cached by inode, size
 *   and times) and looked up in each store: the loose object's file, and every pack's `.idx` (v2, binary search).
 * - **Nested repositories' stores** (a clone inside the workspace, `.git/modules/*` of submodules). Their history
 *   is never checked (that would run git on the host against a repository the workspace controls), so their
 *   objects are always hidden; git in a nested repository from bash then reports missing objects.
 */
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Profile from "../../domain/sandbox/SandboxProfile.js"
import type * as WorkspaceScan from "./WorkspaceScan.js"

const lstat = (p: string) => fs.lstatSync(p, { throwIfNoEntry: false })

const blobIds = new Map<string, { readonly key: string; readonly id: string | undefined }>()
/** git's blob id of a regular file, or undefined (not a file, unreadable, over 64 MB). */
const blobId = (file: string): string | undefined => {
  const st = lstat(file)
  if (st === undefined || !st.isFile() || st.size > 64 * 1024 * 1024) return undefined
  const key = `${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`
  const known = blobIds.get(file)
  if (known !== undefined && known.key === key) return known.id
  let id: string | undefined
  try {
    const content = fs.readFileSync(file)
    id = createHash("sha1").update(`blob ${content.length}\0`).update(content).digest("hex")
  } catch {
    id = undefined
  }
  blobIds.set(file, { key, id })
  return id
}

/** The files of a masked folder (a `.ssh`, a `.aws`), a few levels and a bounded number. */
const filesUnder = (dir: string, out: Array<string>, depth = 0) => {
  if (depth > 3 || out.length > 500) return
  let list: Array<fs.Dirent> = []
  try {
    list = fs.readdirSync(dir, { withFileTypes: true })
  } catch {
    return
  }
  for (const d of list) {
    const p = path.join(dir, d.name)
    if (d.isFile()) out.push(p)
    else if (d.isDirectory()) filesUnder(p, out, depth + 1)
  }
}

const packs = new Map<string, { readonly key: string; readonly ids: Buffer; readonly count: number }>()
/** The sorted object ids of a pack index (version 2), cached by size and mtime. */
const packIds = (idx: string): { readonly ids: Buffer; readonly count: number } | undefined => {
  const st = lstat(idx)
  if (st === undefined || !st.isFile()) return undefined
  const key = `${st.ino}:${st.size}:${st.mtimeMs}`
  const known = packs.get(idx)
  if (known !== undefined && known.key === key) return known
  try {
    const b = fs.readFileSync(idx)
    if (b.readUInt32BE(0) !== 0xff744f63 || b.readUInt32BE(4) !== 2) return undefined
    const count = b.readUInt32BE(8 + 255 * 4)
    const entry = { key, ids: b.subarray(8 + 256 * 4, 8 + 256 * 4 + 20 * count), count }
    packs.set(idx, entry)
    return entry
  } catch {
    return undefined
  }
}

const inPack = (pack: { readonly ids: Buffer; readonly count: number }, id: Buffer): boolean => {
  let lo = 0
  let hi = pack.count - 1
  while (lo <= hi) {
    const mid = (lo + hi) >> 1
    const c = pack.ids.compare(id, 0, 20, mid * 20, mid * 20 + 20)
    if (c === 0) return true
    if (c < 0) lo = mid + 1
    else hi = mid - 1
  }
  return false
}

/** Whether an objects folder holds any of these blob ids, loose or packed. */
export const holdsAny = (objects: string, ids: ReadonlyArray<string>): boolean => {
  if (ids.length === 0) return false
  for (const id of ids) if (lstat(path.join(objects, id.slice(0, 2), id.slice(2))) !== undefined) return true
  let names: Array<string> = []
  try {
    names = fs.readdirSync(path.join(objects, "pack")).filter((n) => n.endsWith(".idx"))
  } catch {
    return false
  }
  const raw = ids.map((id) => Buffer.from(id, "hex"))
  for (const n of names) {
    const pack = packIds(path.join(objects, "pack", n))
    if (pack !== undefined && raw.some((id) => inPack(pack, id))) return true
  }
  return false
}

/** Object folders of every git folder below `gitDir/modules` (submodules' repositories). */
const moduleStores = (gitDir: string, out: Array<string>, depth = 0) => {
  if (depth > 6) return
  let list: Array<fs.Dirent> = []
  try {
    list = fs.readdirSync(path.join(gitDir, "modules"), { withFileTypes: true })
  } catch {
    return
  }
  for (const d of list) {
    if (!d.isDirectory()) continue
    const sub = path.join(gitDir, "modules", d.name)
    for (const name of Profile.objectFolders) if (lstat(path.join(sub, name))?.isDirectory() === true) out.push(path.join(sub, name))
    moduleStores(sub, out, depth + 1)
  }
}

/**
 * The object folders (inside the workspace) the sandbox must mask: nested repositories' and submodules' always,
 * the workspace repository's when it holds a masked file's content.
 */
export const toHide = (workspace: string, hits: ReadonlyArray<WorkspaceScan.Hit>): ReadonlyArray<string> => {
  const rootGit = path.join(workspace, ".git")
  const hide: Array<string> = []
  for (const h of hits) {
    if (h.verdict !== "pin" || h.kind !== "directory" || h.path === rootGit) continue
    for (const name of Profile.objectFolders) if (lstat(path.join(h.path, name))?.isDirectory() === true) hide.push(path.join(h.path, name))
    moduleStores(h.path, hide)
  }
  if (lstat(rootGit)?.isDirectory() !== true) return hide
  moduleStores(rootGit, hide)
  const files: Array<string> = []
  for (const h of hits) {
    if (h.verdict !== "mask" || h.path.split("/").includes(".git")) continue
    if (h.kind === "file") files.push(h.path)
    else filesUnder(h.path, files)
  }
  const ids = files.map(blobId).filter((id): id is string => id !== undefined)
  const objects = path.join(rootGit, "objects")
  let real: string | undefined
  try {
    real = fs.realpathSync(objects)
  } catch {
    real = undefined
  }
  if (real !== undefined && holdsAny(real, ids)) hide.push(real)
  return hide
}
