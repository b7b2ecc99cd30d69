/**
 * The TextSearch port over ripgrep (`rg` on PATH): one `rg` process per call, its output (into a private temporary
 * file, `outputFile`) read back and parsed as it grows (`--null` separates the path, long lines come cut by `-M`), so
 * memory stays flat whatever the tree holds.
 * The flags pin the semantics the port promises, whatever the user's ripgrep configuration says: `--no-config`,
 * `.gitignore` and `.git/info/exclude` only (`--no-ignore-dot`, `--no-ignore-global`, `--no-require-git`), hidden
 * files searched, symlinks not followed (ripgrep's default: no `-L`), `.git/` and `.minicode/` left out, no BOM
 * transcoding (`-E none`: a UTF-16 file is binary, as grep's own search sees it), binary files searched up to their
 * first match and named (`--binary`), one thread a core. The output is parsed in place, in the chunks it comes in
 * (no Buffer or string per line but the lines shown); once the caller answers "skip", the rest of that file's
 * lines are only counted, found by their path's bytes: on a tree with 450,000 matching lines, what is parsed is
 * the few hundred that can still be shown.
 *
 * Not on PATH: "unavailable", remembered, so the next call goes straight to the caller's own walk. A pattern rg
 * rejects: "unsupported" (the caller searches itself).
 *
 * With a sandbox (`Options.wrap`), rg runs inside it: the workspace read-only, what the jail refuses masked, nothing
 * else of the host's files but the system folders. Was a hole (red team): rg opens files by path as it walks, so a
 * folder that bash swapped for a symlink to outside (`renameat2(RENAME_EXCHANGE)` in a loop) between rg's listing
 * and its open led rg outside the workspace, and the path it printed was inside; no check afterwards can tell which
 * file rg read. Inside the sandbox such a link leads to a path that is not there, or is masked.
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect, Layer, Ref, type Scope } from "effect"
import { type FilesSpec, type SearchEvent, type SearchSpec, TextSearch, TextSearchError } from "../../ports/TextSearch.js"

const omitted = Buffer.from(" [... omitted end of long line]")
const newline = Buffer.from("\n")
const binaryLine = /^(.*): binary file matches \(found "\\0" byte around offset \d+\)$/s
/** rg's message for a file it could not read: `PATH: reason (os error N)`. */
const errorLine = /^(?:rg: )?(.+?): [^:]*\(os error \d+\)$/

/**
 * ripgrep before 14 honours `.rgignore` files even with --no-ignore-dot (its bug 2198), where grep's own walk honours
 * neither `.ignore` nor `.rgignore` (git does not): with ripgrep 13 a file a `.rgignore` names is left out by the rg
 * path alone. Watching rg's `--debug` log for it cost more than the search (a log line per path: 14 MB and 2 s of
 * system time on the 60k bench tree), so it is a documented difference instead.
 */

/** This process's environment without the glibc malloc tunables the launcher sets for Node (src/launcher.ts). */
const rgEnv = (): NodeJS.ProcessEnv => Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("MALLOC_")))

const threads = () => Math.max(1, typeof os.availableParallelism === "function" ? os.availableParallelism() : os.cpus().length)

const common = (spec: FilesSpec): ReadonlyArray<string> => [
  "--no-config",
  "--hidden",
  "--no-ignore-dot",
  "--no-ignore-global",
  "--no-require-git",
  // At the root, no .gitignore above the workspace counts; below it, the ones between the root and `path` must.
  ...(spec.path === "" ? ["--no-ignore-parent"] : []),
  // Below the root rg leaves the repository's .git/info/exclude out; given as an ignore file (matched from the root,
  // below every .gitignore, as git ranks it) it counts as it does at the root. Was a difference with the own walk.
  ...(spec.path !== "" && fs.existsSync(path.join(spec.root, ".git", "info", "exclude")) ? ["--ignore-file", ".git/info/exclude"] : []),
  "-j",
  String(threads()),
  "-g",
  "!.git/",
  "-g",
  "!.minicode/",
  // As spelled (`-g`, not `--iglob`): ripgrep matches literal names and extensions by hash, case-insensitive globs
  // only by regex, a tenth of its time on a big tree. It is a prefilter: the caller judges each path, any case.
  ...spec.exclude.flatMap((g) => ["-g", `!${g}`]),
  ...(spec.nameGlob === undefined ? [] : ["--type-add", `minicodeglob:${spec.nameGlob}`, "-t", "minicodeglob"])
]

