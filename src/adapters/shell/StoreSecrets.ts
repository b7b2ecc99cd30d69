/**
 * Which objects of a workspace's store are protected content, whatever reaches them (issue 19, red team). A secret
 * staged then unstaged and changed (`git add .env; git reset .env; echo B > .env`), deleted, in a dropped stash, in
 * an amended commit whose reflog expired, in an unreachable tree, packed by `git gc` or `git repack -a`, or named by
 * another worktree's index: no ref or reflog reaches it, so the history check (`GitTools.secretHistory`) cannot
 * see it, and the file's current content (what the scan hashes) is another. Two sources, remembered:
 *
 * - **Every protected file's content minicode ever saw** (the scan's blob ids), remembered for the workspace.
 * - **Every blob a tree or an index names at a protected path**, reachable or not: loose trees, trees in packs
 *   (read and rebuilt from their deltas here, `GitStore`, without running git) and the linked worktrees' index
 *   files (the workspace's own is the history check's). A folder named like a secret (`.ssh`) makes the whole subtree secret, and a tree's entries are
 *   also judged below the names its parents (in the same batch) give it (`.docker/config.json`).
 *
 * Blobs nobody names (no tree, no index) are content nobody can vouch for: loose, each is masked; packed (a cruft
 * pack of `git gc --cruft`, `git repack -a --keep-unreachable`, a `.keep` pack), the pack is (`unattributedPacks`).
 *
 * The ids and what was read (pack names and their unnamed blobs, loose ids, index files by inode, size and time)
 * are kept in `secret-objects.json` of the workspace's state folder (`StateHome`, outside it, never in a sandbox): a call reads only what is new in the store,
 * so the check stays cheap. A pack whose index or body cannot be read counts as holding a secret. The first check
 * of a big pack costs about a second of CPU: `checkSteps` pauses every few milliseconds so its caller can let the
 * event loop turn (SecretObjects.toHideEffect).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import * as Jail from "../../domain/jail/Jail.js"
import * as StateHome from "../fs/StateHome.js"
import * as GitStore from "./GitStore.js"

const lstat = (p: string | undefined) => (p === undefined ? undefined : fs.lstatSync(p, { throwIfNoEntry: false }))

interface Known {
  /** Ids of protected content: blobs, and trees of folders named like a secret. */
  readonly secret: Set<string>
  /** Packs (by path) whose trees were read; loose objects whose type was read. */
  readonly packs: Set<string>
  readonly loose: Set<string>
  /** Index files read, by path: their inode, size and times. */
  readonly indexes: Map<string, string>
  /** Loose objects read that are blobs, and every blob id a tree or an index names (at any path). */
  readonly blobs: Set<string>
  readonly named: Set<string>
  /**
   * Per pack read, its blobs that no tree and no index named when it was read (and none has since): content nobody
   * can vouch for, as unattributed loose blobs are. A cruft pack (`git gc --cruft`), `git repack -A`/`-a
   * --keep-unreachable`, a `.keep` pack or `git pack-objects` of everything holds such blobs.
   */
  readonly packBlobs: Map<string, ReadonlyArray<string>>
  /**
   * Objects that first appeared in a store while a writable sandboxed call ran (`noteMade`, or a check during
   * another's call): content the writer knew, since every protected file is masked in the sandbox. They never make
   * a store hold protected content, nor are they hidden by the git tools, even when their id is a protected file's
   * content. Was an oracle (red team): bash wrote the blob of a guess (`git hash-object -w`); the next call found
   * the store hidden exactly when the guess was `.env`'s content, and git_show hid a commit's file exactly then.
   */
  readonly made: Set<string>
}

const stateName = "secret-objects.json"
const stateFile = (workspace: string) => StateHome.fileIn(workspace, stateName)

const memory = new Map<string, { readonly key: string; readonly known: Known }>()

const fileKey = (st: fs.Stats) => `${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`

