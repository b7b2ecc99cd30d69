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
}

export interface Store {
  readonly load: (root: string) => Map<string, WorkspaceScan.Folder> | undefined
  readonly save: (root: string, before: Map<string, WorkspaceScan.Folder> | undefined, after: Map<string, WorkspaceScan.Folder> | undefined) => void
}

interface Root {
  readonly cache: WorkspaceScan.Cache
  /** The one listener of every watcher of this root (`this`: the watcher): a closure per watcher doubled its cost. */
  readonly onEvent: (this: Watch) => void
  mode: "stat" | "watch" | "off"
  scans: number
  mark: number
  readonly watchers: Map<string, fs.FSWatcher>
  readonly dirty: Set<string>
  /** Folders whose watch could not be set (unreadable, vanished): read again on every scan. */
  readonly unwatched: Set<string>
  /**
   * The last answer, while no folder was read again since: a call that finds nothing changed gathers nothing (a
   * walk over 25,000 folders' lists made 2 MB of garbage per sandboxed call).
   */
  hits: ReadonlyArray<WorkspaceScan.Hit> | undefined
  /** Protected content under other names (`ScanAliases`), as the last scan found it. */
  readonly aliases: ScanAliases.Memo
  protected: Aliases.Protected
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
 * A folder's watcher knows its folder: its listeners are the root's, shared by all (25,000 folders: 12 MB resident
 * with one closure for changes and one for errors per watcher, 6 MB more than the watchers themselves).
 */
interface Watch extends fs.FSWatcher {
  dir: string
}

export interface WatchedScan {
  /** What the sandbox must hide under `root`, as `WorkspaceScan.scan` would find it now. */
  readonly scan: (root: string) => Effect.Effect<ReadonlyArray<WorkspaceScan.Hit>>
  /**
   * What the file tools must refuse beyond names (hard links to protected files, protected symlinks' targets), as
   * a scan now finds it.
   */
  readonly protectedIn: (root: string) => Effect.Effect<Aliases.Protected>
  /** Closes every watcher (tests; the watchers never keep the process alive). */
  readonly close: () => void
  /** How the last scan of `root` was made (tests and the bench). */
  readonly lastMode: (root: string) => "cold" | "stat" | "watch" | "full" | undefined
}

export const make = (options: Options = {}): WatchedScan => {
  const minFolders = options.minFolders ?? 2_000
  const eventLimit = options.eventLimit ?? Math.floor(maxQueued() / 4)
  const barrierTimeoutMs = options.barrierTimeoutMs ?? 2_000
  const watching = options.watch ?? true
  const store = options.store
  const roots = new Map<string, Root>()
  const modes = new Map<string, "cold" | "stat" | "watch" | "full">()
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
      fs.rmSync(file, { force: true })
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

  const folders = (root: string, r: Root) => {
    let m = r.cache.get(root)
    if (m === undefined) r.cache.set(root, (m = new Map()))
    return m
  }

  const watch = (r: Root, dir: string): void => {
    if (r.watchers.has(dir)) return
    try {
      const w = fs.watch(dir, { persistent: false }, r.onEvent) as Watch
      w.dir = dir
      // A watcher whose folder is gone reports an error: the folder's parent has an event of its own.
      w.on("error", r.onEvent)
      r.watchers.set(dir, w)
      r.unwatched.delete(dir)
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOSPC") throw new NoWatches()
      r.unwatched.add(dir)
    }
  }
  const unwatch = (r: Root, dir: string): void => {
    r.watchers.get(dir)?.close()
    r.watchers.delete(dir)
    r.unwatched.delete(dir)
  }
  const closeAll = (r: Root) => {
    for (const w of r.watchers.values()) w.close()
    r.watchers.clear()
    r.unwatched.clear()
    r.dirty.clear()
  }

  /** The per-folder validation, from the stored cache on a root's first scan, the cache saved when it changed. */
  const plain = (root: string, r: Root): ReadonlyArray<WorkspaceScan.Hit> => {
    if (store === undefined) return WorkspaceScan.scan(root, r.cache)
    if (!r.cache.has(root)) {
      const loaded = store.load(root)
      if (loaded !== undefined) r.cache.set(root, loaded)
    }
    const before = r.cache.get(root)
    const hits = WorkspaceScan.scan(root, r.cache)
    store.save(root, before, r.cache.get(root))
    return hits
  }

  /** The per-folder validation, then watchers made to match the folders it saw (new ones are read again next time). */
  const full = (root: string, r: Root): ReadonlyArray<WorkspaceScan.Hit> => {
    const hits = plain(root, r)
    r.hits = hits
    const seen = folders(root, r)
    for (const dir of [...r.watchers.keys()]) if (!seen.has(dir)) unwatch(r, dir)
    for (const dir of seen.keys()) {
      if (r.watchers.has(dir)) continue
      watch(r, dir)
      // Read before its watch existed: a change in between would be missed, so it is read again next time.
      r.dirty.add(dir)
    }
    return hits
  }

  /** Forgets a folder and everything below it. */
  const drop = (root: string, r: Root, dir: string) => {
    const map = folders(root, r)
    const stack = [dir]
    for (let d = stack.pop(); d !== undefined; d = stack.pop()) {
      const f = map.get(d)
      map.delete(d)
      unwatch(r, d)
      if (f !== undefined) for (const sub of f.folders) stack.push(sub)
    }
  }

  /** Walks a folder not known yet: each folder watched, then read. */
  const adopt = (root: string, r: Root, dir: string) => {
    const map = folders(root, r)
    const stack = [dir]
    for (let d = stack.pop(); d !== undefined; d = stack.pop()) {
      watch(r, d)
      const st = lstat(d)
      if (st === undefined || !st.isDirectory()) {
        unwatch(r, d)
        continue
      }
      const f = WorkspaceScan.read(root, d, st, WorkspaceScan.defaultSettleMs)
      map.set(d, f)
      for (const sub of f.folders) stack.push(sub)
    }
  }

  /** Reads again what changed since the last scan; false when the root itself changed (a full scan is needed). */
  const incremental = (root: string, r: Root): boolean => {
    const map = folders(root, r)
    const work = [...r.dirty, ...r.unwatched]
    r.dirty.clear()
    if (work.length > 0) r.hits = undefined
    for (let dir = work.pop(); dir !== undefined; dir = work.pop()) {
      const known = map.get(dir)
      if (known === undefined) continue
      const st = lstat(dir)
      if (st === undefined || !st.isDirectory() || st.ino !== known.ino) {
        if (dir === root) return false
        drop(root, r, dir)
        const parent = path.dirname(dir)
        if (map.has(parent)) work.push(parent)
        continue
      }
      if (r.unwatched.has(dir)) watch(r, dir)
      // The settle margin keeps a folder read just now from being trusted by a later per-folder validation.
      const fresh = WorkspaceScan.read(root, dir, st, WorkspaceScan.defaultSettleMs)
      map.set(dir, fresh)
      const before = new Set(known.folders)
      const after = new Set(fresh.folders)
      for (const sub of known.folders) if (!after.has(sub)) drop(root, r, sub)
      for (const sub of fresh.folders) {
        const old = before.has(sub) ? map.get(sub) : undefined
        if (old !== undefined) {
          const sst = lstat(sub)
          if (sst !== undefined && sst.isDirectory() && sst.ino === old.ino) continue
        }
        drop(root, r, sub)
        adopt(root, r, sub)
      }
    }
    return true
  }

  const hitsOf = (root: string, r: Root): ReadonlyArray<WorkspaceScan.Hit> => {
    if (r.hits !== undefined) return r.hits
    const out: Array<WorkspaceScan.Hit> = []
    for (const f of folders(root, r).values()) for (let i = 0; i < f.hits.length; i++) out.push(f.hits[i] as WorkspaceScan.Hit)
    r.hits = out
    return out
  }

  const scanWatched = (root: string, r: Root) =>
    Effect.map(barrier, (mark) => {
      try {
        if (r.mode === "stat") {
          // Watch what is known first, then validate it: a change after its watch is an event, one before is seen.
          for (const dir of folders(root, r).keys()) watch(r, dir)
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
        closeAll(r)
        r.mode = "off"
        r.hits = undefined
        modes.set(root, "stat")
        return plain(root, r)
      }
    })

  const scan = (root: string): Effect.Effect<ReadonlyArray<WorkspaceScan.Hit>> =>
    Effect.map(scanNames(root), (hits) => {
      const r = roots.get(root)
      if (r === undefined) return hits
      const found = ScanAliases.extend(root, hits, folders(root, r), r.aliases)
      r.protected = found.protected
      return found.hits
    })

  const protectedIn = (root: string): Effect.Effect<Aliases.Protected> =>
    Effect.map(scan(root), () => roots.get(root)?.protected ?? Aliases.none)

  /** What the names alone make the sandbox hide (`ScanAliases` adds the other names of the same content). */
  const scanNames = (root: string): Effect.Effect<ReadonlyArray<WorkspaceScan.Hit>> =>
    Effect.suspend(() => {
      let r = roots.get(root)
      if (r === undefined) {
        const dirty = new Set<string>()
        const onEvent = function (this: Watch) {
          events++
          dirty.add(this.dir)
        }
        r = { cache: WorkspaceScan.makeCache(), onEvent, mode: "stat", scans: 0, mark: 0, watchers: new Map(), dirty, unwatched: new Set(), hits: undefined, aliases: ScanAliases.makeMemo(), protected: Aliases.none }
        roots.set(root, r)
      }
      r.scans++
      const cold = r.scans === 1
      if (!watching || r.mode === "off" || cold || folders(root, r).size < minFolders) {
        if (r.mode === "watch") {
          closeAll(r)
          r.mode = "stat"
        }
        modes.set(root, cold ? "cold" : "stat")
        r.hits = undefined
        return Effect.succeed(plain(root, r))
      }
      return scanWatched(root, r)
    })

  const close = () => {
    for (const r of roots.values()) closeAll(r)
    roots.clear()
    barrierWatcher?.close()
    barrierWatcher = undefined
    if (barrierDir !== undefined) fs.rmSync(barrierDir, { recursive: true, force: true })
    barrierDir = undefined
  }

  return { scan, protectedIn, close, lastMode: (root) => modes.get(root) }
}

/** One per process: every sandbox of a session (bash, git's reads, servers) shares the scan and its watchers. */
export const shared: WatchedScan = make()

/**
 * For a one-shot process (a CLI command): the cache an earlier process saved in `.minicode/` (`ScanStore`),
 * validated per folder, saved again when it changed, and no watchers. Only the CLI writes the store (chosen in its
 * composition), so a library embedding or a server leaves the workspace's state folder as it was.
 */
export const oneShot = (): WatchedScan => make({ watch: false, store: ScanStore.store })
