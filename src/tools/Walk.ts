/**
 * Walks the workspace for glob and grep through the FileSystem port's `walkTree`: each folder opened relative to its
 * parent's descriptor without following a link and listed once through its own, so the walk is itself the
 * no-follow check (a folder swapped for a symlink mid-walk fails its open and is passed over: nothing from beyond it
 * is listed or counted) and what it returns needs no second look. Honours .gitignore files (nested ones too, a
 * deeper file's rules before a shallower one's, negations included, as git does; the workspace's
 * `.git/info/exclude` below them all; a nested repository its own scope, with its own exclude file; no `.ignore`,
 * `.rgignore` nor `core.excludesFile`), never descends into .git or
 * .minicode, nor into a git folder by another name (kernel/GitFolders, judged from the folder's own listing), never
 * follows a symlink (one is listed, not entered). Each directory's rules are the chain of the .gitignore files
 * above it, compiled once when the directory is entered: an entry is judged against that chain only, not against
 * every rule file seen so far. A directory's .gitignore is read (through its descriptor) only when its listing has one.
 */
import { Effect } from "effect"
import * as GitIgnore from "../domain/files/GitIgnore.js"
import { shownPath } from "../domain/files/ShownPath.js"
import * as P from "../domain/jail/PosixPath.js"
import * as GitFolders from "../kernel/GitFolders.js"
import { type DirEntry, type FileKind, FileSystem, type TreeFolder } from "../ports/FileSystem.js"

export interface WalkOptions {
  readonly root: string
  readonly start: string
  readonly maxEntries: number
  /** Told how many entries were seen so far, now and then (a progress note for a long walk). */
  readonly onProgress?: ((entries: number) => void) | undefined
  /**
   * Only the files and symlinks this keeps are in `files` (a glob's matcher): the others are neither kept nor sorted.
   * Asked with the entry's folder ("" or workspace-relative ending in `/`) and its name, so that a matcher that
   * needs only the name makes no path for the entries it leaves out.
   */
  readonly keep?: ((folder: string, name: string) => boolean) | undefined
  /** False: `dirs` stays empty (glob wants only `files`; less to allocate). */
  readonly dirs?: boolean | undefined
  /** False: `files` stays empty (grep reads `dirs` only: 60,000 paths made and sorted for nothing on the bench tree). */
  readonly files?: boolean | undefined
  /**
   * Only the first this many `files` (in sorted order) are wanted (glob shows 1,000): the others are counted in
   * `matched` but neither kept nor sorted, and a folder whose path sorts after all those kept makes no path at all.
   */
  readonly first?: number | undefined
  /**
   * Told each step's directories (with their regular files) as the walk goes, instead of gathering every one in
   * `dirs`: a search reads them while the walk holds only a step's worth (grep: the 22,600 listings of the bench
   * tree held at once were ~7 MB, kept alive through the whole search).
   */
  readonly each?: ((dirs: ReadonlyArray<WalkedDir>) => Effect.Effect<void>) | undefined
}

/** One directory's regular files (names, sorted), for a search that reads a directory at a time. */
export interface WalkedDir {
  /** Workspace-relative ("" for the root). */
  readonly rel: string
  readonly files: ReadonlyArray<string>
}

export interface Walked {
  /** Workspace-relative paths of the files and symlinks (those `keep` kept), sorted; with `first`, the first ones. */
  readonly files: ReadonlyArray<string>
  /** How many files and symlinks `keep` kept (`files.length`, or more with `first`). */
  readonly matched: number
  /** The directories with their regular files, in walk order (depth first, names sorted); none with `each`. */
  readonly dirs: ReadonlyArray<WalkedDir>
  /** True when the entry budget ran out before the walk finished. */
  readonly incomplete: boolean
  /**
   * The folders (workspace-relative, "" for the root) the walk could not list for want of permission: nothing in
   * them was seen. Callers say how many (issue 40: they were skipped without a word).
   */
  readonly unreadable: ReadonlyArray<string>
}

/**
 * `[N folders could not be read, not searched: a, b]` for the folders a walk could not list (sorted, the first five
 * named; "." for the root), or "" for none. Was nothing: grep and glob skipped such folders without a word.
 */
export const unreadableFoldersNote = (folders: ReadonlyArray<string>, what: "searched" | "listed"): string => {
  if (folders.length === 0) return ""
  const sorted = [...new Set(folders)].sort()
  const named = sorted.slice(0, 5).map((f) => (f === "" ? "." : shownPath(f)))
  return `[${sorted.length} folder${sorted.length === 1 ? "" : "s"} could not be read, not ${what}: ${named.join(", ")}${sorted.length > 5 ? ", …" : ""}]`
}

const alwaysSkipped = new Set([".git", ".minicode"])

/**
 * Lets the event loop run (I/O, a cancellation arriving on stdin) and gives interruption a point to land.
 * The file system adapter uses synchronous syscalls, so a long walk or search hands control back as it goes.
 */
export const breathe = Effect.async<void>((resume) => {
  const handle = setImmediate(() => resume(Effect.void))
  return Effect.sync(() => clearImmediate(handle))
})
const decoder = new TextDecoder()
const none: ReadonlyArray<never> = []