const strings = (v: unknown): Array<string> => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [])

/**
 * Ids of protected content found since the state file was last written whole, one per line, appended (`addSeen`):
 * most calls learn only those (`.minicode/state.db`, which the journal changes each call, is protected content
 * hashed like any other), and rewriting the whole state file (megabytes on a big store) for them cost each call
 * tens of milliseconds. Merged into the state file, and emptied, when it is written next.
 */
const addedName = "secret-objects.add"
const addedFile = (workspace: string) => StateHome.fileIn(workspace, addedName)

/** Past this size the additions are folded into the state file. */
const maxAdded = 256 * 1024

const isId = (s: string) => /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/.test(s)

/** The ids appended since the state file was last written (a torn last line is left out). */
const addedIds = (file: string | undefined): Array<string> => {
  if (file === undefined) return []
  try {
    const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK)
    try {
      if (!fs.fstatSync(fd).isFile()) return []
      return fs.readFileSync(fd, "latin1").split("\n").filter(isId)
    } finally {
      fs.closeSync(fd)
    }
  } catch {
    return []
  }
}

/** What the memory copy was made from: the state file and the additions beside it. */
const keyOf = (workspace: string): string | undefined => {
  const st = lstat(stateFile(workspace))
  const add = lstat(addedFile(workspace))
  return st === undefined && add === undefined ? undefined : `${st === undefined ? "-" : fileKey(st)}+${add === undefined ? "-" : fileKey(add)}`
}

/**
 * What the state file (and the additions beside it) hold, kept in memory while they are unchanged: parsing the file
 * (megabytes on a big store: every blob id a tree names) cost each sandboxed call ~40 ms on the 60k bench tree.
 */
const load = (workspace: string): Known => loadKeyed(workspace).known

const loadKeyed = (workspace: string): { readonly key: string | undefined; readonly known: Known } => {
  const key = keyOf(workspace)
  const cached = memory.get(workspace)
  if (key !== undefined && cached !== undefined && cached.key === key) return { key, known: cached.known }
  const known = parse(workspace)
  if (key !== undefined) memory.set(workspace, { key, known })
  return { key, known }
}

const parse = (workspace: string): Known => {
  const file = stateFile(workspace)
  const known: Known = { secret: new Set(), packs: new Set(), loose: new Set(), indexes: new Map(), blobs: new Set(), named: new Set(), packBlobs: new Map(), made: new Set() }
  for (const id of addedIds(addedFile(workspace))) known.secret.add(id)
  if (file === undefined || lstat(file)?.isFile() !== true) return known
  try {
    const raw: unknown = JSON.parse(fs.readFileSync(file, "utf8"))
    if (typeof raw !== "object" || raw === null) return known
    const o = raw as Record<string, unknown>
    for (const id of strings(o["secret"])) known.secret.add(id)
    const packBlobs = o["packBlobs"]
    if (typeof packBlobs === "object" && packBlobs !== null) for (const [k, v] of Object.entries(packBlobs)) known.packBlobs.set(k, strings(v))
    // A pack read before its blobs were listed (an older state file) is read again.
    for (const p of strings(o["packs"])) if (known.packBlobs.has(p)) known.packs.add(p)
    for (const id of strings(o["loose"])) known.loose.add(id)
    for (const id of strings(o["blobs"])) known.blobs.add(id)
    for (const id of strings(o["named"])) known.named.add(id)
    for (const id of strings(o["made"])) known.made.add(id)
    const idx = o["indexes"]
    if (typeof idx === "object" && idx !== null) for (const [k, v] of Object.entries(idx)) if (typeof v === "string") known.indexes.set(k, v)
  } catch {
    // A torn or foreign file: everything is read again.
  }
  return known
}

/** The state folder (`StateHome`, outside the workspace), made when missing; throws when there is none to write in. */
const stateDir = (workspace: string): string => StateHome.folder(workspace)

