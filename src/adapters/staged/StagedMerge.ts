/**
 * The merge of a staged bash call: what its upper layer holds (walked alone: the cost follows what changed, not the
 * tree) and what its `listing` says the view no longer shows become `MergePlan.Change`s; each is judged
 * (`MergePlan.judge`), checked for a conflict (the workspace entry changed after the call started: its change time
 * is at or after `started`'s), and the allowed ones are applied to the workspace through the FileSystem port
 * (descriptor-relative, as the file tools write), journaled as one record with every file's previous content, so
 * `journal` lists them and `undo`/`redo` restore them. Refused and conflicting changes stay in staging, named in the
 * report with the rule.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect, Option } from "effect"
import * as GitFolder from "../../domain/staged/GitFolder.js"
import * as Plan from "../../domain/staged/MergePlan.js"
import { FileSystem, type FileStat, type FsError } from "../../ports/FileSystem.js"
import { Journal, type JournalError, type Snapshot } from "../../ports/Journal.js"
import { ProtectedAliases } from "../../ports/ProtectedAliases.js"
import { Session } from "../../ports/Session.js"

export interface Options {
  readonly upper: string
  readonly listing: string
  /** The change time of the call's start marker (`Staging.markStart`). */
  readonly startedCtimeMs: number
  readonly writable: Plan.Facts["writable"]
  /** The call's command, redacted, for the journal. */
  readonly summary: string
  /** The view's mount points inside the workspace (absolute): masks and read-only copies bash saw instead. */
  readonly masked?: ReadonlyArray<string>
}

export interface Report {
  readonly merged: ReadonlyArray<string>
  readonly refused: ReadonlyArray<{ readonly path: string; readonly rule: string; readonly reason: string }>
  readonly conflicts: ReadonlyArray<string>
  readonly seq: number | null
}

