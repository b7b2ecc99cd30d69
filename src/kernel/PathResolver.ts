/**
 * Resolves a path argument the way the kernel will: component by component, following symlinks (with `..`
 * applied after a link, as the kernel does), continuing lexically past the first missing component.
 * It only observes (lstat, readlink); the jail judges the facts it returns.
 */
import { Effect, Option } from "effect"
import type { PathFacts } from "../domain/jail/Jail.js"
import * as P from "../domain/jail/PosixPath.js"
import { FileSystem, type FileStat, FsError, type FileSystemShape } from "../ports/FileSystem.js"

const maxLinks = 40

/**
 * `canonical`: a directory already known to be a real path with no symlinks (the session's workspace root, which
 * was realpath'd at start-up). A path lexically inside it starts the walk there instead of at `/`.
 */
export const resolveWith = (fs: FileSystemShape) => Effect.fnUntraced(function* (base: string, input: string, canonical?: string, home?: string) {
  // `~` means the home directory to whoever typed it (a model included): never a folder named `~` in the workspace.
  const expanded = home !== undefined && (input === "~" || input.startsWith("~/")) ? home + input.slice(1) : input
  const lexical = P.resolve(base, expanded)
  if (input.includes("\0")) {
    return { input, lexical, real: lexical, entry: lexical, exists: false, viaSymlink: false, dangling: false, kind: "missing", nlink: 0, dev: 0, ino: 0, mtimeMs: 0, size: 0, mode: 0 } satisfies PathFacts
  }
  const fromCanonical = canonical !== undefined && P.isInside(canonical, lexical)
  const queue: Array<string> = [...P.segments(fromCanonical ? P.relative(canonical, lexical) : lexical)]
  let current = fromCanonical ? canonical : "/"
  let entry = lexical
  let exists = true
  let viaSymlink = false
  let dangling = false
  let links = 0
  let fromLink = 0 // how many queued segments at the front came from a link target
  // The stat of `lastPath`; at the end it must describe `current` (the root itself, or a `..` from a link target,
  // leave them apart), else `current` is asked then.
  let last: FileStat | undefined
  let lastPath: string | undefined
  while (queue.length > 0) {
    const seg = queue.shift() ?? ""
    const insideLink = fromLink > 0
    fromLink = Math.max(fromLink - 1, 0)
    // The caller's own final name: the entry is its real parent plus that name (a final link is not followed).
    if (queue.length === 0 && !insideLink) entry = seg === ".." ? P.dirname(current) : P.join(current, seg)
    if (seg === "..") {
      current = P.dirname(current)
      continue
    }
    const next = P.join(current, seg)
    if (!exists) {
      current = next
      continue
    }
    const stat = yield* fs.lstat(next)
    if (Option.isNone(stat)) {
      exists = false
      if (insideLink) dangling = true
      last = undefined
      current = next
      continue
    }
    if (stat.value.kind === "symlink") {
      links++
      if (links > maxLinks) {
        return yield* new FsError({ op: "resolve", path: input, code: "ELOOP", reason: "too many levels of symbolic links" })
      }
      viaSymlink = true
      const target = yield* fs.readlink(next)
      const targetSegs = target.split("/").filter((s) => s !== "" && s !== ".")
      if (target.startsWith("/")) current = "/"
      queue.unshift(...targetSegs)
      fromLink += targetSegs.length
      continue
    }
    last = stat.value
    lastPath = next
    current = next
  }
  if (exists && lastPath !== current) last = Option.getOrUndefined(yield* fs.lstat(current))
  const facts: PathFacts = {
    input,
    lexical,
    real: current,
    entry,
    exists: exists && last !== undefined,
    viaSymlink,
    dangling,
    kind: exists && last !== undefined ? last.kind : "missing",
    nlink: last?.nlink ?? 0,
    dev: last?.dev ?? 0,
    ino: last?.ino ?? 0,
    mtimeMs: last?.mtimeMs ?? 0,
    size: last?.size ?? 0,
    mode: last?.mode ?? 0
  }
  return facts
})

/** `resolveWith` over the FileSystem in context. */
export const resolve = (base: string, input: string, canonical?: string, home?: string) =>
  Effect.flatMap(FileSystem, (fs) => resolveWith(fs)(base, input, canonical, home))