/** Writes what is known (merged with what another process wrote meanwhile), beside the journal; best effort. */
const save = (workspace: string, known: Known) => {
  try {
    const dir = stateDir(workspace)
    // The additions are taken aside first: whatever another process appends from now on lands in a new file.
    const taken = path.join(dir, `secret-objects.${process.pid}.${Math.random().toString(36).slice(2)}.taken`)
    let took = false
    try {
      fs.renameSync(path.join(dir, addedName), taken)
      took = true
    } catch {
      // none
    }
    memory.delete(workspace)
    const other = load(workspace)
    for (const id of other.secret) known.secret.add(id)
    for (const id of other.made) known.made.add(id)
    if (took) for (const id of addedIds(taken)) known.secret.add(id)
    const body = JSON.stringify({
      secret: [...known.secret],
      packs: [...known.packs],
      loose: [...known.loose],
      blobs: [...known.blobs],
      named: [...known.named],
      made: [...known.made],
      packBlobs: Object.fromEntries([...known.packBlobs].filter(([p]) => known.packs.has(p))),
      indexes: Object.fromEntries(known.indexes)
    })
    const tmp = path.join(dir, `secret-objects.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`)
    fs.writeFileSync(tmp, body, { mode: 0o600, flag: "wx" })
    fs.renameSync(tmp, path.join(dir, stateName))
    if (took) fs.rmSync(taken, { force: true })
    // Additions another process made since are not in `known`: read back next time.
    const key = lstat(path.join(dir, addedName)) === undefined ? keyOf(workspace) : undefined
    if (key !== undefined) memory.set(workspace, { key, known })
    else memory.delete(workspace)
  } catch {
    // A read-only workspace: remembered for this process only.
    memory.delete(workspace)
  }
}

/** Appends ids of protected content (nothing else new): one short write instead of the whole state file. */
const addSeen = (workspace: string, known: Known, ids: ReadonlyArray<string>) => {
  if (ids.some((id) => !isId(id)) || (lstat(addedFile(workspace))?.size ?? 0) > maxAdded) return save(workspace, known)
  try {
    const dir = stateDir(workspace)
    const fd = fs.openSync(path.join(dir, addedName), fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT | fs.constants.O_NOFOLLOW, 0o600)
    let after: fs.Stats
    let alone: boolean
    try {
      const before = fs.fstatSync(fd)
      if (!before.isFile()) throw new Error("not a file")
      const text = ids.map((id) => `${id}\n`).join("")
      fs.writeSync(fd, text)
      after = fs.fstatSync(fd)
      // Nobody else appended meanwhile, so `known` holds all the file does.
      alone = after.size === before.size + text.length
    } finally {
      fs.closeSync(fd)
    }
    const st = lstat(stateFile(workspace))
    if (alone) memory.set(workspace, { key: `${st === undefined ? "-" : fileKey(st)}+${fileKey(after)}`, known })
    else memory.delete(workspace)
  } catch {
    memory.delete(workspace)
  }
}

/**
 * Reads a batch of trees: every entry at a protected name (judged alone and below each name a parent in the batch
 * gives its tree) is secret, and so is everything below a protected folder. Each body is parsed again where needed
 * rather than every tree's entries kept at once (a big history's trees hold hundreds of thousands of entries).
 */
