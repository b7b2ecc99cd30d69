/**
 * The workspace scan (`WorkspaceScan`) kept fresh by inotify, so a sandboxed call does not pay one `lstat` per
 * folder (50–120 ms on a 65,000-file tree of 30,000 folders) to learn that nothing changed.
 *
 * The first scan of a workspace is the plain one (a one-shot CLI call never pays for watchers). From the second
 * on, every folder the scan walks has a watcher (`fs.watch`, one inotify watch each, added *before* the folder is
 * read), and any event in a folder marks it dirty. A scan then:
 *
 * 1. waits for a **barrier**: it creates a fresh file in a private watched folder and waits for that file's event.
 *    All watchers of a Node thread share one inotify queue, which is FIFO, so once the barrier's event has been
 *    dispatched every event of a change completed before the scan began has been dispatched too;
 * 2. reads again only the dirty folders (and folders whose watch could not be set), and walks new subfolders
 *    (watch first, then read); a subfolder whose inode changed under the same name is dropped and walked anew.
 *
 * Safety nets, each falling back to the full per-folder validation of `WorkspaceScan.scan` (which re-syncs the
 * watchers): libuv drops the kernel's overflow notice, but a queue that overflowed held `max_queued_events` events,
 * all delivered after the previous barrier, so when at least a quarter of that many events arrived since the last
 * barrier an overflow is assumed; a barrier that does not arrive in time; the workspace root itself changing.
 * When no more watches can be made (ENOSPC), the workspace stays on the per-folder validation.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect } from "effect"
import * as Aliases from "../../domain/jail/Aliases.js"
import type * as ProtectedAliases from "../../ports/ProtectedAliases.js"
import * as Exposed from "./Exposed.js"
import * as ScanAliases from "./ScanAliases.js"
import * as ScanStore from "./ScanStore.js"
import * as WorkspaceScan from "./WorkspaceScan.js"

export interface Options {
  /** Watching starts at this many folders (below it the per-folder validation is cheap enough). */
  readonly minFolders?: number
  /** Events between two barriers from which an overflow of the inotify queue is assumed. */
  readonly eventLimit?: number
  readonly barrierTimeoutMs?: number
  /** False for a one-shot process: every scan is the per-folder validation, no watcher is ever made. */
  readonly watch?: boolean
  /** The cache kept across processes (`ScanStore`): loaded before a root's first scan, saved after a plain scan. */
  readonly store?: Store
  /** `WorkspaceScan.defaultSettleMs` unless told (tests: a short margin, so folders read are trusted soon). */
  readonly settleMs?: number
}

export interface Store {
  readonly load: (root: string) => WorkspaceScan.Folder | undefined
  /** Told only when a scan read or forgot a folder. */
  readonly save: (root: string, top: WorkspaceScan.Folder) => void
  /** The stored hits while no stored folder changed (`ScanStore.unchanged`), else undefined. */
  readonly unchanged?: (root: string) => ReadonlyArray<WorkspaceScan.Hit> | undefined
}

interface Root {
  readonly cache: WorkspaceScan.Cache
  /** The one listener of every watcher of this root (`this`: the watcher): a closure per watcher doubled its cost. */
  readonly onEvent: (this: Watch) => void
  mode: "stat" | "watch" | "off"
  scans: number
  mark: number
  /** How many folders the last scan found (below `minFolders`: no watchers). */
  folders: number
  readonly dirty: Set<WorkspaceScan.Folder>
  /** Folders whose watch could not be set (unreadable, vanished): read again on every scan. */
  readonly unwatched: Set<WorkspaceScan.Folder>
  /**
   * The last answer, while no folder was read again since: a call that finds nothing changed gathers nothing (a
   * walk over 25,000 folders' lists made 2 MB of garbage per sandboxed call).
   */
  hits: ReadonlyArray<WorkspaceScan.Hit> | undefined
  /** Protected content under other names (`ScanAliases`), as the last scan found it. */
  readonly aliases: ScanAliases.Memo
  protected: Aliases.Protected
  /**
   * The last scan finished (with the aliases added), and when it started: a caller's own scan of the same call; its
   * version changes whenever a scan finds something else to hide than the one before (`Known`).
   */
  last: Known | undefined
}

