/**
 * Protected content under other names (issue 19), added to the workspace scan's hits at every scan, so the sandbox
 * masks it and the file tools refuse it (`Aliases`):
 *
 * - the target of a protected-name symlink (`.env -> env/development`, chains `.env -> a -> b` followed to the end,
 *   `.ssh -> dotfiles/ssh` a folder), resolved now (`realpath`), masked when it is inside the workspace;
 * - every other name of a protected file's inode (`ln .env docs/notes.txt`, made before minicode started or
 *   between two calls). Only a file with several links has one: the protected files are `lstat`ed (a few per
 *   workspace) and only when one has more than one link is the tree searched for the others, by `lstat` of its
 *   regular files, ending when every link is found. The search is kept while no folder was read again and no
 *   protected inode changed (a new link changes the inode's ctime, and its folder's).
 *
 * A target, once seen, is remembered (`.minicode/alias-targets`: its path and identity) while the same file is at
 * that path: sandboxed bash can remove the link itself (a symlink cannot be masked, a mount lands on its target),
 * and was a hole (red team AliasFamily): `rm .env` in one call, `read_file env/development` in the next.
 *
 * Why not in the per-folder cache: a symlink's target and a file's link count change without any event in the
 * folder that names them.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import * as Aliases from "../../domain/jail/Aliases.js"
import * as Jail from "../../domain/jail/Jail.js"
import * as StateFile from "../fs/StateFile.js"
import type * as WorkspaceScan from "./WorkspaceScan.js"

const targetsFile = "alias-targets"
const targetsFormat = "minicode-alias-targets/1"

interface Target {
  readonly path: string
  readonly dev: number
  readonly ino: number
}

/** The targets remembered for `root` (nothing when absent, unreadable or not as written). */
const remembered = (root: string): Array<Target> => {
  try {
    const body = StateFile.read(root, targetsFile, targetsFormat)
    if (body === undefined) return []
    const data: unknown = JSON.parse(body)
    if (!Array.isArray(data)) return []
    const out: Array<Target> = []
    for (const e of data as Array<unknown>) {
      if (!Array.isArray(e) || typeof e[0] !== "string" || typeof e[1] !== "number" || typeof e[2] !== "number") continue
      const p = path.join(root, e[0])
      if (p.startsWith(`${root}/`)) out.push({ path: p, dev: e[1], ino: e[2] })
    }
    return out
  } catch {
    return []
  }
}

const remember = (root: string, targets: ReadonlyArray<Target>): void => {
  try {
    StateFile.write(root, targetsFile, targetsFormat, JSON.stringify(targets.map((t) => [path.relative(root, t.path), t.dev, t.ino]).sort()))
  } catch {
    // Not kept: a link removed before the next scan leaves its target to names alone.
  }
}

/** At most this many entries are looked at below a masked folder for files with several links. */
const maskedFolderEntries = 2_000

export interface Found {
  readonly hits: ReadonlyArray<WorkspaceScan.Hit>
  readonly protected: Aliases.Protected
}

/** The last search of a root, reused while nothing it rests on changed. */
export interface Memo {
  snapshot: ReadonlyArray<unknown> | undefined
  signature: string
  links: ReadonlyArray<WorkspaceScan.Hit>
}

export const makeMemo = (): Memo => ({ snapshot: undefined, signature: "", links: [] })

const lstat = (p: string): fs.Stats | undefined => {
  try {
    return fs.lstatSync(p, { throwIfNoEntry: false })
  } catch {
    return undefined
  }
}

const inside = (root: string, p: string) => p.startsWith(`${root}/`)

/** The regular files below a masked folder (bounded), symlinks not followed. */
const filesBelow = (dir: string, out: Array<string>): void => {
  const stack = [dir]
  let seen = 0
  for (let d = stack.pop(); d !== undefined && seen < maskedFolderEntries; d = stack.pop()) {
    let list: Array<fs.Dirent>
    try {
      list = fs.readdirSync(d, { withFileTypes: true })
    } catch {
      continue
    }
    for (const e of list) {
      seen++
      const p = path.join(d, e.name)
      if (e.isDirectory()) stack.push(p)
      else if (e.isFile()) out.push(p)
    }
  }
}

