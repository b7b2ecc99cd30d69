/**
 * Walks the workspace for glob and grep through the FileSystem port: honours .gitignore files (nested ones too, a
 * deeper file's rules before a shallower one's, negations included, as git does), never descends into .git or
 * .minicode, never follows a symlink (one is listed, not entered; with `byPath`, a folder swapped for one mid-walk is
 * followed, and the caller checks what it shows). Each directory's rules are the chain of the
 * .gitignore files above it, compiled once when the directory is entered: an entry is judged against that chain
 * only, not against every rule file seen so far. A directory's .gitignore is read only when its listing has one.
 */
import { Effect } from "effect"
import * as GitIgnore from "../domain/files/GitIgnore.js"
import * as P from "../domain/jail/PosixPath.js"
import { FileSystem } from "../ports/FileSystem.js"

export interface WalkOptions {
  readonly root: string
  readonly start: string
  readonly maxEntries: number
  /** Told how many entries were seen so far, now and then (a progress note for a long walk). */
  readonly onProgress?: ((entries: number) => void) | undefined
  /**
   * Lists each folder by its path (`FileSystem.readDirByPath`: fast, but a folder swapped for a symlink mid-walk is
   * followed) instead of through descriptors. The caller must check what it shows (glob: `pathJudge.listed`).
   */
  readonly byPath?: boolean | undefined
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

export const walk = Effect.fn("Walk.walk")(function* (options: WalkOptions) {
  const fs = yield* FileSystem
  const load = (rel: string) =>
    fs.readFile(P.join(options.root, rel, ".gitignore")).pipe(
      Effect.map((bytes): Rules => ({ base: rel, ig: GitIgnore.compile(decoder.decode(bytes)) })),
      Effect.option
    )
  // .gitignore files above the start directory apply too.
  const startRel = P.relative(options.root, options.start)
  let chain: ReadonlyArray<Rules> = []
  let above = ""
  for (const seg of P.segments(startRel)) {
    const rules = yield* load(above)
    if (rules._tag === "Some") chain = [...chain, rules.value]
    above = above === "" ? seg : `${above}/${seg}`
  }
  const list = options.byPath === true ? fs.readDirByPath : fs.readDir
  const keep = options.keep
  const byDir = options.dirs !== false
  const files: Array<string> = []
  const dirs: Array<WalkedDir> = []
  let seen = 0
  let visited = 0
  let incomplete = false
  const stack: Array<{ readonly rel: string; readonly chain: ReadonlyArray<Rules> }> = [{ rel: startRel, chain }]
  while (stack.length > 0 && !incomplete) {
    const current = stack.pop()
    if (current === undefined) break
    if (++visited % 256 === 0) {
      options.onProgress?.(seen)
      yield* breathe
    }
    const entries = [...(yield* list(current.rel === "" ? options.root : P.join(options.root, current.rel)).pipe(Effect.orElseSucceed(() => [])))].sort(byName)
    let here = current.chain
    if (entries.some((e) => e.name === ".gitignore" && e.kind === "file")) {
      const rules = yield* load(current.rel)
      if (rules._tag === "Some") here = [...here, rules.value]
    }
    const regular: Array<string> = []
    const subdirs: Array<string> = []
    for (const entry of entries) {
      if (++seen > options.maxEntries) {
        incomplete = true
        break
      }
      const rel = current.rel === "" ? entry.name : `${current.rel}/${entry.name}`
      if (entry.kind === "directory") {
        if (!alwaysSkipped.has(entry.name) && !ignoredBy(here, rel, true)) subdirs.push(rel)
      } else if (entry.kind === "file" || entry.kind === "symlink") {
        if (!ignoredBy(here, rel, false)) {
          if (keep === undefined || keep(rel)) files.push(rel)
          if (byDir && entry.kind === "file") regular.push(entry.name)
        }
      }
    }
    if (regular.length > 0) dirs.push({ rel: current.rel, files: regular })
    for (let i = subdirs.length - 1; i >= 0; i--) stack.push({ rel: subdirs[i] ?? "", chain: here })
  }
  files.sort()
  const result: Walked = { files, dirs, incomplete }
  return result
})
