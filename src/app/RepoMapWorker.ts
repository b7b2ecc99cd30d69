/**
 * repo_map in a worker process that exits after the call: the parse's native tree-sitter trees (tree-sitter 0.25's
 * Node binding frees them only on collection) and the build's heap go away with it, so a long-lived `mcp serve`
 * returns to its idle memory. The parent (`run`) spawns the worker (dist/repomap-worker.cjs, a build of `src/bin.ts`), writes the
 * job on its stdin and reads JSON lines back: progress notes, then the result. The worker (`main`) makes the map with
 * the same code as the in-process path (`RepoMapTool.makeWith(…).compute`) on the Node file system. Anything that
 * goes wrong on the way (no program to spawn, a crash, a malformed answer) gives undefined, and the map is made in
 * the calling process instead.
 */
import { spawn } from "node:child_process"
import * as path from "node:path"
import { Cause, Effect, Either, Schema } from "effect"
import * as NodeFileSystem from "../adapters/fs/NodeFileSystem.js"
import { WorkMode } from "../domain/core/Modes.js"
import * as Kernel from "../kernel/Kernel.js"
import * as ProtectedAliases from "../ports/ProtectedAliases.js"
import * as RepoMap from "../tools/RepoMapTool.js"

const Job = Schema.Struct({
  root: Schema.String,
  workMode: WorkMode,
  mode: Schema.Literal("auto", "regex"),
  cacheDir: Schema.optional(Schema.String),
  request: Schema.Struct({
    start: Schema.String,
    shown: Schema.String,
    args: Schema.Struct({ focus: Schema.optional(Schema.Array(Schema.String)), max_chars: Schema.optional(Schema.Number) }),
    protect: Schema.optional(Schema.Struct({ paths: Schema.Array(Schema.String), inodes: Schema.Array(Schema.String) }))
  })
})
export type Job = typeof Job.Type

const Stats = Schema.Struct({
  sources: Schema.Number,
  scanHits: Schema.Number,
  scanned: Schema.Number,
  outlineHits: Schema.Number,
  outlined: Schema.Number,
  excluded: Schema.Number,
  cacheWritten: Schema.Boolean
})
const Line = Schema.Union(
  Schema.Struct({ note: Schema.String }),
  Schema.Struct({ result: Schema.Struct({ text: Schema.String, truncated: Schema.Boolean, stats: Stats }) })
)
const decodeLine = Schema.decodeUnknownEither(Schema.parseJson(Line))

/** The worker's script, built beside the program (dist/bin.js). */
export const workerOf = (program: string) => path.join(path.dirname(program), "repomap-worker.cjs")

/**
 * Runs the job in the worker beside `program` (the minicode executable). Undefined when the worker does not answer with a result;
 * interrupting the call kills the worker.
 */
export const run = (program: string, job: Job, note: ((message: string) => void) | undefined) =>
  Effect.async<RepoMap.Result | undefined>((resume) => {
    let result: RepoMap.Result | undefined
    let buffered = ""
    let done = false
    const finish = (value: RepoMap.Result | undefined) => {
      if (done) return
      done = true
      resume(Effect.succeed(value))
    }
    // --expose-gc: the worker collects between its phases (`betweenPhases`). 4 MB semi-spaces (V8's default grows
    // to 16): the scan makes a file's text and lines at a time, all short-lived; measured on the bench's 60k-file
    // tree, the warm map's peak went from 319 to 297-300 MB.
    // Heap growing percent 20 and two malloc arenas (as the launcher's shebang): the old space grows in smaller
    // steps, and the parse's native buffers are not spread over one arena per thread.
    const child = spawn(process.execPath, ["--expose-gc", "--max-semi-space-size=4", "--heap-growing-percent=20", workerOf(program)], {
      cwd: job.root,
      stdio: ["pipe", "pipe", "ignore"],
      env: { ...process.env, MALLOC_ARENA_MAX: "2", MALLOC_MMAP_THRESHOLD_: "32768" }
    })
    child.on("error", () => finish(undefined))
    child.stdin.on("error", () => undefined)
    child.stdout.setEncoding("utf8")
    child.stdout.on("data", (chunk: string) => {
      buffered += chunk
      for (let nl = buffered.indexOf("\n"); nl !== -1; nl = buffered.indexOf("\n")) {
        const line = buffered.slice(0, nl)
        buffered = buffered.slice(nl + 1)
        const decoded = decodeLine(line)
        if (Either.isLeft(decoded)) continue
        if ("note" in decoded.right) note?.(decoded.right.note)
        else result = decoded.right.result
      }
    })
    child.on("close", (code) => finish(code === 0 ? result : undefined))
    child.stdin.end(JSON.stringify(job))
    return Effect.sync(() => {
      if (!done) child.kill("SIGKILL")
    })
  })

const readStdin = Effect.async<string>((resume) => {
  const chunks: Array<Buffer> = []
  process.stdin.on("data", (c: Buffer) => chunks.push(c))
  process.stdin.on("end", () => resume(Effect.succeed(Buffer.concat(chunks).toString("utf8"))))
})

const write = (value: unknown) => Effect.async<void>((resume) => void process.stdout.write(`${JSON.stringify(value)}\n`, () => resume(Effect.void)))

/** The worker: reads its job from stdin, makes the map, writes notes and the result to stdout. */
export const main = Effect.gen(function* () {
  // A parent that went away (an interrupted call) closes the pipe: nothing to tell anyone then.
  process.stdout.on("error", () => process.exit(1))
  const job = yield* Schema.decodeUnknown(Schema.parseJson(Job))(yield* readStdin)
  const outliner =
    job.mode === "regex"
      ? {}
      : yield* Effect.flatMap(Effect.promise(() => import("../adapters/treesitter/TreeSitterOutliner.js")), (T) =>
          Effect.map(T.make, (outliner) => ({ outliner, outlinerName: T.name }))
        )
  const gc = (globalThis as { gc?: () => void }).gc
  const { compute } = yield* RepoMap.makeWith({ mode: job.mode, cacheDir: job.cacheDir, ...outliner, ...(gc === undefined ? {} : { betweenPhases: gc }) }).pipe(
    // No scan here: the parent sent what its scan found in the job (`request.protect`).
    Effect.provideService(ProtectedAliases.ProtectedAliases, ProtectedAliases.nothing),
    Effect.provide(Kernel.sessionLayer({ workspace: job.root, workMode: job.workMode })),
    Effect.provide(NodeFileSystem.layer)
  )
  const notes: Array<string> = []
  const result = yield* compute(job.request, (message) => {
    if (notes.length === 0) setImmediate(() => void process.stdout.write(notes.splice(0).map((n) => `${JSON.stringify({ note: n })}\n`).join("")))
    notes.push(message)
  }).pipe(Effect.provide(NodeFileSystem.layer))
  yield* write({ result })
}).pipe(
  // The parent reads a failure as "no answer" and makes the map itself (where the error is told to the caller).
  Effect.catchAllCause((cause) => Effect.sync(() => {
    process.stderr.write(`repomap worker: ${Cause.pretty(cause)}\n`)
    process.exitCode = 1
  }))
)