/**
 * Every folder of the scan's tree (`top` at `root`), and its state: each folder record with what a read replaces in
 * it (hits, first subfolder, ctime). The same state means no folder was read again since.
 */
const walkTree = (root: string, top: WorkspaceScan.Folder | undefined): { readonly paths: Array<string>; readonly state: Array<unknown> } => {
  const paths: Array<string> = []
  const state: Array<unknown> = []
  if (top === undefined) return { paths, state }
  const stack: Array<WorkspaceScan.Folder> = [top]
  const at: Array<string> = [root]
  for (let f = stack.pop(), dir = at.pop(); f !== undefined && dir !== undefined; f = stack.pop(), dir = at.pop()) {
    paths.push(dir)
    state.push(f, f.hits, f.first, f.ctimeMs)
    for (let c = f.first; c !== undefined; c = c.next) {
      stack.push(c)
      at.push(path.join(dir, c.name))
    }
  }
  return { paths, state }
}

const sameState = (a: ReadonlyArray<unknown> | undefined, b: ReadonlyArray<unknown>): boolean =>
  a !== undefined && a.length === b.length && a.every((x, i) => Object.is(x, b[i]))

/** Every other name, under the walked folders, of the inodes in `wanted` (how many links each still has to find). */
const searchLinks = (folders: Iterable<string>, wanted: Map<string, number>, known: ReadonlySet<string>): Array<WorkspaceScan.Hit> => {
  const out: Array<WorkspaceScan.Hit> = []
  let left = 0
  for (const n of wanted.values()) left += n
  for (const dir of folders) {
    if (left <= 0) break
    let list: Array<fs.Dirent>
    try {
      list = fs.readdirSync(dir, { withFileTypes: true })
    } catch {
      continue
    }
    for (const e of list) {
      if (!e.isFile()) continue
      const p = path.join(dir, e.name)
      if (known.has(p)) continue
      const st = lstat(p)
      if (st === undefined || !st.isFile() || st.nlink < 2) continue
      const k = Aliases.key(st.dev, st.ino)
      const n = wanted.get(k)
      if (n === undefined) continue
      out.push({ path: p, kind: "file", verdict: "mask" })
      wanted.set(k, n - 1)
      left--
    }
  }
  return out
}

/** The protected symlinks' targets now, and the ones remembered (`added`: the hits they add), with the masked paths. */
const targetsOf = (root: string, hits: ReadonlyArray<WorkspaceScan.Hit>) => {
  const masked = new Set<string>()
  for (const h of hits) if (h.verdict === "mask") masked.add(h.path)
  const added: Array<WorkspaceScan.Hit> = []
  const targets: Array<Target> = []
  for (const h of hits) {
    if (h.verdict !== "secret-link") continue
    let real: string
    try {
      // The kernel's walk: the JS one is an lstat per component, for each protected symlink on every scan.
      real = fs.realpathSync.native(h.path)
    } catch {
      continue
    }
    // Outside the workspace, the jail and the sandbox's own view decide; the root itself or a folder holding the
    // link is no secret's folder (masking it would hide the link's own folder).
    if (!inside(root, real) || masked.has(real) || inside(real, h.path)) continue
    const st = lstat(real)
    if (st === undefined || !(st.isFile() || st.isDirectory())) continue
    masked.add(real)
    added.push({ path: real, kind: st.isFile() ? "file" : "directory", verdict: "mask" })
    targets.push({ path: real, dev: st.dev, ino: st.ino })
  }
  // Targets seen before, still the same file at the same path: protected though their link is gone.
  const before = remembered(root)
  for (const t of before) {
    if (targets.some((n) => n.path === t.path)) continue
    const st = lstat(t.path)
    if (st === undefined || st.dev !== t.dev || st.ino !== t.ino || !(st.isFile() || st.isDirectory())) continue
    targets.push(t)
    if (masked.has(t.path)) continue
    masked.add(t.path)
    added.push({ path: t.path, kind: st.isFile() ? "file" : "directory", verdict: "mask" })
  }
  const key = (ts: ReadonlyArray<Target>) => ts.map((t) => `${t.path}\0${t.dev}:${t.ino}`).sort().join("\n")
  return { masked, added, targets, news: key(targets) !== key(before) }
}