function* judgeTrees(
  workspace: string,
  trees: ReadonlyMap<string, Buffer>,
  secret: Set<string>,
  named: Set<string>,
  pause: () => GitStore.Steps<void>
): GitStore.Steps<void> {
  const entriesOf = (id: string) => {
    const body = trees.get(id)
    return body === undefined ? [] : GitStore.treeEntries(body)
  }
  const names = new Map<string, Set<string>>()
  for (const [, body] of trees) {
    yield* pause()
    for (const e of GitStore.treeEntries(body)) {
      if (e.kind === "blob") named.add(e.id)
      else if (e.kind === "tree") (names.get(e.id) ?? names.set(e.id, new Set()).get(e.id))?.add(e.name)
    }
  }
  // Names repeat across a history's trees: each (folder, name) is judged once.
  const judged = new Map<string, boolean>()
  const judge = (pre: string, name: string) => {
    const key = `${pre}/${name}`
    let v = judged.get(key)
    if (v === undefined) {
      v = Jail.sensitiveReason(path.join(workspace, pre, name), workspace) !== undefined
      judged.set(key, v)
    }
    return v
  }
  const secretTrees: Array<string> = []
  for (const [id, body] of trees) {
    yield* pause()
    const prefixes = ["", ...(names.get(id) ?? [])]
    for (const e of GitStore.treeEntries(body)) {
      if (e.kind === "commit") continue
      if (!prefixes.some((pre) => judge(pre, e.name))) continue
      secret.add(e.id)
      if (e.kind === "tree") secretTrees.push(e.id)
    }
  }
  for (let t = secretTrees.pop(); t !== undefined; t = secretTrees.pop()) {
    yield* pause()
    for (const e of entriesOf(t)) {
      if (e.kind === "commit" || secret.has(e.id)) continue
      secret.add(e.id)
      if (e.kind === "tree") secretTrees.push(e.id)
    }
  }
}

/**
 * The index files of a git folder's linked worktrees (and their split indexes' shared files). The workspace's own
 * index is the history check's (`git ls-files --stage` in `GitTools.secretHistory`): judging its every path here
 * would cost a big repository's call ~0.4 s after each `git add`.
 */
const indexFiles = (gitDir: string): Array<string> => {
  const out: Array<string> = []
  const list = (dir: string) => {
    try {
      return fs.readdirSync(dir)
    } catch {
      return []
    }
  }
  for (const w of list(path.join(gitDir, "worktrees"))) {
    for (const n of list(path.join(gitDir, "worktrees", w))) if (n === "index" || n.startsWith("sharedindex.")) out.push(path.join(gitDir, "worktrees", w, n))
  }
  return out
}

/** Pack indexes read, by path, with the inode, size and times they were read at: git never rewrites one in place. */
const packIndexes = new Map<string, PackEntry>()

interface PackEntry {
  readonly key: string
  readonly index: GitStore.PackIndex | undefined
  /** Ids looked up in this index (as it was read) and not found: each call looks up only the newly protected ones. */
  readonly absent: Set<string>
}

/**
 * A pack's index, read again only when its file changed (a 2 MB read and copy per call on the 60k bench tree). The
 * key is the open file's own (`fstat`), so the content read is the content keyed.
 */
const packIndex = (idx: string): PackEntry | undefined => {
  try {
    const fd = fs.openSync(idx, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK)
    try {
      const st = fs.fstatSync(fd)
      const key = fileKey(st)
      const known = packIndexes.get(idx)
      if (known !== undefined && known.key === key) return known
      const entry = { key, index: st.isFile() ? GitStore.readPackIndex(fs.readFileSync(fd)) : undefined, absent: new Set<string>() }
      packIndexes.set(idx, entry)
      return entry
    } finally {
      fs.closeSync(fd)
    }
  } catch {
    packIndexes.delete(idx)
    return undefined
  }
}

/** A store's pack files (paths); none when it has no readable `pack` folder. */
const packFiles = (objects: string): ReadonlyArray<string> => {
  try {
    return fs
      .readdirSync(path.join(objects, "pack"))
      .filter((n) => n.endsWith(".pack"))
      .map((n) => path.join(objects, "pack", n))
  } catch {
    return []
  }
}

/** The ids of a pack (its index as read) that no loose object and no other pack read before held. */
const newIn = (known: Known, pack: string, index: GitStore.PackIndex): Array<string> => {
  const others = [...known.packs].filter((p) => p !== pack).flatMap((p) => packIndex(p.replace(/\.pack$/, ".idx"))?.index ?? [])
  const out: Array<string> = []
  for (let i = 0; i < index.count; i++) {
    const raw = index.ids.subarray(i * 20, i * 20 + 20)
    const id = raw.toString("hex")
    if (!known.loose.has(id) && others.every((o) => GitStore.find(o, raw) < 0)) out.push(id)
  }
  return out
}