/**
 * Splits a byte stream into records ended by `sep` (without it), each handed over as a range of the chunk it is in
 * (no copy, no Buffer per record); only a record cut by a chunk's end is copied, with the head of the next chunk.
 */
const records = (sep: number, onRecord: (buf: Buffer, from: number, end: number) => void) => {
  let carry: Buffer | undefined
  return {
    push: (chunk: Buffer) => {
      let from = 0
      if (carry !== undefined) {
        const nl = chunk.indexOf(sep)
        if (nl === -1) {
          carry = Buffer.concat([carry, chunk])
          return
        }
        const joined = Buffer.concat([carry, chunk.subarray(0, nl)])
        carry = undefined
        onRecord(joined, 0, joined.byteLength)
        from = nl + 1
      }
      for (let nl = chunk.indexOf(sep, from); nl !== -1; nl = chunk.indexOf(sep, from)) {
        onRecord(chunk, from, nl)
        from = nl + 1
      }
      if (from < chunk.byteLength) carry = Buffer.from(chunk.subarray(from))
    },
    end: () => {
      if (carry !== undefined) onRecord(carry, 0, carry.byteLength)
      carry = undefined
    }
  }
}

/**
 * rg's output goes to a private temporary file (unlinked as soon as it is open), read as it grows every `pollMs`,
 * rather than to a pipe: with several threads rg writes each file's lines with a write of their own, and a pipe woke
 * this process for each (7,900 reads of ~250 bytes for the bench's regex: 120-220 ms of this process's CPU, and rg
 * spent more on them too; from a file, ~35 reads and ~10 ms). Past `outputCap` bytes rg is stopped and the search
 * fails, so that grep's own walk answers and the file stays bounded. No temporary file to be had: a pipe as before.
 */
const pollMs = 10
const readBytes = 256 * 1024
const outputCap = 512 * 1024 * 1024

/** A file only this process can reach: made in a private folder, opened, then unlinked with its folder. */
const outputFile = (): number | undefined => {
  let dir: string | undefined
  let fd: number | undefined
  try {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "minicode-rg-"))
    const file = path.join(dir, "out")
    fd = fs.openSync(file, fs.constants.O_RDWR | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW, 0o600)
    fs.unlinkSync(file)
    fs.rmdirSync(dir)
    return fd
  } catch {
    if (fd !== undefined) fs.closeSync(fd)
    if (dir !== undefined) fs.rmSync(dir, { recursive: true, force: true })
    return undefined
  }
}

interface Run {
  readonly args: ReadonlyArray<string>
  readonly cwd: string
  readonly scanSince?: number | undefined
  /** The byte that ends a record of the output (a newline, or NUL for --files --null). */
  readonly sep: number
  readonly onRecord: (buf: Buffer, from: number, end: number) => void
}

/** The command to spawn instead of `argv` (a sandbox around it), or undefined to run it as it is. */
export type Wrap = (
  argv: ReadonlyArray<string>,
  root: string,
  scanSince?: number
) => Effect.Effect<{ readonly argv: ReadonlyArray<string>; readonly env: Readonly<Record<string, string>> } | undefined, TextSearchError, Scope.Scope>

export interface Options {
  readonly wrap?: Wrap
}

/** The first executable `name` on PATH (absolute entries only): a sandbox needs the program's real path. */
const onPath = (name: string): string | undefined => {
  for (const dir of (process.env["PATH"] ?? "").split(path.delimiter)) {
    if (!path.isAbsolute(dir)) continue
    try {
      fs.accessSync(path.join(dir, name), fs.constants.X_OK)
      if (fs.statSync(path.join(dir, name)).isFile()) return path.join(dir, name)
    } catch {
      // not here
    }
  }
  return undefined
}

/**
 * Whether rg's unreadable `rel` (under `root`) is a folder: by lstat, or, when its parent may be listed but not
 * searched (lstat then fails too), by the parent's listing.
 */
const isFolder = (root: string, rel: string): boolean => {
  const abs = path.join(root, rel)
  try {
    return fs.lstatSync(abs).isDirectory()
  } catch {
    try {
      const name = path.basename(abs)
      return fs.readdirSync(path.dirname(abs), { withFileTypes: true }).some((e) => e.name === name && e.isDirectory())
    } catch {
      return false
    }
  }
}

/** bwrap's own failure (it exits 1 like an rg that found nothing): its messages start so. */
const sandboxFailed = /^bwrap: /m