interface Rules {
  /** The workspace-relative folder of the .gitignore ("" for the root). */
  readonly base: string
  readonly ig: GitIgnore.GitIgnore
}

/**
 * git's answer for the entry `name` of the folder `rel`: the deepest rule file with a rule for it decides. `folders[k]`
 * is `rel` as seen from `chain[k]`'s folder ("" or ending in `/`), worked out once per folder, not per entry.
 */
const ignoredIn = (chain: ReadonlyArray<Rules>, folders: ReadonlyArray<string>, name: string, isDir: boolean): boolean => {
  for (let k = chain.length - 1; k >= 0; k--) {
    const rules = chain[k]
    if (rules === undefined) continue
    const verdict = GitIgnore.testIn(rules.ig, folders[k] ?? "", name, isDir)
    if (verdict !== "none") return verdict === "ignored"
  }
  return false
}

/** A rule file's rules for the folder `base`, or none when it holds no rule (git's default exclude file is all comments). */
const rulesOf = (base: string, bytes: Uint8Array): ReadonlyArray<Rules> => {
  const ig = GitIgnore.compile(decoder.decode(bytes))
  return ig.rules.length === 0 ? none : [{ base, ig }]
}

/** `rel` (a folder at or below `base`) relative to `base`, as a prefix for names: "" or ending in `/`. */
const prefixBelow = (base: string, rel: string) => (rel === base ? "" : `${base === "" ? rel : rel.slice(base.length + 1)}/`)

const byName = (a: { readonly name: string }, b: { readonly name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)

/** The chain in force at the folder `self` ("" for the start's, which covers the whole walk) and below it (`under`). */
interface Scope {
  readonly self: string
  readonly under: string
  readonly chain: ReadonlyArray<Rules>
}

/** What a folder's listing says, from one pass over it. */
interface Listing {
  /** In `byName` order already (the Node adapter's listings come sorted by byte). */
  sorted: boolean
  /** The kind of its `.git` entry, if it has one (a folder, or a file in a submodule or a worktree). */
  git: FileKind | undefined
  /** It has a `.gitignore` file. */
  ruleFile: boolean
  /** It has a `HEAD` (without one it is no git folder: `GitFolders.isGitListing` need not look). */
  head: boolean
}

/** One pass over a folder's listing, for what the walk asks of it. */
const lookAt = (entries: ReadonlyArray<DirEntry>): Listing => {
  const listing: Listing = { sorted: true, git: undefined, ruleFile: false, head: false }
  let last = ""
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i]
    if (entry === undefined) continue
    const name = entry.name
    if (name < last) listing.sorted = false
    last = name
    if (name === ".git") listing.git = entry.kind
    else if (name === ".gitignore") listing.ruleFile ||= entry.kind === "file"
    else if (name === "HEAD") listing.head = true
  }
  return listing
}

/** Folders listed between two breaths: the event loop turns (and an interruption lands) at least this often. */
const foldersPerStep = 256