/** What the last finished scan of a root found, without scanning now. */
export interface Known {
  readonly hits: ReadonlyArray<WorkspaceScan.Hit>
  readonly protected: Aliases.Protected
  /**
   * Kept while each scan finds the same hits as the one before, one more when one finds others: a caller that read
   * a version, and reads it again after a scan of its own, knows every scan in between found what the first did.
   */
  readonly version: number
  /** When it started (`performance.now()`). */
  readonly startedAt: number
}

const hitKey = (h: WorkspaceScan.Hit) => `${h.verdict}\0${h.kind}\0${h.path}`
/** The same hits, whatever their order (a folder read again may list its subfolders in another order). */
const sameHits = (a: ReadonlyArray<WorkspaceScan.Hit>, b: ReadonlyArray<WorkspaceScan.Hit>): boolean => {
  if (a === b) return true
  const ka = new Set(a.map(hitKey))
  const kb = new Set(b.map(hitKey))
  if (ka.size !== kb.size) return false
  for (const k of kb) if (!ka.has(k)) return false
  return true
}

/** The git folders among a scan's hits: pinned folders and `.git` files, and `.git` symlinks. */
const gitFoldersIn = (hits: ReadonlyArray<WorkspaceScan.Hit>): ReadonlyArray<string> => {
  const out: Array<string> = []
  for (const h of hits) if (h.verdict === "pin" || h.verdict === "link") out.push(h.path)
  return out
}

const lstat = (p: string): fs.Stats | undefined => fs.lstatSync(p, { throwIfNoEntry: false })

const maxQueued = (): number => {
  try {
    const n = Number(fs.readFileSync("/proc/sys/fs/inotify/max_queued_events", "utf8").trim())
    return Number.isFinite(n) && n > 0 ? n : 16_384
  } catch {
    return 16_384
  }
}

class NoWatches extends Error {}

/**
 * A folder's watcher knows its folder: its listeners are the root's, shared by all (25,000 folders' watchers held
 * ~24 MB resident with a closure for changes and one for errors each, ~12 MB with the root's two).
 */
interface Watch extends fs.FSWatcher {
  folder: WorkspaceScan.Folder
}

/** The folders of a tree that the last scan found there (read). */
const count = (top: WorkspaceScan.Folder | undefined): number => {
  let n = 0
  if (top !== undefined) WorkspaceScan.eachBelow(top, (f) => void (f.ino !== -1 && n++))
  return n
}

export interface WatchedScan {
  /**
   * What the sandbox must hide under `root`, as `WorkspaceScan.scan` would find it now. `watch: false` (a long call,
   * rg's search): answered by the watchers when another call has set them, else by the per-folder validation, and
   * never the reason watchers are set (25,000 folders' watchers hold ~20 MB; validating them is ~50 ms, a few
   * percent of a search over the tree). `since`: a scan of this process that started at or after it may answer
   * (the caller's own scan of the same call); `-Infinity` takes the last one whatever its age (a caller that
   * checks afterwards, by `known`'s version, that a scan of its own found the same).
   */
  readonly scan: (root: string, watch?: boolean, since?: number) => Effect.Effect<ReadonlyArray<WorkspaceScan.Hit>>
  /**
   * What the file tools must refuse beyond names (hard links to protected files, protected symlinks' targets), as
   * a scan now finds it. `watch: false` as for `scan` (grep's check of every path it shows: it was grep that set
   * the watchers in a server that only searched, and held them to the end).
   */
  readonly protectedIn: (root: string, scope?: ProtectedAliases.Scope, watch?: boolean) => Effect.Effect<Aliases.Protected>
  /**
   * Every git folder in `root` as a scan now finds it (`pin` and `link` hits: `.git` folders, files and symlinks, git
   * folders by other names): whose configuration can make any path of the workspace git's (`TreeControlsOnDisk`).
   * A one-shot process answers from the store while no stored folder changed (one `lstat` per folder).
   */
  readonly gitFolders: (root: string) => Effect.Effect<ReadonlyArray<string>>
  /** The last finished scan of `root` (none yet: undefined), without scanning: what a caller may start from. */
  readonly known: (root: string) => Known | undefined
  /** Closes every watcher (tests; the watchers never keep the process alive). */
  readonly close: () => void
  /** How the last scan of `root` was made (tests and the bench). */
  readonly lastMode: (root: string) => Mode | undefined
}