/**
 * Where the symlinks at editor control names lead inside the workspace (the scan's `control` hits that are links:
 * `.vscode -> config/vscode`, `.vscode/tasks.json -> ../cfg/tasks.json`), with those names: the editor follows them,
 * so the file tools judge a write there by the name the editor reads (`Aliases.controlNames`). A few per workspace.
 * `way`: every path such a link's resolution passes (the links on the way, and where it ends).
 */
const controlLinks = (root: string, hits: ReadonlyArray<WorkspaceScan.Hit>): { readonly controls: ReadonlyMap<string, string>; readonly way: ReadonlySet<string> } => {
  const controls = new Map<string, string>()
  const way = new Set<string>()
  for (const h of hits) {
    if (h.verdict !== "control" || lstat(h.path)?.isSymbolicLink() !== true) continue
    const r = resolve(h.path)
    if (r === undefined) continue
    for (const p of [...r.through, r.real]) if (inside(root, p)) way.add(p)
    if (inside(root, r.real) && !controls.has(r.real)) controls.set(r.real, path.relative(root, h.path))
  }
  return { controls, way }
}

/**
 * Where `p` leads, following every symlink on the way (dangling ones too: the part that does not exist is kept as
 * written), and the symlinks passed. Was a hole: with `.vscode -> config/vscode` and `config` moved away, move_file of
 * a folder to `config` put its `vscode/tasks.json` where the editor reads `.vscode` from, judged by no control name.
 */
const resolve = (p: string): { readonly real: string; readonly through: ReadonlyArray<string> } | undefined => {
  const todo = p.split("/").filter((c) => c !== "")
  const through: Array<string> = []
  let at = "/"
  for (let hops = 0, c = todo.shift(); c !== undefined; c = todo.shift()) {
    if (c === ".") continue
    if (c === "..") {
      at = path.dirname(at)
      continue
    }
    const next = path.join(at, c)
    if (lstat(next)?.isSymbolicLink() !== true) {
      at = next
      continue
    }
    if (++hops > 40) return undefined
    let target: string
    try {
      target = fs.readlinkSync(next)
    } catch {
      return undefined
    }
    through.push(next)
    todo.unshift(...target.split("/").filter((t) => t !== ""))
    if (target.startsWith("/")) at = "/"
  }
  return { real: at, through }
}

/**
 * What the file tools must refuse, for a question about a folder or a file with a single link only (a one-shot
 * read_file, write_file, edit_file), from the hits of a scan that read no folder again (`ScanStore.unchanged`):
 * no other name can share such a file's inode, so the search for other links (`extend`) has nothing to say of it,
 * and only a protected symlink's target (now or remembered) or a protected path can cover it. Undefined when the
 * remembered targets would change (`extend` then writes them).
 */
export const singleLink = (root: string, hits: ReadonlyArray<WorkspaceScan.Hit>): Aliases.Protected | undefined => {
  const t = targetsOf(root, hits)
  if (t.news) return undefined
  const inodes = new Set<string>()
  for (const target of t.targets) inodes.add(Aliases.key(target.dev, target.ino))
  const viaLinks = controlLinks(root, hits)
  return { paths: t.masked, inodes, controls: viaLinks.controls, controlWay: viaLinks.way }
}