/**
 * After a writable sandboxed call: the objects it added to the stores (loose, or in a pack it wrote) are `made`
 * (see `Known.made`). What is already known (the check before the call read it) is not. `exposed`: a mask broke
 * during the call (MaskGuard), so what it added may hold what it read: each is protected content instead (left: one
 * another call's check read meanwhile, while this one ran, stays made).
 */
export const noteMade = (workspace: string, stores: ReadonlyArray<string>, exposed = false): void => {
  const known = load(workspace)
  const fresh: Array<string> = []
  for (const objects of stores) {
    for (const id of GitStore.looseIds(objects).ids) if (!known.loose.has(id)) fresh.push(id)
    for (const pack of packFiles(objects)) {
      if (known.packs.has(pack)) continue
      const index = packIndex(pack.replace(/\.pack$/, ".idx"))?.index
      if (index !== undefined) fresh.push(...newIn(known, pack, index))
    }
  }
  const changes = exposed ? fresh.filter((id) => !known.secret.has(id)) : fresh.filter((id) => !known.made.has(id))
  if (changes.length === 0) return
  for (const id of changes) {
    if (exposed) (known.secret.add(id), known.made.delete(id))
    else known.made.add(id)
  }
  save(workspace, known)
}

/** Remembered protected ids less what a sandboxed call made (`Known.made`): what the git tools hide. */
const unmade = (known: Known): ReadonlySet<string> => (known.made.size === 0 ? known.secret : new Set([...known.secret].filter((id) => !known.made.has(id))))

/** Whether a sandboxed call made this object (`Known.made`). */
export const madeIds = (workspace: string): ReadonlySet<string> => load(workspace).made

export interface StoreView {
  /** Whether a store holds protected content (or cannot be read). */
  readonly holds: (objects: string) => boolean
  /** Folders where a store's objects really are, elsewhere than the store (symlinked fan-out folders). */
  readonly elsewhere: ReadonlyArray<string>
  /**
   * The files of a store's loose blobs that no tree and no index names, at any path: content nobody can vouch for
   * (a secret staged and unstaged before minicode ever saw it, then changed or removed). Was a hole (red team):
   * `git cat-file --batch-all-objects --batch` in bash printed the old key. The sandbox masks each such file.
   */
  readonly unattributed: (objects: string) => ReadonlyArray<string>
  /**
   * The pack files of a store holding such blobs (`Known.packBlobs`): a blob inside a pack cannot be masked alone,
   * so the sandbox masks the pack. Was a hole (red team): `git gc --cruft` packed the unstaged secret's blob, and
   * `git cat-file` in bash printed it.
   */
  readonly unattributedPacks: (objects: string) => ReadonlyArray<string>
}

/**
 * Remembers `seen` (the current protected contents' blob ids), reads what is new in the stores and in `gitDir`'s
 * index files, and tells which of the stores hold protected content. Pauses between slices of work (`Steps`): the
 * caller decides whether the event loop turns meanwhile (`checkEffect`) or not (`check`).
 */
