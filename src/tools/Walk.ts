/**
 * Walks the workspace for glob and grep through the FileSystem port: honours .gitignore files (nested ones too),
 * never descends into .git or .minicode, never follows a symlinked directory (it could lead out of the jail).
 */
import { Effect } from "effect"
import ignore, { type Ignore } from "ignore"
import * as P from "../domain/jail/PosixPath.js"
import { FileSystem } from "../ports/FileSystem.js"

export interface WalkOptions {
  readonly root: string
  readonly start: string
  readonly maxEntries: number
}

export interface Walked {
  /** Workspace-relative file paths, sorted. */
  readonly files: ReadonlyArray<string>
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

export const walk = Effect.fn("Walk.walk")(function* (options: WalkOptions) {
  const fs = yield* FileSystem
  const files: Array<string> = []
  const rules: Array<{ readonly dir: string; readonly ig: Ignore }> = []
  const loadIgnore = (dir: string) =>
    fs.readFile(P.join(dir, ".gitignore")).pipe(
      Effect.map((bytes) => rules.push({ dir, ig: ignore().add(decoder.decode(bytes)) })),
      Effect.ignore
    )
  const ignored = (abs: string, isDir: boolean) =>
    rules.some(({ dir, ig }) => {
      if (!P.isInside(dir, abs) || abs === dir) return false
      const rel = P.relative(dir, abs)
      return ig.ignores(isDir ? rel + "/" : rel)
    })
  // .gitignore files above the start directory apply too.
  let dir = options.root
  for (const seg of P.segments(P.relative(options.root, options.start))) {
    yield* loadIgnore(dir)
    dir = P.join(dir, seg)
  }
  let seen = 0
  let dirs = 0
  let incomplete = false
  const stack = [options.start]
  while (stack.length > 0) {
    const current = stack.pop() ?? options.start
    if (++dirs % 32 === 0) yield* breathe
    yield* loadIgnore(current)
    const entries = yield* fs.readDir(current).pipe(Effect.orElseSucceed(() => []))
    for (const entry of entries) {
      if (++seen > options.maxEntries) {
        incomplete = true
        break
      }
      const abs = P.join(current, entry.name)
      if (entry.kind === "directory") {
        if (!alwaysSkipped.has(entry.name) && !ignored(abs, true)) stack.push(abs)
      } else if (entry.kind === "file" || entry.kind === "symlink") {
        if (!ignored(abs, false)) files.push(P.relative(options.root, abs))
      }
    }
    if (incomplete) break
  }
  files.sort()
  const result: Walked = { files, incomplete }
  return result
})