/** The protected files' inodes, and per inode with links not named protected yet, how many are left to find. */
const protectedFiles = (root: string, hits: ReadonlyArray<WorkspaceScan.Hit>, added: ReadonlyArray<WorkspaceScan.Hit>) => {
  const files: Array<string> = []
  for (const h of [...hits, ...added]) {
    if (h.verdict !== "mask") continue
    if (h.kind === "file") files.push(h.path)
    // A secret folder's files (`.ssh/id_ed25519`); not minicode's state or git's hooks, protected from change only.
    else if (Jail.protectedName(h.path, root)?.kind === "secret" && !h.path.split("/").includes(".git")) filesBelow(h.path, files)
  }
  const inodes = new Set<string>()
  // Per inode with several links: its link count and how many of its names are protected ones already.
  const linked = new Map<string, { nlink: number; named: number; ctimeMs: number }>()
  for (const f of files) {
    const st = lstat(f)
    if (st === undefined || !st.isFile()) continue
    const k = Aliases.key(st.dev, st.ino)
    inodes.add(k)
    if (st.nlink < 2) continue
    const seen = linked.get(k)
    if (seen === undefined) linked.set(k, { nlink: st.nlink, named: 1, ctimeMs: st.ctimeMs })
    else seen.named++
  }
  const wanted = new Map<string, number>()
  const signature: Array<string> = []
  for (const [k, l] of linked) {
    if (l.nlink > l.named) wanted.set(k, l.nlink - l.named)
    signature.push(`${k}:${l.nlink}:${l.ctimeMs}`)
  }
  return { inodes, wanted, signature: signature.sort().join(" ") }
}

const found = (root: string, hits: ReadonlyArray<WorkspaceScan.Hit>, added: ReadonlyArray<WorkspaceScan.Hit>, links: ReadonlyArray<WorkspaceScan.Hit>, inodes: ReadonlySet<string>): Found => {
  const all = added.length === 0 && links.length === 0 ? hits : [...hits, ...added, ...links]
  const paths = new Set<string>()
  for (const h of all) if (h.verdict === "mask") paths.add(h.path)
  const viaLinks = controlLinks(root, hits)
  return { hits: all, protected: { paths, inodes, controls: viaLinks.controls, controlWay: viaLinks.way } }
}

/**
 * The hits with protected content under other names added, and what the file tools must refuse. `top`: the
 * scan's tree of `root` (the walk's cache), whose folders the search for other links lists.
 */
export const extend = (root: string, hits: ReadonlyArray<WorkspaceScan.Hit>, top: WorkspaceScan.Folder | undefined, memo: Memo): Found => {
  const { masked, added, targets, news } = targetsOf(root, hits)
  if (news) remember(root, targets)
  const { inodes, wanted, signature } = protectedFiles(root, hits, added)
  let links: ReadonlyArray<WorkspaceScan.Hit> = []
  if (wanted.size > 0) {
    const tree = walkTree(root, top)
    if (signature === memo.signature && sameState(memo.snapshot, tree.state)) links = memo.links
    else {
      links = searchLinks(tree.paths, wanted, masked)
      memo.signature = signature
      memo.snapshot = tree.state
      memo.links = links
    }
  }
  return found(root, hits, added, links, inodes)
}

/**
 * `extend`'s answer from the hits of a scan that read no folder again (`ScanStore.unchanged`), without the scan's
 * tree: when no protected file has a link that is not a protected name already, the search for other links has
 * nothing to find, and the answer is the same. Undefined when it has (the caller scans, and `extend` searches every
 * folder), or when the remembered targets would change (`extend` then writes them).
 */
export const withoutTree = (root: string, hits: ReadonlyArray<WorkspaceScan.Hit>): Found | undefined => {
  const { added, news } = targetsOf(root, hits)
  if (news) return undefined
  const { inodes, wanted } = protectedFiles(root, hits, added)
  return wanted.size > 0 ? undefined : found(root, hits, added, [], inodes)
}