export function* checkSteps(
  workspace: string,
  gitDir: string,
  stores: ReadonlyArray<string>,
  seen: ReadonlyArray<string>,
  during = false
): GitStore.Steps<StoreView> {
  const pause = GitStore.pacer()
  const loaded = loadKeyed(workspace)
  const known = loaded.known
  // Out of memory while the check runs: one interrupted half-way (a pack marked read before its trees are judged)
  // must leave nothing half-learned for the next call to trust. Put back (or saved) when it ends.
  memory.delete(workspace)
  let changed = false
  /** Ids of protected content new to the state (appended when nothing else changed). */
  const added: Array<string> = []
  for (const id of seen) {
    if (!known.secret.has(id)) {
      known.secret.add(id)
      added.push(id)
    }
  }
  for (const file of indexFiles(gitDir)) {
    const st = lstat(file)
    if (st?.isFile() !== true || known.indexes.get(file) === fileKey(st)) continue
    let entries: ReturnType<typeof GitStore.indexEntries>
    try {
      entries = GitStore.indexEntries(fs.readFileSync(file))
    } catch {
      entries = undefined
    }
    for (const e of entries ?? []) if (Jail.sensitiveReason(path.join(workspace, e.path), workspace) !== undefined) known.secret.add(e.id)
    for (const e of entries ?? []) known.named.add(e.id)
    known.indexes.set(file, fileKey(st))
    changed = true
    yield* pause(true)
  }
  // The workspace's own index names what is staged (its paths are the history check's): attribution only.
  const own = path.join(gitDir, "index")
  const ownSt = lstat(own)
  if (ownSt?.isFile() === true && known.indexes.get(`named:${own}`) !== fileKey(ownSt)) {
    yield* pause(true)
    try {
      for (const e of GitStore.indexEntries(fs.readFileSync(own), false) ?? []) known.named.add(e.id)
    } catch {
      // unreadable: its blobs stay unattributed
    }
    known.indexes.set(`named:${own}`, fileKey(ownSt))
    changed = true
    yield* pause(true)
  }
  yield* pause(true)
  const unreadable = new Set<string>()
  const loose = new Map<string, Set<string>>()
  const elsewhere: Array<string> = []
  const packsNow = new Set<string>()
  const looseNow = new Set<string>()
  const indexes = new Map<string, PackEntry & { readonly index: GitStore.PackIndex }>()
  /** The blobs of the packs read in this call, judged once every tree and index is. */
  const packBlobs = new Map<string, Array<string>>()
  for (const objects of stores) {
    const found = GitStore.looseIds(objects)
    loose.set(objects, found.ids)
    elsewhere.push(...found.elsewhere)
    const trees = new Map<string, Buffer>()
    for (const id of found.ids) {
      looseNow.add(id)
      if (known.loose.has(id)) continue
      if (during) known.made.add(id)
      yield* pause()
      const o = GitStore.looseTree(objects, id)
      if (o?.body !== undefined) trees.set(id, o.body)
      if (o?.type === "blob") known.blobs.add(id)
      known.loose.add(id)
      changed = true
    }
    for (const pack of packFiles(objects)) {
      packsNow.add(pack)
      const entry = packIndex(pack.replace(/\.pack$/, ".idx"))
      const index = entry?.index
      if (entry === undefined || index === undefined) {
        unreadable.add(objects)
        continue
      }
      indexes.set(pack, { ...entry, index })
      if (known.packs.has(pack)) continue
      yield* pause(true)
      const blobs: Array<string> = []
      if (during) for (const id of newIn(known, pack, index)) known.made.add(id)
      if (yield* GitStore.scanPack(pack, index, { tree: (id, body) => trees.set(id, body), blob: (id) => blobs.push(id) }, pause)) {
        known.packs.add(pack)
        packBlobs.set(pack, blobs)
        changed = true
      } else unreadable.add(objects)
    }
    yield* pause(true)
    yield* judgeTrees(workspace, trees, known.secret, known.named, pause)
    yield* pause(true)
  }
  for (const [pack, blobs] of packBlobs) {
    const left: Array<string> = []
    for (const id of blobs) {
      yield* pause()
      if (!known.named.has(id)) left.push(id)
    }
    known.packBlobs.set(pack, left)
  }
  yield* pause(true)
  // A blob named since (by a tree or an index read later) is attributed.
  for (const [pack, blobs] of known.packBlobs) {
    if (packBlobs.has(pack) || blobs.every((id) => !known.named.has(id))) continue
    known.packBlobs.set(pack, blobs.filter((id) => !known.named.has(id)))
    changed = true
  }
  // What is no longer in a store is forgotten, but not the secret ids (a pack may bring them back).
  for (const p of known.packs) if (!packsNow.has(p)) (known.packs.delete(p), known.packBlobs.delete(p), (changed = true))
  for (const id of known.loose) if (!looseNow.has(id)) (known.loose.delete(id), known.blobs.delete(id), (changed = true))
  if (changed) save(workspace, known)
  else if (added.length > 0) addSeen(workspace, known, added)
  else if (loaded.key !== undefined && !memory.has(workspace)) memory.set(workspace, { key: loaded.key, known })
  const inPack = (entry: PackEntry & { readonly index: GitStore.PackIndex }): boolean => {
    for (const id of known.secret) {
      if (entry.absent.has(id) || known.made.has(id) || !/^[0-9a-f]{40}$/.test(id)) continue
      if (GitStore.find(entry.index, Buffer.from(id, "hex")) >= 0) return true
      entry.absent.add(id)
    }
    return false
  }
  const answers = new Map<string, boolean>()
  const holds = (objects: string): boolean => {
    const cached = answers.get(objects)
    if (cached !== undefined) return cached
    const answer = (() => {
      if (unreadable.has(objects)) return true
      const ids = loose.get(objects) ?? new Set()
      for (const id of known.secret) if (ids.has(id) && !known.made.has(id)) return true
      for (const [pack, entry] of indexes) if (path.dirname(path.dirname(pack)) === objects && inPack(entry)) return true
      return false
    })()
    answers.set(objects, answer)
    return answer
  }
  const unattributed = (objects: string): ReadonlyArray<string> =>
    [...(loose.get(objects) ?? [])].filter((id) => known.blobs.has(id) && !known.named.has(id)).map((id) => path.join(objects, id.slice(0, 2), id.slice(2)))
  const unattributedPacks = (objects: string): ReadonlyArray<string> =>
    [...indexes.keys()].filter((pack) => path.dirname(path.dirname(pack)) === objects && (known.packBlobs.get(pack)?.length ?? 1) > 0)
  return { holds, elsewhere, unattributed, unattributedPacks }
}