export const make = (options: Options = {}) => Effect.gen(function* () {
  const missing = yield* Ref.make(false)
  const spawned = (r: Run) =>
    options.wrap === undefined
      ? Effect.succeed({ argv: ["rg", ...r.args], env: undefined })
      : Effect.suspend(() => {
          const rg = onPath("rg")
          if (rg === undefined) return Effect.succeed({ argv: ["rg", ...r.args], env: undefined })
          return Effect.map(options.wrap?.([rg, ...r.args], r.cwd, r.scanSince) ?? Effect.succeed(undefined), (w) =>
            w === undefined ? { argv: [rg, ...r.args], env: undefined } : { argv: w.argv, env: w.env }
          )
        })
  const run = (r: Run) =>
    Effect.flatMap(Ref.get(missing), (gone) =>
      gone
        ? Effect.fail(new TextSearchError({ kind: "unavailable", reason: "rg is not on PATH" }))
        : Effect.scoped(Effect.flatMap(spawned(r), (cmd) => Effect.async<{ readonly code: number | null; readonly stderr: string }, TextSearchError>((resume) => {
            const fd = outputFile()
            let child: ReturnType<typeof spawn>
            try {
              child = spawn(cmd.argv[0] ?? "rg", cmd.argv.slice(1), { cwd: r.cwd, env: cmd.env ?? rgEnv(), stdio: ["ignore", fd ?? "pipe", "pipe"] })
            } catch (e) {
              if (fd !== undefined) fs.closeSync(fd)
              throw e
            }
            const out = records(r.sep, r.onRecord)
            // The file's bytes from `read` on, at most `most` at a time (the event loop turns between two polls).
            const buf = fd === undefined ? undefined : Buffer.allocUnsafe(readBytes)
            let read = 0
            let open = fd !== undefined
            let over = false
            let unread = false
            const drain = (most: number) => {
              if (!open || fd === undefined || buf === undefined) return
              for (let taken = 0; taken < most && !over; ) {
                const n = fs.readSync(fd, buf, 0, buf.byteLength, read)
                if (n <= 0) return
                read += n
                taken += n
                out.push(n === buf.byteLength ? buf : buf.subarray(0, n))
                if (read > outputCap) {
                  over = true
                  child.kill("SIGKILL")
                }
              }
            }
            const drained = (most: number) => {
              try {
                drain(most)
              } catch {
                // The file could not be read back: rg is stopped, and the search fails.
                unread = true
                child.kill("SIGKILL")
              }
            }
            const poll = fd === undefined ? undefined : setInterval(() => drained(16 * readBytes), pollMs)
            const release = () => {
              if (poll !== undefined) clearInterval(poll)
              if (open && fd !== undefined) fs.closeSync(fd)
              open = false
            }
            const err: Array<string> = []
            let errBytes = 0
            // rg's messages a line at a time.
            const messages = records(10, (buf, from, end) => {
              // Keep the first 64 KiB of messages: enough to name unreadable files and a pattern error.
              if (errBytes < 65536) err.push(buf.toString("utf8", from, end))
              errBytes += end - from + 1
            })
            child.stdout?.on("data", (chunk: Buffer) => out.push(chunk))
            child.stderr?.on("data", (chunk: Buffer) => messages.push(chunk))
            child.on("error", (e: NodeJS.ErrnoException) => {
              release()
              resume(
                e.code === "ENOENT"
                  ? Effect.zipRight(Ref.set(missing, true), Effect.fail(new TextSearchError({ kind: "unavailable", reason: "rg is not on PATH" })))
                  : Effect.fail(new TextSearchError({ kind: "failed", reason: e.message }))
              )
            })
            child.on("close", (code) => {
              drained(Number.POSITIVE_INFINITY)
              release()
              out.end()
              messages.end()
              if (over || unread) resume(Effect.fail(new TextSearchError({ kind: "failed", reason: over ? `rg's output passed ${outputCap} bytes` : "rg's output could not be read back" })))
              else resume(Effect.succeed({ code, stderr: err.join("\n") }))
            })
            return Effect.sync(() => {
              child.kill("SIGKILL")
              release()
            })
          })))
    )

  const judged = (code: number | null, stderr: string, onError: (file: string) => void) => {
    if (sandboxFailed.test(stderr)) return Effect.fail(new TextSearchError({ kind: "failed", reason: `rg's sandbox: ${stderr.slice(0, 500)}` }))
    if (code === 0 || code === 1) return Effect.void
    if (code === 2 && /regex parse error|error parsing regex|look-around|backreferences/i.test(stderr)) {
      return Effect.fail(new TextSearchError({ kind: "unsupported", reason: stderr.split("\n").slice(0, 6).join("\n") }))
    }
    // Exit 2 with per-file errors: the search went on, the files it could not read are named.
    // A folder comes as `./dir` when no path was given: told as the workspace-relative path the caller judges.
    const files = stderr.split("\n").flatMap((l) => {
      const m = errorLine.exec(l)
      return m?.[1] === undefined ? [] : [m[1].startsWith("./") ? m[1].slice(2) : m[1]]
    })
    if (code === 2 && files.length > 0) {
      for (const f of files) onError(f)
      return Effect.void
    }
    return Effect.fail(new TextSearchError({ kind: "failed", reason: `rg exited with ${code}: ${stderr.slice(0, 500)}` }))
  }

  const search = (spec: SearchSpec, onEvent: (event: SearchEvent) => "skip" | void) => {
    const args = [
      ...common(spec),
      "--binary",
      "-E",
      "none",
      "--null",
      "-n",
      "--no-heading",
      "--with-filename",
      "--color",
      "never",
      "-M",
      String(spec.lineBytes),
      "--max-columns-preview",
      ...(spec.ignoreCase ? ["-i"] : ["-s"]),
      "-e",
      spec.pattern,
      ...(spec.path === "" ? [] : ["--", spec.path])
    ]
    // A file's lines come one after another: its path is decoded once, compared byte by byte with the last one
    // (its bytes copied into one buffer kept for the run, not a Buffer made per file).
    let lastPath = Buffer.alloc(256)
    let lastLength = 0
    let lastFile = ""
    const isLastPath = (buf: Buffer, from: number, to: number) => {
      if (to - from !== lastLength) return false
      for (let k = 0; k < lastLength; k++) if (buf[from + k] !== lastPath[k]) return false
      return true
    }
    const pathOf = (buf: Buffer, from: number, z: number) => {
      if (!isLastPath(buf, from, z)) {
        if (z - from > lastPath.byteLength) lastPath = Buffer.alloc(2 * (z - from))
        buf.copy(lastPath, 0, from, z)
        lastLength = z - from
        lastFile = buf.toString("utf8", from, z)
      }
      return lastFile
    }
    // After a "skip": the lines of that file that follow are only counted, until another file's line comes.
    let skipping = false
    let skipped = 0
    const flush = () => {
      if (skipping && skipped > 0) onEvent({ _tag: "Counted", file: lastFile, lines: skipped })
      skipping = false
      skipped = 0
    }
    // A path with a newline in it (Linux allows one) comes over two records or more: the head, with no NUL, is held
    // and joined to the next record. Was a gap: the tail read as a path of its own, and the file was left out.
    let pending: Buffer | undefined
    const onRecord = (buf: Buffer, from: number, end: number): void => {
      if (pending !== undefined) {
        const joined = Buffer.concat([pending, newline, buf.subarray(from, end)])
        pending = undefined
        return onRecord(joined, 0, joined.byteLength)
      }
      if (skipping) {
        const z = from + lastLength
        if (z < end && buf[z] === 0 && isLastPath(buf, from, z)) {
          skipped++
          return
        }
        flush()
      }
      const z = buf.indexOf(0, from)
      if (z === -1 || z >= end) {
        const m = binaryLine.exec(buf.toString("utf8", from, end))
        if (m?.[1] !== undefined) onEvent({ _tag: "Binary", file: m[1] })
        else pending = Buffer.from(buf.subarray(from, end))
        return
      }
      // The line number, then a colon.
      let n = 0
      let colon = z + 1
      for (; colon < end; colon++) {
        const c = buf[colon] ?? 0
        if (c === 58) break
        if (c < 48 || c > 57) return
        n = n * 10 + (c - 48)
      }
      if (colon === end || colon === z + 1) return
      let bodyEnd = end
      const cut = end - (colon + 1) >= omitted.byteLength && buf.compare(omitted, 0, omitted.byteLength, end - omitted.byteLength, end) === 0
      if (cut) bodyEnd = end - omitted.byteLength
      const file = pathOf(buf, from, z)
      const verdict = onEvent({ _tag: "Match", file, line: n, text: () => buf.toString("utf8", colon + 1, bodyEnd), cut })
      if (verdict === "skip") skipping = true
    }
    return Effect.flatMap(run({ args, cwd: spec.root, scanSince: spec.scanSince, sep: 10, onRecord }), (r) => {
      flush()
      return judged(r.code, r.stderr, (file) => onEvent({ _tag: "Unreadable", file, folder: isFolder(spec.root, file) }))
    })
  }

  return TextSearch.of({ engine: "ripgrep", search })
})

export const layer = (options: Options = {}) => Layer.effect(TextSearch, make(options))