/** `stored`: a question answered from the store, no folder changed since (`protectedIn`, `gitFolders`). */
export type Mode = "cold" | "stat" | "watch" | "full" | "stored"

export const make = (options: Options = {}): WatchedScan => {
  const minFolders = options.minFolders ?? 2_000
  const eventLimit = options.eventLimit ?? Math.floor(maxQueued() / 4)
  const barrierTimeoutMs = options.barrierTimeoutMs ?? 2_000
  const watching = options.watch ?? true
  const store = options.store
  const settleMs = options.settleMs ?? WorkspaceScan.defaultSettleMs
  const roots = new Map<string, Root>()
  const modes = new Map<string, Mode>()
  let events = 0

  // The barrier: a private folder outside every workspace, watched like the others (same inotify queue).
  let barrierDir: string | undefined
  let barrierWatcher: fs.FSWatcher | undefined
  let seq = 0
  const waiting = new Map<string, (mark: number) => void>()
  const barrierFolder = (): string => {
    if (barrierDir !== undefined) return barrierDir
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "minicode-barrier-"))
    barrierWatcher = fs.watch(dir, { persistent: false }, (_type, name) => {
      events++
      const done = name === null ? undefined : waiting.get(String(name))
      if (done === undefined) return
      waiting.delete(String(name))
      done(events)
    })
    process.once("exit", () => fs.rmSync(dir, { recursive: true, force: true }))
    barrierDir = dir
    return dir
  }
  /** The event count when the barrier's own event was dispatched, or undefined when it did not come in time. */
  const barrier = Effect.async<number | undefined>((resume) => {
    const name = `b${++seq}`
    let file: string
    try {
      file = path.join(barrierFolder(), name)
    } catch {
      resume(Effect.succeed(undefined))
      return
    }
    const timer = setTimeout(() => {
      waiting.delete(name)
      resume(Effect.succeed(undefined))
    }, barrierTimeoutMs)
    waiting.set(name, (mark) => {
      clearTimeout(timer)
      // A plain unlink (rmSync is a JS walk: two lstat calls first), on every scan; a file already gone is fine.
      try {
        fs.unlinkSync(file)
      } catch {
        // gone
      }
      resume(Effect.succeed(mark))
    })
    try {
      fs.writeFileSync(file, "")
    } catch {
      clearTimeout(timer)
      waiting.delete(name)
      resume(Effect.succeed(undefined))
    }
  })

  const topOf = (root: string, r: Root): WorkspaceScan.Folder => {
    let top = r.cache.get(root)
    if (top === undefined) r.cache.set(root, (top = WorkspaceScan.node(root, undefined)))
    return top
  }

  const watch = (r: Root, f: WorkspaceScan.Folder, dir = WorkspaceScan.pathOf(f)): void => {
    if (f.watch !== undefined) return
    try {
      const w = fs.watch(dir, { persistent: false }, r.onEvent) as Watch
      w.folder = f
      // A watcher whose folder is gone reports an error: the folder's parent has an event of its own.
      w.on("error", r.onEvent)
      f.watch = w
      r.unwatched.delete(f)
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOSPC") throw new NoWatches()
      r.unwatched.add(f)
    }
  }
  /** For a folder forgotten by the scan (gone, replaced, or below such a folder). */
  const unwatch = (r: Root, f: WorkspaceScan.Folder): void => {
    f.watch?.close()
    f.watch = undefined
    r.unwatched.delete(f)
  }
  const closeAll = (root: string, r: Root) => {
    const top = r.cache.get(root)
    if (top !== undefined) WorkspaceScan.eachBelow(top, (f) => unwatch(r, f))
    r.unwatched.clear()
    r.dirty.clear()
  }

  /**
   * The per-folder validation (folders it forgets lose their watchers), from the stored cache on a root's first
   * scan, the cache saved when the scan forgot a folder or read one and found something else there.
   */
  const plain = (root: string, r: Root): ReadonlyArray<WorkspaceScan.Hit> => {
    if (store === undefined) return WorkspaceScan.scan(root, r.cache, settleMs, (f) => unwatch(r, f))
    if (!r.cache.has(root)) {
      const loaded = store.load(root)
      if (loaded !== undefined) r.cache.set(root, loaded)
    }
    let changed = !r.cache.has(root)
    const hits = WorkspaceScan.scan(
      root,
      r.cache,
      settleMs,
      (f) => {
        changed = true
        unwatch(r, f)
      },
      (_, same) => void (changed ||= !same)
    )
    const top = r.cache.get(root)
    if (changed && top !== undefined) store.save(root, top)
    return hits
  }

  /** The per-folder validation, then watchers made to match the folders it saw (new ones are read again next time). */
  const full = (root: string, r: Root): ReadonlyArray<WorkspaceScan.Hit> => {
    const hits = plain(root, r)
    r.hits = hits
    r.folders = 0
    const stack = [topOf(root, r)]
    const paths = [root]
    for (let f = stack.pop(), dir = paths.pop(); f !== undefined && dir !== undefined; f = stack.pop(), dir = paths.pop()) {
      if (f.ino === -1) continue
      r.folders++
      if (f.watch === undefined) {
        watch(r, f, dir)
        // Read before its watch existed: a change in between would be missed, so it is read again next time.
        r.dirty.add(f)
      }
      for (let c = f.first; c !== undefined; c = c.next) {
        stack.push(c)
        paths.push(WorkspaceScan.join(dir, c.name))
      }
    }
    return hits
  }

  /** Forgets a folder and everything below it: read anew when walked. */
  const drop = (r: Root, f: WorkspaceScan.Folder) => WorkspaceScan.forget(f, (d) => unwatch(r, d))

  /** Walks a folder not known yet: each folder watched, then read. */
  const adopt = (root: string, r: Root, top: WorkspaceScan.Folder) => {
    const stack = [top]
    const paths = [WorkspaceScan.pathOf(top)]
    for (let f = stack.pop(), dir = paths.pop(); f !== undefined && dir !== undefined; f = stack.pop(), dir = paths.pop()) {
      watch(r, f, dir)
      const st = lstat(dir)
      if (st === undefined || !st.isDirectory()) {
        drop(r, f)
        continue
      }
      WorkspaceScan.read(root, f, dir, st, settleMs, (d) => unwatch(r, d))
      for (let c = f.first; c !== undefined; c = c.next) {
        stack.push(c)
        paths.push(WorkspaceScan.join(dir, c.name))
      }
    }
  }

  /**
   * Reads again what changed since the last scan; false when the root itself changed (a full scan is needed). The
   * last answer (`r.hits`) and the folder count are kept when every folder read again found the hits it had and no
   * folder was dropped or walked anew: each sandboxed call dirties `.minicode/` (the journal, GitControl's record)
   * and `.git/`, and gathering the hits and counting the folders walked the whole tree twice a call (~40 ms on the
   * 60k bench tree).
   */
  const incremental = (root: string, r: Root): boolean => {
    const work = [...r.dirty, ...r.unwatched]
    r.dirty.clear()
    if (work.length === 0) return true
    let changed = false
    const dropped = (d: WorkspaceScan.Folder) => {
      changed = true
      unwatch(r, d)
    }
    for (let f = work.pop(); f !== undefined; f = work.pop()) {
      // Forgotten since it was marked (a folder gone, or below one).
      if (f.ino === -1) continue
      const dir = WorkspaceScan.pathOf(f)
      const st = lstat(dir)
      if (st === undefined || !st.isDirectory() || st.ino !== f.ino) {
        if (f.parent === undefined) {
          r.hits = undefined
          return false
        }
        changed = true
        drop(r, f)
        if (f.parent.ino !== -1) work.push(f.parent)
        continue
      }
      if (r.unwatched.has(f)) watch(r, f, dir)
      const before = new Set<WorkspaceScan.Folder>()
      for (let c = f.first; c !== undefined; c = c.next) before.add(c)
      const hitsBefore = f.hits
      // The settle margin keeps a folder read just now from being trusted by a later per-folder validation.
      WorkspaceScan.read(root, f, dir, st, settleMs, dropped)
      if (!sameHits(hitsBefore, f.hits)) changed = true
      for (let c = f.first; c !== undefined; c = c.next) {
        if (before.has(c) && c.ino !== -1) {
          const sst = lstat(WorkspaceScan.join(dir, c.name))
          if (sst !== undefined && sst.isDirectory() && sst.ino === c.ino) continue
        }
        changed = true
        drop(r, c)
        adopt(root, r, c)
      }
    }
    if (changed) {
      r.hits = undefined
      r.folders = count(r.cache.get(root))
    }
    return true
  }

  const hitsOf = (root: string, r: Root): ReadonlyArray<WorkspaceScan.Hit> => {
    if (r.hits !== undefined) return r.hits
    const out: Array<WorkspaceScan.Hit> = []
    WorkspaceScan.eachBelow(topOf(root, r), (f) => {
      for (let i = 0; i < f.hits.length; i++) out.push(f.hits[i] as WorkspaceScan.Hit)
    })
    r.hits = out
    return out
  }

  const scanWatched = (root: string, r: Root) =>
    Effect.map(barrier, (mark) => {
      try {
        if (r.mode === "stat") {
          // Watch what is known first, then validate it: a change after its watch is an event, one before is seen.
          const stack = [topOf(root, r)]
          const paths = [root]
          for (let f = stack.pop(), dir = paths.pop(); f !== undefined && dir !== undefined; f = stack.pop(), dir = paths.pop()) {
            if (f.ino === -1) continue
            watch(r, f, dir)
            for (let c = f.first; c !== undefined; c = c.next) {
              stack.push(c)
              paths.push(WorkspaceScan.join(dir, c.name))
            }
          }
          r.mode = "watch"
          r.mark = mark ?? events
          modes.set(root, "full")
          return full(root, r)
        }
        const overflow = mark === undefined || mark - r.mark >= eventLimit
        r.mark = mark ?? events
        if (!overflow && incremental(root, r)) {
          modes.set(root, "watch")
          return hitsOf(root, r)
        }
        modes.set(root, "full")
        return full(root, r)
      } catch (e) {
        if (!(e instanceof NoWatches)) throw e
        closeAll(root, r)
        r.mode = "off"
        r.hits = undefined
        modes.set(root, "stat")
        return plain(root, r)
      }
    })

  const scan = (root: string, watch = true, since?: number): Effect.Effect<ReadonlyArray<WorkspaceScan.Hit>> =>
    Effect.suspend(() => {
      const known = roots.get(root)?.last ?? storedLast.get(root)
      if (since !== undefined && known !== undefined && known.startedAt >= since) return Effect.succeed(known.hits)
      const startedAt = performance.now()
      return Effect.map(scanNames(root, watch), (hits) => {
        const r = roots.get(root)
        if (r === undefined) return hits
        const found = ScanAliases.extend(root, hits, r.cache.get(root), r.aliases)
        r.protected = found.protected
        // After an answer from the store, versions go on from it (`known` answered with it).
        const before = r.last ?? storedLast.get(root)
        const version = before === undefined ? 0 : sameHits(before.hits, found.hits) ? before.version : before.version + 1
        r.last = { startedAt, hits: found.hits, protected: found.protected, version }
        return found.hits
      })
    })

  /**
   * A one-shot process's questions are answered from the store while no stored folder changed: one `lstat` per
   * folder, without the tree or a save (on the 60k bench tree, most of what the alias check added to a one-shot
   * read_file). A single-link question (a folder, a file with one link) from the stored hits alone; the whole answer
   * (`all`: grep, a file with several links) too when no protected file has a link to search for
   * (`ScanAliases.withoutTree`): a one-shot grep built the stored tree (25,000 folder records on the bench tree)
   * and held it through its search. Any change, a new symlink or hard link made by the host among them,
   * changes its folder's ctime: then the full scan answers (and saves, so the next call is answered from the store
   * again).
   */
  const fromStore = (root: string, scope: ProtectedAliases.Scope): Aliases.Protected | undefined => {
    const stored = storedHits(root)
    if (stored === undefined) return undefined
    if (scope === "single-link") {
      const found = ScanAliases.singleLink(root, stored.hits)
      if (found !== undefined) modes.set(root, "stored")
      return found
    }
    const found = ScanAliases.withoutTree(root, stored.hits)
    if (found === undefined) return undefined
    modes.set(root, "stored")
    // What `known` and a scan asked for a check started before it (`since`) answer, as a finished scan's result.
    storedLast.set(root, { hits: found.hits, protected: found.protected, version: 0, startedAt: stored.startedAt })
    return found.protected
  }

  /**
   * The store's answer (`unchanged`) for a one-shot process, asked once: a one-shot process runs one command, whose
   * gates ask a file's aliases and the workspace's git folders (`gitFolders`) one after the other, and one `lstat`
   * per folder (~80 ms on the 25k-folder bench tree) is paid once for both. Undefined when no stored answer holds.
   */
  const storedAnswers = new Map<string, { readonly hits: ReadonlyArray<WorkspaceScan.Hit>; readonly startedAt: number } | "changed">()
  /** The whole answers made from the store (`fromStore`), for `known` and `scan`. */
  const storedLast = new Map<string, Known>()
  const storedHits = (root: string): { readonly hits: ReadonlyArray<WorkspaceScan.Hit>; readonly startedAt: number } | undefined => {
    if (store?.unchanged === undefined || roots.has(root)) return undefined
    let answer = storedAnswers.get(root)
    if (answer === undefined) {
      const startedAt = performance.now()
      const hits = store.unchanged(root)
      storedAnswers.set(root, (answer = hits === undefined ? "changed" : { hits, startedAt }))
    }
    return answer === "changed" ? undefined : answer
  }

  const protectedIn = (root: string, scope: ProtectedAliases.Scope = "all", watch = true): Effect.Effect<Aliases.Protected> =>
    Effect.suspend(() => {
      const stored = fromStore(root, scope)
      // Files written while a mask was broken count as protected too (Exposed).
      return stored !== undefined ? Effect.succeed(Exposed.protect(root, stored)) : Effect.map(scan(root, watch), () => Exposed.protect(root, roots.get(root)?.protected ?? Aliases.none))
    })

  const gitFolders = (root: string): Effect.Effect<ReadonlyArray<string>> =>
    Effect.suspend(() => {
      const stored = storedHits(root)
      if (stored !== undefined) modes.set(root, "stored")
      return stored !== undefined ? Effect.succeed(gitFoldersIn(stored.hits)) : Effect.map(scan(root), gitFoldersIn)
    })

  /** What the names alone make the sandbox hide (`ScanAliases` adds the other names of the same content). */
  const scanNames = (root: string, watch: boolean): Effect.Effect<ReadonlyArray<WorkspaceScan.Hit>> =>
    Effect.suspend(() => {
      let r = roots.get(root)
      if (r === undefined) {
        const dirty = new Set<WorkspaceScan.Folder>()
        const onEvent = function (this: Watch) {
          events++
          dirty.add(this.folder)
        }
        r = { cache: WorkspaceScan.makeCache(), onEvent, mode: "stat", scans: 0, mark: 0, folders: 0, dirty, unwatched: new Set(), hits: undefined, aliases: ScanAliases.makeMemo(), protected: Aliases.none, last: undefined }
        roots.set(root, r)
      }
      const cold = !r.cache.has(root)
      // Watching starts at the second scan that wants it.
      if (watch) r.scans++
      if (!watching || r.mode === "off" || r.scans < 2 || r.folders < minFolders || (!watch && r.mode !== "watch")) {
        if (r.mode === "watch") {
          closeAll(root, r)
          r.mode = "stat"
        }
        modes.set(root, cold ? "cold" : "stat")
        r.hits = undefined
        const hits = plain(root, r)
        r.folders = count(r.cache.get(root))
        return Effect.succeed(hits)
      }
      return scanWatched(root, r)
    })

  const close = () => {
    for (const [root, r] of roots) closeAll(root, r)
    roots.clear()
    barrierWatcher?.close()
    barrierWatcher = undefined
    if (barrierDir !== undefined) fs.rmSync(barrierDir, { recursive: true, force: true })
    barrierDir = undefined
  }

  const known = (root: string): Known | undefined => {
    const last = roots.get(root)?.last ?? storedLast.get(root)
    return last === undefined ? undefined : { hits: last.hits, protected: last.protected, version: last.version, startedAt: last.startedAt }
  }

  return { scan, protectedIn, gitFolders, known, close, lastMode: (root) => modes.get(root) }
}

/** One per process: every sandbox of a session (bash, git's reads, servers) shares the scan and its watchers. */
export const shared: WatchedScan = make()

/**
 * For a one-shot process (a CLI command): the cache an earlier process saved in `.minicode/` (`ScanStore`),
 * validated per folder, saved again when it changed, and no watchers. Only the CLI writes the store (chosen in its
 * composition), so a library embedding or a server leaves the workspace's state folder as it was.
 */
export const oneShot = (store: Store = ScanStore.store): WatchedScan => make({ watch: false, store })