/** `checkSteps` run through at once (the event loop stands still meanwhile). */
/**
 * Every id of protected content remembered for the workspace (blobs, and trees of secret folders): what the git
 * tools never show, under any name. Was a hole (red team): bash re-indexed a staged `.env`'s blob as `notes.txt`
 * (`update-index --cacheinfo`), and moved the history naming it aside; `git_show :notes.txt` printed the secret.
 * Every sandboxed call's scan remembers the protected files' contents before its command runs.
 */
export const remembered = (workspace: string): ReadonlySet<string> => unmade(load(workspace))

/**
 * `remembered`, after remembering `seen` (the protected files' current contents' ids, `SecretObjects.maskedIds`):
 * what the git tools judge objects by. Was a hole (red team): a note written from a never-committed `.env` (`git
 * notes add -F .env`) was shown by `git_show refs/notes/commits:<commit>` until a bash call had run its store check;
 * the git tools now know the current contents as bash does, and remember them (a later change of `.env` leaves its
 * old content protected). Only the ids are appended: the stores are not read (that is bash's check).
 */
export const rememberSeen = (workspace: string, seen: ReadonlyArray<string>): ReadonlySet<string> => {
  const known = load(workspace)
  const added = seen.filter((id) => !known.secret.has(id))
  if (added.length === 0) return unmade(known)
  for (const id of added) known.secret.add(id)
  addSeen(workspace, known, added)
  return unmade(known)
}

export const check = (workspace: string, gitDir: string, stores: ReadonlyArray<string>, seen: ReadonlyArray<string>): StoreView =>
  GitStore.drain(checkSteps(workspace, gitDir, stores, seen))
