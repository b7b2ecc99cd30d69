/**
 * Walks the workspace for glob and grep through the FileSystem port's `walkTree`: each folder opened relative to its
 * parent's descriptor without following a link and listed once through its own, so the walk is itself the
 * no-follow check (a folder swapped for a symlink mid-walk fails its open and is passed over: nothing from beyond it
 * is listed or counted) and what it returns needs no second look. Honours .gitignore files (nested ones too, a
 * deeper file's rules before a shallower one's, negations included, as git does), never descends into .git or
 * .minicode, nor into a git folder by another name (kernel/GitFolders, judged from the folder's own listing), never
 * follows a symlink (one is listed, not entered). Each directory's rules are the chain of the .gitignore files
 * above it, compiled once when the directory is entered: an entry is judged against that chain only, not against
 * every rule file seen so far. A directory's .gitignore is read (through its descriptor) only when its listing has one.
 */
import { Effect } from "effect"
import * as GitIgnore from "../domain/files/GitIgnore.js"
import * as P from "../domain/jail/PosixPath.js"
import * as GitFolders from "../kernel/GitFolders.js"
import { FileSystem, type TreeFolder } from "../ports/FileSystem.js"

export interface WalkOptions {
  readonly root: string
  readonly start: string
  readonly maxEntries: number
  /** Told how many entries were seen so far, now and then (a progress note for a long walk). */
  readonly onProgress?: ((entries: number) => void) | undefined
  /** Only the files and symlinks this keeps are in `files` (a glob's matcher): the others are neither kept nor sorted. */
  readonly keep?: ((rel: string) => boolean) | undefined
  /** False: `dirs` stays empty (glob wants only `files`; less to allocate). */
  readonly dirs?: boolean | undefined
}

/** One directory's regular files (names, sorted), for a search that reads a directory at a time. */
export interface WalkedDir {
  /** Workspace-relative ("" for the root). */
  readonly rel: string
  readonly files: ReadonlyArray<string>
}

export interface Walked {
  /** Workspace-relative paths of the files and symlinks (those `keep` kept), sorted. */
  readonly files: ReadonlyArray<string>
  /** The directories with their regular files, in walk order (depth first, names sorted). */
  readonly dirs: ReadonlyArray<WalkedDir>
  /** True when the entry budget ran out before the walk finished. */
  readonly incomplete: boolean
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

interface Rules {
  /** The workspace-relative folder of the .gitignore ("" for the root). */
  readonly base: string
  readonly ig: GitIgnore.GitIgnore
}

/** git's answer for `rel`: the deepest rule file with a rule for it decides. */
const ignoredBy = (chain: ReadonlyArray<Rules>, rel: string, isDir: boolean): boolean => {
  for (let k = chain.length - 1; k >= 0; k--) {
    const rules = chain[k]
    if (rules === undefined) continue
    const sub = rules.base === "" ? rel : rel.slice(rules.base.length + 1)
    const verdict = GitIgnore.test(rules.ig, sub, isDir)
    if (verdict !== "none") return verdict === "ignored"
  }
  return false
}

const byName = (a: { readonly name: string }, b: { readonly name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)

/** Folders listed between two breaths: the event loop turns (and an interruption lands) at least this often. */
const foldersPerStep = 256

export const walk = Effect.fn("Walk.walk")(function* (options: WalkOptions) {
  const fs = yield* FileSystem
  const load = (rel: string) =>
    fs.readFile(P.join(options.root, rel, ".gitignore")).pipe(
      Effect.map((bytes): Rules => ({ base: rel, ig: GitIgnore.compile(decoder.decode(bytes)) })),
      Effect.option
    )
  // .gitignore files above the start directory apply too; a git folder by another name above it holds nothing to list.
  const startRel = P.relative(options.root, options.start)
  let chain: ReadonlyArray<Rules> = []
  let above = ""
  let inGitFolder = false
  for (const seg of P.segments(startRel)) {
    const rules = yield* load(above)
    if (rules._tag === "Some") chain = [...chain, rules.value]
    above = above === "" ? seg : `${above}/${seg}`
    if (above !== startRel && (yield* GitFolders.isGitFolder(fs, P.join(options.root, above)))) inGitFolder = true
  }
  const keep = options.keep
  const byDir = options.dirs !== false
  const files: Array<string> = []
  const dirs: Array<WalkedDir> = []
  let seen = 0
  let incomplete = false
  // The rule chain of each folder waiting to be listed, set when its parent is listed.
  const chains = new Map<string, ReadonlyArray<Rules>>([[startRel, chain]])
  const visit = (folder: TreeFolder): ReadonlyArray<string> => {
    const rel = folder.rel === "" ? startRel : startRel === "" ? folder.rel : `${startRel}/${folder.rel}`
    let here = chains.get(rel) ?? []
    chains.delete(rel)
    if (incomplete) return []
    const entries = [...folder.entries].sort(byName)
    // A git folder by another name (`.repo/`, a bare clone) is left out as `.git` is: nothing in it listed.
    if (rel !== "" && GitFolders.isGitListing(entries)) return []
    if (entries.some((e) => e.name === ".gitignore" && e.kind === "file")) {
      const bytes = folder.read(".gitignore")
      if (bytes !== undefined) here = [...here, { base: rel, ig: GitIgnore.compile(decoder.decode(bytes)) }]
    }
    const regular: Array<string> = []
    const subdirs: Array<string> = []
    for (const entry of entries) {
      if (++seen > options.maxEntries) {
        incomplete = true
        break
      }
      const path = rel === "" ? entry.name : `${rel}/${entry.name}`
      if (entry.kind === "directory") {
        if (!alwaysSkipped.has(entry.name) && !ignoredBy(here, path, true)) {
          subdirs.push(entry.name)
          chains.set(path, here)
        }
      } else if (entry.kind === "file" || entry.kind === "symlink") {
        if (!ignoredBy(here, path, false)) {
          if (keep === undefined || keep(path)) files.push(path)
          if (byDir && entry.kind === "file") regular.push(entry.name)
        }
      }
    }
    if (regular.length > 0) dirs.push({ rel, files: regular })
    return incomplete ? [] : subdirs
  }
  if (!inGitFolder) {
    yield* Effect.acquireUseRelease(
      Effect.option(fs.walkTree(options.start)),
      (tree) =>
        Effect.gen(function* () {
          if (tree._tag === "None") return
          while ((yield* tree.value.step(foldersPerStep, visit)) && !incomplete) {
            options.onProgress?.(seen)
            yield* breathe
          }
        }),
      (tree) => (tree._tag === "None" ? Effect.void : tree.value.close)
    )
  }
  files.sort()
  const result: Walked = { files, dirs, incomplete }
  return result
})