export const walk = Effect.fn("Walk.walk")(function* (options: WalkOptions) {
  const fs = yield* FileSystem
  const load = (rel: string) =>
    fs.readFile(P.join(options.root, rel, ".gitignore")).pipe(
      Effect.map((bytes) => rulesOf(rel, bytes)),
      Effect.orElseSucceed(() => none)
    )
  // .gitignore files above the start directory apply too; a git folder by another name above it holds nothing to list.
  const startRel = P.relative(options.root, options.start)
  // The repository's own exclude file (`.git/info/exclude`) counts as git and rg count it: below every .gitignore.
  const exclude = yield* fs.readFile(P.join(options.root, ".git", "info", "exclude")).pipe(Effect.option)
  let chain: ReadonlyArray<Rules> = exclude._tag === "Some" ? rulesOf("", exclude.value) : none
  let above = ""
  let inGitFolder = false
  for (const seg of P.segments(startRel)) {
    const rules = yield* load(above)
    if (rules.length > 0) chain = [...chain, ...rules]
    above = above === "" ? seg : `${above}/${seg}`
    // A nested repository on the way down: the rules above stop at it (its own are read below, or in `visit`).
    if (above !== startRel) {
      const git = yield* fs.lstat(P.join(options.root, above, ".git")).pipe(Effect.option)
      if (git._tag === "Some" && git.value._tag === "Some") {
        const own = yield* fs.readFile(P.join(options.root, above, ".git", "info", "exclude")).pipe(Effect.option)
        chain = own._tag === "Some" ? rulesOf(above, own.value) : none
      }
    }
    if (above !== startRel && (yield* GitFolders.isGitFolder(fs, P.join(options.root, above)))) inGitFolder = true
  }
  const keep = options.keep
  const each = options.each
  const byDir = options.dirs !== false
  const wantFiles = options.files !== false
  const files: Array<string> = []
  const dirs: Array<WalkedDir> = []
  let seen = 0
  let incomplete = false
  let matched = 0
  const first = options.first === undefined ? undefined : Math.max(0, options.first)
  // With `first`: once `files` grew to twice that, it is cut to its first `first` and `bound` is the last of them;
  // a later path above it cannot be among the first, so it is not kept (nor made, when its folder is above it).
  let bound: string | undefined
  const cut = (wanted: number) => {
    files.sort()
    if (files.length > wanted) files.length = wanted
  }
  // The rule chains in force, one per folder on the way down that had a .gitignore (the start's own chain at the
  // bottom): the walk is depth first, so a folder's chain is the top one once those of folders it is not in are popped.
  const scopes: Array<Scope> = [{ self: startRel, under: "", chain }]
  const chainOf = (rel: string) => {
    for (;;) {
      const top = scopes[scopes.length - 1]
      if (top === undefined) return chain
      if (scopes.length === 1 || rel === top.self || rel.startsWith(top.under)) return top.chain
      scopes.pop()
    }
  }
  const visit = (folder: TreeFolder): ReadonlyArray<string> => {
    const rel = folder.rel === "" ? startRel : startRel === "" ? folder.rel : `${startRel}/${folder.rel}`
    if (incomplete) return none
    let here = chainOf(rel)
    const listed = lookAt(folder.entries)
    // Sorted as given (a copy sorted only when not): the same order either way.
    const entries = listed.sorted ? folder.entries : [...folder.entries].sort(byName)
    // A git folder by another name (`.repo/`, a bare clone) is left out as `.git` is: nothing in it listed.
    if (rel !== "" && listed.head && GitFolders.isGitListing(entries)) return none
    // A nested repository (a folder holding `.git`) is its own ignore scope, as git and rg have it: the rules of the
    // folders above stop at it, and its own .git/info/exclude counts. Was: the outer rules went on inside it.
    if (rel !== "") {
      const git = listed.git
      if (git !== undefined) {
        const own = git === "directory" ? folder.read(".git/info/exclude") : undefined
        here = own === undefined ? none : rulesOf(rel, own)
        scopes.push({ self: rel, under: `${rel}/`, chain: here })
      }
    }
    if (listed.ruleFile) {
      const bytes = folder.read(".gitignore")
      const rules = bytes === undefined ? none : rulesOf(rel, bytes)
      if (rules.length > 0) {
        here = [...here, ...rules]
        scopes.push({ self: rel, under: rel === "" ? "" : `${rel}/`, chain: here })
      }
    }
    const prefix = rel === "" ? "" : `${rel}/`
    // Every path of this folder sorts after `prefix`: none of them can be among the first `first` when it is past `bound`.
    const past = bound !== undefined && prefix > bound
    const folders = here.length === 0 ? none : here.map((rules) => (rules.base === "" ? prefix : prefixBelow(rules.base, rel)))
    // Made on first use: most folders have no subfolder (87% on the bench tree), and glob keeps no `regular`.
    let regular: Array<string> | undefined
    let subdirs: Array<string> | undefined
    for (let i = 0; i < entries.length; i++) {
      const entry = entries[i]
      if (entry === undefined) continue
      if (++seen > options.maxEntries) {
        incomplete = true
        break
      }
      const name = entry.name
      if (entry.kind === "directory") {
        if (!alwaysSkipped.has(name) && !ignoredIn(here, folders, name, true)) {
          if (subdirs === undefined) subdirs = []
          subdirs.push(name)
        }
      } else if (entry.kind === "file" || entry.kind === "symlink") {
        if (!ignoredIn(here, folders, name, false)) {
          if (wantFiles && (keep === undefined || keep(prefix, name))) {
            matched++
            if (!past) {
              const path = prefix + name
              if (bound === undefined || path < bound) {
                files.push(path)
                if (first !== undefined && files.length >= 2 * first) {
                  cut(first)
                  bound = files[first - 1] ?? ""
                }
              }
            }
          }
          if (byDir && entry.kind === "file") {
            if (regular === undefined) regular = []
            regular.push(name)
          }
        }
      }
    }
    if (regular !== undefined) dirs.push({ rel, files: regular })
    return incomplete || subdirs === undefined ? none : subdirs
  }
  const unreadable: Array<string> = []
  const fromStart = (rel: string) => (rel === "" ? startRel : startRel === "" ? rel : `${startRel}/${rel}`)
  if (!inGitFolder) {
    yield* Effect.acquireUseRelease(
      Effect.either(fs.walkTree(options.start)),
      (tree) =>
        Effect.gen(function* () {
          if (tree._tag === "Left") {
            // The start itself may not be opened: said as a folder that could not be read; anything else, nothing to list.
            if (tree.left.code === "EACCES" || tree.left.code === "EPERM") unreadable.push(startRel)
            return
          }
          for (;;) {
            const more = yield* tree.right.step(foldersPerStep, visit)
            if (each !== undefined && dirs.length > 0) yield* each(dirs.splice(0))
            if (!more || incomplete) break
            options.onProgress?.(seen)
            yield* breathe
          }
          for (const rel of yield* tree.right.unreadable) unreadable.push(fromStart(rel))
        }),
      (tree) => (tree._tag === "Left" ? Effect.void : tree.right.close)
    )
  }
  cut(first ?? files.length)
  const result: Walked = { files, dirs, matched, incomplete, unreadable }
  return result
})