/** `listing`'s content: each folder of the upper layer the workspace has, with the names the view showed there. */
export const parseListing = (bytes: Uint8Array): ReadonlyMap<string, ReadonlySet<string>> => {
  const out = new Map<string, Set<string>>()
  let current: Set<string> | undefined
  for (const item of Buffer.from(bytes).toString("utf8").split("\0")) {
    if (item === "") continue
    if (item.startsWith("/")) {
      const rel = path.posix.normalize(item.slice(1))
      current = new Set()
      out.set(rel === "." ? "" : rel.replace(/^\.\//, ""), current)
    } else current?.add(item)
  }
  return out
}

interface Found {
  readonly change: Plan.Change
  /** For a Write: the upper layer's file. */
  readonly source?: string
}

const kindOf = (st: FileStat): Plan.Kind => st.kind

const join = (rel: string, name: string) => (rel === "" ? name : `${rel}/${name}`)

/** Collects the changes: the upper layer's entries, then what the listing shows removed. */
const collect = (root: string, options: Options) =>
  Effect.gen(function* () {
    const wfs = yield* FileSystem
    const found: Array<Found> = []
    const ws = (rel: string) => Effect.map(wfs.lstat(path.posix.join(root, rel)), Option.getOrUndefined)
    const removeTree = (rel: string, st: FileStat): Effect.Effect<void, FsError> =>
      Effect.gen(function* () {
        if (st.kind === "directory") {
          for (const e of yield* wfs.readDir(path.posix.join(root, rel))) {
            const child = join(rel, e.name)
            const cst = yield* ws(child)
            if (cst !== undefined) yield* removeTree(child, cst)
          }
        }
        found.push({ change: { _tag: "Remove", path: rel, kind: kindOf(st) } })
      })
    const walk = (rel: string): Effect.Effect<void, FsError> =>
      Effect.gen(function* () {
        for (const e of fs.readdirSync(path.join(options.upper, rel), { withFileTypes: true })) {
          const r = join(rel, e.name)
          const source = path.join(options.upper, r)
          const st = fs.lstatSync(source)
          if (st.isCharacterDevice() && st.rdev === 0) continue // a whiteout: the listing says what was removed
          const now = yield* ws(r)
          if (st.isDirectory()) {
            if (now !== undefined && now.kind !== "directory") yield* removeTree(r, now)
            if (now === undefined || now.kind !== "directory") found.push({ change: { _tag: "MakeDir", path: r, mode: st.mode & 0o7777 } })
            yield* walk(r)
          } else if (st.isFile()) {
            if (now?.kind === "file" && (now.mode & 0o7777) === (st.mode & 0o7777) && now.size === st.size) {
              const before = yield* wfs.readFile(path.posix.join(root, r))
              if (Buffer.from(before).equals(fs.readFileSync(source))) continue // copied up, not changed
            }
            if (now !== undefined && now.kind !== "file") yield* removeTree(r, now)
            found.push({ change: { _tag: "Write", path: r, mode: st.mode & 0o7777, existed: now?.kind === "file" }, source })
          } else if (st.isSymbolicLink()) {
            const target = fs.readlinkSync(source)
            if (now?.kind === "symlink" && (yield* wfs.readlink(path.posix.join(root, r))) === target) continue
            if (now !== undefined) yield* removeTree(r, now)
            found.push({ change: { _tag: "Link", path: r, target, existed: false } })
          } else found.push({ change: { _tag: "Special", path: r } })
        }
      })
    yield* walk("")
    const listing = parseListing(fs.readFileSync(options.listing))
    for (const [dir, shown] of listing) {
      const entries = yield* Effect.orElseSucceed(wfs.readDir(path.posix.join(root, dir)), () => [])
      for (const e of entries) {
        if (shown.has(e.name)) continue
        const r = join(dir, e.name)
        const st = yield* ws(r)
        if (st !== undefined) yield* removeTree(r, st)
      }
    }
    return found
  })

/** An entry's kind by lstat, or undefined (absent, or ENOTDIR: a folder on the way is a file, or a whiteout in the upper layer). */
const lkind = (p: string): Plan.Kind | undefined => {
  try {
    const st = fs.lstatSync(p, { throwIfNoEntry: false })
    return st === undefined ? undefined : st.isDirectory() ? "directory" : st.isFile() ? "file" : st.isSymbolicLink() ? "symlink" : "other"
  } catch {
    return undefined
  }
}

/** As git accepts an entry of the layout: of that kind, or a symlink (git follows it). */
const accepts = (kind: Plan.Kind | undefined, want: "file" | "directory") => kind === want || kind === "symlink"

/** Entries of a folder judged before it may become a git folder (more: judged planted, to be safe). */
const plantLimit = 5000

/**
 * The workspace's entries under `dir` (relative to it) that the call does not change itself, with the content of
 * those judged by content; undefined when there are more than `plantLimit`.
 */
const heldEntries = (root: string, dir: string, changed: ReadonlySet<string>) => {
  const out: Array<{ rel: string; kind: Plan.Kind; after?: string | undefined }> = []
  const walk = (rel: string): boolean => {
    let names: Array<fs.Dirent>
    try {
      names = fs.readdirSync(path.join(root, dir, rel), { withFileTypes: true })
    } catch {
      return true
    }
    for (const e of names) {
      const r = rel === "" ? e.name : `${rel}/${e.name}`
      const kind = lkind(path.join(root, dir, r))
      if (kind === undefined) continue
      if (out.length >= plantLimit) return false
      if (!changed.has(`${dir}/${r}`)) {
        let after: string | undefined
        if (kind === "file" && GitFolder.needsContent(r)) {
          try {
            after = fs.readFileSync(path.join(root, dir, r), "utf8")
          } catch {
            after = undefined
          }
        }
        out.push({ rel: r, kind, after })
      }
      if (kind === "directory" && !walk(r)) return false
    }
    return true
  }
  return lkind(path.join(root, dir)) === "directory" && !walk("") ? undefined : out
}

/**
 * Folders git would take for git folders though not named `.git` once the call's changes are merged (HEAD beside
 * objects/ and refs/, or beside a commondir), and of those the call completes (not one before it) the ones that
 * already hold what a git folder may not: merged earlier as anyone's files, they would be git's instructions now.
 */
const gitFoldersOf = (root: string, upper: string, found: ReadonlyArray<Found>) => {
  const after = (rel: string) => (name: string, want: "file" | "directory") =>
    [path.join(upper, rel, name), path.join(root, rel, name)].some((p) => accepts(lkind(p), want))
  const before = (rel: string) => (name: string, want: "file" | "directory") => accepts(lkind(path.join(root, rel, name)), want)
  const dirs = new Set(found.map((f) => path.posix.dirname(f.change.path)).filter((d) => d !== "."))
  const changed = new Set(found.map((f) => f.change.path))
  const folders = new Set<string>()
  const planted = new Map<string, string>()
  for (const d of dirs) {
    for (let at = d; at !== "."; at = path.posix.dirname(at)) {
      if (folders.has(at) || !GitFolder.isLayout(after(at))) continue
      folders.add(at)
      if (GitFolder.isLayout(before(at))) continue
      const held = heldEntries(root, at, changed)
      const entry = held === undefined ? { rel: "", reason: `more than ${plantLimit} entries to judge` } : GitFolder.planted(held)
      if (entry !== undefined) planted.set(at, `${entry.rel === "" ? "" : `${entry.rel}: `}${entry.reason}`)
    }
  }
  return { folders, planted }
}

const depth = (p: string) => p.split("/").length
const rank = (c: Plan.Change) => (c._tag === "Remove" ? (c.kind === "directory" ? 1 : 0) : c._tag === "MakeDir" ? 2 : 3)

export const merge = (options: Options): Effect.Effect<Report, FsError | JournalError, FileSystem | Journal | Session | ProtectedAliases> =>
  Effect.gen(function* () {
    const wfs = yield* FileSystem
    const journal = yield* Journal
    const session = yield* Session
    const root = session.root
    const found = yield* collect(root, options)
    // The repositories on the way to every changed path count (a nested project's own core.hooksPath).
    const protectedAliases = yield* ProtectedAliases
    const controls = yield* protectedAliases.treeControls(root, session.home, [...new Set(found.map((f) => path.posix.join(root, path.posix.dirname(f.change.path))))])
    const aliases = yield* protectedAliases.of(root)
    const masked = new Set((options.masked ?? []).map((m) => path.posix.relative(root, m)).filter((m) => m !== "" && !m.startsWith("..")))
    const git = gitFoldersOf(root, options.upper, found)
    const facts: Plan.Facts = { root, writable: options.writable, gitFolders: git.folders, plantedGitFolders: git.planted, controls, masked, aliases }
    const refused: Array<Report["refused"][number]> = []
    const conflicts: Array<string> = []
    const allowed: Array<Found & { readonly now: FileStat | undefined }> = []
    const text = (bytes: Uint8Array | undefined) => (bytes === undefined ? undefined : Buffer.from(bytes).toString("utf8"))
    for (const f of found) {
      const abs = path.posix.join(root, f.change.path)
      const now = Option.getOrUndefined(yield* wfs.lstat(abs))
      const content = Plan.needsContent(facts, f.change)
        ? {
            before: now?.kind === "file" ? text(yield* wfs.readFile(abs)) : undefined,
            after: f.source === undefined ? undefined : text(fs.readFileSync(f.source))
          }
        : {}
      const verdict = Plan.judge(facts, f.change, content)
      if (verdict._tag === "Refuse") refused.push({ path: f.change.path, rule: verdict.rule, reason: verdict.reason })
      // Changed in the workspace since the call started: not overwritten, and not removed (a folder's ctime moves with
      // its entries, so a folder made or kept is not judged so; one to be removed is: a host process swapping it for a
      // link meanwhile must not have the merge remove what is there now).
      else if (now !== undefined && (now.kind !== "directory" || f.change._tag === "Remove") && now.ctimeMs >= options.startedCtimeMs) conflicts.push(f.change.path)
      else allowed.push({ ...f, now })
    }
    // A folder made only to hold what was refused (`.vscode/` for a refused tasks.json) is not made either: it would
    // hold nothing of the call's. One made empty on purpose (`mkdir out`) is.
    const under = (dir: string, p: string) => p.startsWith(`${dir}/`)
    const held = [...refused.map((r) => r.path), ...conflicts]
    const kept = allowed.filter((a) =>
      a.change._tag !== "MakeDir" ||
      !held.some((p) => under(a.change.path, p)) ||
      allowed.some((b) => b.change._tag !== "MakeDir" && under(a.change.path, b.change.path))
    )
    allowed.splice(0, allowed.length, ...kept)
    // Removals first (files, then folders deepest first), then folders made (shallowest first), then files and links.
    allowed.sort((a, b) => rank(a.change) - rank(b.change) || (rank(a.change) === 1 ? depth(b.change.path) - depth(a.change.path) : depth(a.change.path) - depth(b.change.path)))
    const files = allowed.filter((a) => (a.change._tag === "Write" || (a.change._tag === "Remove" && a.change.kind === "file")))
    if (allowed.length === 0) return { merged: [], refused, conflicts, seq: null }
    const before: Array<Snapshot> = []
    const after: Array<Snapshot> = []
    const contents = new Map<string, Uint8Array>()
    for (const a of files) {
      const abs = path.posix.join(root, a.change.path)
      before.push(a.now?.kind === "file" ? { path: a.change.path, content: yield* wfs.readFile(abs), mode: a.now.mode & 0o7777 } : { path: a.change.path, content: null, mode: null })
      if (a.change._tag === "Write" && a.source !== undefined) {
        const bytes = fs.readFileSync(a.source)
        contents.set(a.change.path, bytes)
        after.push({ path: a.change.path, content: bytes, mode: a.change.mode })
      } else after.push({ path: a.change.path, content: null, mode: null })
    }
    const record = yield* journal.begin(
      { session: session.id, turn: session.turn, tool: "bash.merge", capability: "write", paths: before.map((s) => s.path), canonicalArgs: JSON.stringify({ merge: options.summary }), remote: false, summary: options.summary },
      before,
      after
    )
    const merged: Array<string> = []
    const applied = yield* Effect.exit(
      Effect.forEach(allowed, (a) =>
        Effect.gen(function* () {
          const c = a.change
          const abs = path.posix.join(root, c.path)
          switch (c._tag) {
            case "Remove": {
              // What is there must still be what was judged (the same inode): else it is left, as a conflict.
              const there = Option.getOrUndefined(yield* wfs.lstat(abs))
              if (there === undefined) return
              if (a.now !== undefined && (there.dev !== a.now.dev || there.ino !== a.now.ino)) {
                conflicts.push(c.path)
                return
              }
              if (c.kind === "directory") {
                // Only when nothing is left in it (a refused or conflicting entry keeps its folder).
                const left = yield* Effect.orElseSucceed(wfs.readDir(abs), () => [{ name: "?", kind: "other" as const }])
                if (left.length > 0) return
                yield* wfs.remove(abs, { recursive: true })
              } else yield* wfs.remove(abs)
              break
            }
            case "MakeDir":
              yield* wfs.makeDirectory(abs)
              yield* wfs.chmod(abs, c.mode)
              break
            case "Write": {
              const expect = a.now?.kind === "file" ? { dev: a.now.dev, ino: a.now.ino, mtimeMs: a.now.mtimeMs } : ("absent" as const)
              yield* wfs.makeDirectory(path.posix.dirname(abs))
              yield* wfs.writeFile(abs, contents.get(c.path) ?? new Uint8Array(), { mode: c.mode, expect })
              yield* wfs.chmod(abs, c.mode)
              break
            }
            case "Link":
              yield* wfs.makeDirectory(path.posix.dirname(abs))
              yield* wfs.symlink(c.target, abs)
              break
            case "Special":
              return
          }
          merged.push(c.path)
        }), { discard: true })
    )
    if (applied._tag === "Failure") {
      yield* journal.complete(record.id, "unknown", "the merge of a staged bash call stopped halfway: `minicode undo` restores what it did")
      return yield* Effect.failCause(applied.cause)
    }
    yield* journal.complete(record.id, "committed")
    return { merged, refused, conflicts, seq: record.seq }
  })
