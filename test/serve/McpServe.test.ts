/**
 * The `mcp serve` core at the program level: the real chain (permission, jail, guard, validation, journal, executor)
 * over the real file system in a temporary workspace, with a stand-in guard that admits bash and a fake slow bash
 * executor, so idempotency, the in-flight cap, cancellation and restart are checked without the SDK.
 */
import { sandboxed } from "../support/Fakes.js"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { PassThrough } from "node:stream"
import { assert, describe, it } from "@effect/vitest"
import { Cause, Context, Deferred, Effect, Either, Exit, Fiber, Layer, Ref } from "effect"
import * as MemoryJournal from "../../src/adapters/journal/MemoryJournal.js"
import * as SqliteJournal from "../../src/adapters/journal/SqliteJournal.js"
import { ToolFailed } from "../../src/domain/core/Errors.js"
import { ErrorCodes } from "../../src/domain/mcp/JsonRpcFraming.js"
import * as Scopes from "../../src/domain/mcp/McpScopes.js"
import { admitAll } from "../support/AdmitBash.js"
import { Journal, type JournalError, type JournalShape } from "../../src/ports/Journal.js"
import { type Invocation, ToolExecutor } from "../../src/ports/ToolExecutor.js"
import * as Executor from "../../src/kernel/Executor.js"
import type { Diagnostics } from "../../src/ports/Diagnostics.js"
import * as Kernel from "../../src/kernel/Kernel.js"
import * as McpServe from "../../src/serve/Server.js"
import * as StdioLineTransport from "../../src/adapters/mcp/StdioLineTransport.js"
import { sha256 } from "../../src/adapters/crypto/Sha256.js"
import { EffectRunner } from "../../src/ports/EffectRunner.js"
import { runner } from "./support/EffectRunner.js"
import { nodeAdapters } from "../support/Adapters.js"

const hash = (text: string) => sha256(text, "base64")

const settings = (flags: ReadonlyArray<string> = [], allowAll = false) =>
  Either.getOrThrow(Scopes.parse(flags, { allowAll, allTools: false }))

const admitBash = admitAll

interface Probe {
  readonly started: Ref.Ref<number>
  readonly killed: Ref.Ref<number>
  readonly gate: Deferred.Deferred<void>
}

/** `bash` never reaches a shell here: it waits for the gate (or forever), counting starts and interruptions. */
const slowBash = (probe: Probe) => (inv: Invocation) =>
  inv.facts.call.tool !== "bash"
    ? undefined
    : Ref.update(probe.started, (n) => n + 1).pipe(
        Effect.zipRight(Deferred.await(probe.gate)),
        Effect.as({ text: `ran: ${inv.facts.call.tool === "bash" ? inv.facts.call.args.command : ""}`, truncated: false }),
        Effect.onInterrupt(() => Ref.update(probe.killed, (n) => n + 1))
      )

const workspace = Effect.acquireRelease(
  Effect.sync(() => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "minicode-serve-")))),
  (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
)

const makeProbe = Effect.all({ started: Ref.make(0), killed: Ref.make(0), gate: Deferred.make<void>() })

/** A core over the whole chain; `journal` is passed in so a "restart" can keep it while the core starts afresh. */
const coreOver = (
  root: string,
  journal: JournalShape,
  probe: Probe,
  options: {
    readonly settings?: Scopes.Settings
    readonly maxInFlight?: number
    readonly replayWholeReadBytes?: number
    readonly replayEntries?: number
    readonly quietMs?: number
  } = {}
) =>
  Effect.gen(function* () {
    const chain = yield* Layer.build(
      Kernel.layer(
        { workspace: root, workMode: "BUILD", permissionMode: "AUTO", sessionId: McpServe.sessionId },
        nodeAdapters({ bashParser: admitBash, sandboxState: sandboxed, journal: Layer.succeed(Journal, journal), extensions: Kernel.extensionsOf([slowBash(probe)]) })
      )
    )
    return yield* McpServe.makeCore({
      settings: options.settings ?? settings(),
      root,
      hash,
      ...(options.maxInFlight === undefined ? {} : { maxInFlight: options.maxInFlight }),
      ...(options.replayWholeReadBytes === undefined ? {} : { replayWholeReadBytes: options.replayWholeReadBytes }),
      ...(options.replayEntries === undefined ? {} : { replayEntries: options.replayEntries }),
      ...(options.quietMs === undefined ? {} : { quietMs: options.quietMs })
    }).pipe(Effect.provideService(ToolExecutor, Context.get(chain, ToolExecutor)), Effect.provideService(Journal, journal))
  })

const text = (o: McpServe.Outcome) => (o._tag === "Result" ? o.result.text : `rpc ${o.code}: ${o.message}`)

const waitFor = (ref: Ref.Ref<number>, n: number) =>
  Effect.gen(function* () {
    while ((yield* Ref.get(ref)) < n) yield* Effect.sleep("5 millis")
  })

describe("mcp serve core", () => {
  it.scopedLive("runs a call through the chain and scrubs a denial", () =>
    Effect.gen(function* () {
      const root = yield* workspace
      fs.writeFileSync(path.join(root, "a.txt"), "hello\n")
      const core = yield* coreOver(root, (yield* MemoryJournal.make()).journal, yield* makeProbe)
      const read = yield* core.call(1, "read_file", { path: "a.txt" })
      assert.strictEqual(read._tag, "Result")
      assert.include(text(read), "hello")
      const outside = yield* core.call(2, "read_file", { path: "/etc/passwd" })
      assert.isTrue(outside._tag === "Result" && outside.result.isError)
      assert.include(text(outside), "jail")
      assert.notInclude(text(outside), "/etc/passwd")
    })
  )

  it.scopedLive("rejects invalid arguments before anything runs, naming the field", () =>
    Effect.gen(function* () {
      const root = yield* workspace
      const probe = yield* makeProbe
      const core = yield* coreOver(root, (yield* MemoryJournal.make()).journal, probe)
      const bad = yield* core.call(1, "write_file", { path: "x.txt", contents: "typo" })
      assert.isTrue(bad._tag === "Result" && bad.result.isError)
      assert.include(text(bad), "contents")
      assert.include(text(bad), "content")
      assert.isFalse(fs.existsSync(path.join(root, "x.txt")))
      const wrongType = yield* core.call(2, "bash", { command: 42 })
      assert.include(text(wrongType), "command")
      assert.strictEqual(yield* Ref.get(probe.started), 0)
      const unknown = yield* core.call(3, "rm_rf", {})
      assert.isTrue(unknown._tag === "RpcError" && unknown.code === ErrorCodes.InvalidParams)
    })
  )

  it.scopedLive("refuses a tool outside its scope's level, by name and on the call's facts", () =>
    Effect.gen(function* () {
      const root = yield* workspace
      const core = yield* coreOver(root, (yield* MemoryJournal.make()).journal, yield* makeProbe, { settings: settings(["files=read", "shell=off", "git=write"]) })
      assert.isFalse(core.tools.some((t) => t.name === "write_file" || t.name === "bash"))
      assert.isTrue(core.tools.some((t) => t.name === "read_file"))
      const write = yield* core.call(1, "write_file", { path: "x.txt", content: "x" })
      assert.include(text(write), "--scope files=write")
      assert.isFalse(fs.existsSync(path.join(root, "x.txt")))
      const sqlWrite = yield* core.call(2, "sql_query", { sql: "delete from t", write: true })
      assert.include(text(sqlWrite), "sql=write")
      const gated = yield* core.call(3, "git_commit", { message: "m", paths: ["a"] })
      assert.include(text(gated), "--allow-all")
      const allowAll = yield* coreOver(root, (yield* MemoryJournal.make()).journal, yield* makeProbe, { settings: settings(["git=write"], true) })
      assert.isTrue(allowAll.tools.some((t) => t.name === "git_commit"))
    })
  )

  it.scopedLive("concurrent duplicates execute once and share the result; a retry replays it; other arguments conflict", () =>
    Effect.gen(function* () {
      const root = yield* workspace
      const probe = yield* makeProbe
      const core = yield* coreOver(root, (yield* MemoryJournal.make()).journal, probe)
      const calls = yield* Effect.forEach([1, 2, 3], () => Effect.fork(core.call(7, "bash", { command: "make" })))
      yield* waitFor(probe.started, 1)
      yield* Effect.sleep("20 millis")
      yield* Deferred.succeed(probe.gate, undefined)
      const outcomes = yield* Effect.forEach(calls, Fiber.join)
      assert.strictEqual(yield* Ref.get(probe.started), 1)
      for (const o of outcomes) assert.strictEqual(text(o), "ran: make")
      const replay = yield* core.call(7, "bash", { command: "make" })
      assert.strictEqual(text(replay), "ran: make")
      assert.strictEqual(yield* Ref.get(probe.started), 1)
      const conflict = yield* core.call(7, "bash", { command: "make clean" })
      assert.isTrue(conflict._tag === "RpcError" && conflict.code === ErrorCodes.Conflict)
      // 7 and "7" are different ids.
      const other = yield* core.call("7", "bash", { command: "make clean" })
      assert.strictEqual(text(other), "ran: make clean")
    })
  )

  it.scopedLive("a recent read is replayed whole, even after the file changed", () =>
    Effect.gen(function* () {
      const root = yield* workspace
      fs.writeFileSync(path.join(root, "a.txt"), "first\n")
      const core = yield* coreOver(root, (yield* MemoryJournal.make()).journal, yield* makeProbe)
      const read = yield* core.call(5, "read_file", { path: "a.txt" })
      fs.writeFileSync(path.join(root, "a.txt"), "second\n")
      const retry = yield* core.call(5, "read_file", { path: "a.txt" })
      assert.strictEqual(text(retry), text(read))
      assert.include(text(retry), "first")
    })
  )

  it.scopedLive("an older read keeps only a fingerprint: a retry answers only with the very same result", () =>
    Effect.gen(function* () {
      const root = yield* workspace
      fs.writeFileSync(path.join(root, "a.txt"), "first\n")
      fs.writeFileSync(path.join(root, "b.txt"), "b\n")
      const { journal } = yield* MemoryJournal.make()
      // No read is recent enough to be kept whole.
      const core = yield* coreOver(root, journal, yield* makeProbe, { replayWholeReadBytes: 0 })
      const read = yield* core.call(5, "read_file", { path: "a.txt" })
      assert.include(text(read), "first")
      // Unchanged: the read runs again and gives the very same result.
      assert.strictEqual(text(yield* core.call(5, "read_file", { path: "a.txt" })), text(read))
      // Changed: the retry is told, and is never handed the new content as if it were the first answer.
      fs.writeFileSync(path.join(root, "a.txt"), "second\n")
      const changed = yield* core.call(5, "read_file", { path: "a.txt" })
      assert.isTrue(changed._tag === "RpcError" && changed.code === ErrorCodes.AlreadyHandled)
      assert.include(text(changed), "different result")
      assert.notInclude(text(changed), "second")
      // Other arguments under that id are still a conflict, and a new id reads the new content.
      const conflict = yield* core.call(5, "read_file", { path: "b.txt" })
      assert.isTrue(conflict._tag === "RpcError" && conflict.code === ErrorCodes.Conflict)
      assert.include(text(yield* core.call(6, "read_file", { path: "a.txt" })), "second")
      // A write is never run again: its result is replayed whole, and the file is left as it is now.
      const write = yield* core.call(7, "write_file", { path: "w.txt", content: "one" })
      fs.writeFileSync(path.join(root, "w.txt"), "changed by hand")
      assert.strictEqual(text(yield* core.call(7, "write_file", { path: "w.txt", content: "one" })), text(write))
      assert.strictEqual(fs.readFileSync(path.join(root, "w.txt"), "utf8"), "changed by hand")
      assert.strictEqual((yield* journal.list()).length, 1)
    })
  )

  it.scopedLive("a re-read shows the file as it is now: an edit of the same size under the same mtime is seen", () =>
    Effect.gen(function* () {
      const root = yield* workspace
      const file = path.join(root, "a.txt")
      fs.writeFileSync(file, "alpha\nbeta\ngamma\n")
      const core = yield* coreOver(root, (yield* MemoryJournal.make()).journal, yield* makeProbe)
      const first = text(yield* core.call(1, "read_file", { path: "a.txt" }))
      assert.strictEqual(first, "     1\talpha\n     2\tbeta\n     3\tgamma")
      assert.strictEqual(text(yield* core.call(2, "read_file", { path: "a.txt" })), first)
      // Same size, stat times put back: only the bytes tell the change.
      const { atime, mtime } = fs.statSync(file)
      fs.writeFileSync(file, "ALPHA\nbeta\ngamma\n")
      fs.utimesSync(file, atime, mtime)
      assert.strictEqual(text(yield* core.call(3, "read_file", { path: "a.txt" })), "     1\tALPHA\n     2\tbeta\n     3\tgamma")
      // Other ranges of the same bytes, and the same bytes under another name, are their own listings.
      assert.strictEqual(text(yield* core.call(4, "read_file", { path: "a.txt", offset: 2, limit: 1 })), "     2\tbeta\n[truncated: showing lines 2-2 of 3; use offset/limit to read more]")
      assert.strictEqual(text(yield* core.call(5, "read_file", { path: "a.txt", offset: 2 })), "     2\tbeta\n     3\tgamma")
      fs.writeFileSync(path.join(root, "b.txt"), "")
      assert.strictEqual(text(yield* core.call(6, "read_file", { path: "b.txt" })), "[b.txt is empty]")
      fs.renameSync(file, path.join(root, "b.txt"))
      assert.strictEqual(text(yield* core.call(7, "read_file", { path: "b.txt" })), "     1\tALPHA\n     2\tbeta\n     3\tgamma")
      assert.include(text(yield* core.call(8, "read_file", { path: "a.txt" })), "does not exist")
    })
  )

  it.scopedLive("many reads past a small window and a small table: every retry of an unchanged file gets its first answer", () =>
    Effect.gen(function* () {
      const root = yield* workspace
      for (let i = 0; i < 12; i++) fs.writeFileSync(path.join(root, `f${i}.txt`), `file ${i}\n`.repeat(i + 1))
      const core = yield* coreOver(root, (yield* MemoryJournal.make()).journal, yield* makeProbe, { replayWholeReadBytes: 300, replayEntries: 16 })
      const first = yield* Effect.forEach(Array.from({ length: 24 }, (_, i) => i), (i) => core.call(100 + i, "read_file", { path: `f${i % 12}.txt` }))
      const again = yield* Effect.forEach(Array.from({ length: 24 }, (_, i) => i), (i) => core.call(100 + i, "read_file", { path: `f${i % 12}.txt` }))
      assert.deepStrictEqual(again.map(text), first.map(text))
      for (const [i, o] of first.entries()) assert.include(text(o), `file ${i % 12}`)
    })
  )

  it.scopedLive("long arguments are told apart by their digest: a retry replays, other content under the id conflicts", () =>
    Effect.gen(function* () {
      const root = yield* workspace
      const { journal } = yield* MemoryJournal.make()
      const core = yield* coreOver(root, journal, yield* makeProbe)
      const long = "x".repeat(10_000)
      const first = yield* core.call(3, "write_file", { path: "big.txt", content: `${long}a` })
      const replay = yield* core.call(3, "write_file", { path: "big.txt", content: `${long}a` })
      assert.strictEqual(text(replay), text(first))
      const other = yield* core.call(3, "write_file", { path: "big.txt", content: `${long}b` })
      assert.isTrue(other._tag === "RpcError" && other.code === ErrorCodes.Conflict)
      assert.strictEqual(fs.readFileSync(path.join(root, "big.txt"), "utf8"), `${long}a`)
      assert.strictEqual((yield* journal.list()).length, 1)
    })
  )

  it.scopedLive("writes for real once under duplicate ids (verified on disk)", () =>
    Effect.gen(function* () {
      const root = yield* workspace
      fs.writeFileSync(path.join(root, "log.txt"), "a\n")
      const { journal } = yield* MemoryJournal.make()
      const core = yield* coreOver(root, journal, yield* makeProbe)
      const edit = { path: "log.txt", old_string: "a\n", new_string: "a\na\n" }
      const outcomes = yield* Effect.all([1, 2, 3, 4].map(() => core.call(9, "edit_file", edit)), { concurrency: "unbounded" })
      assert.strictEqual(fs.readFileSync(path.join(root, "log.txt"), "utf8"), "a\na\n")
      for (const o of outcomes) assert.strictEqual(text(o), text(outcomes[0] ?? o))
      assert.strictEqual((yield* journal.list()).length, 1)
    })
  )

  it.scopedLive("at most maxInFlight calls run; the next is refused as busy at once", () =>
    Effect.gen(function* () {
      const root = yield* workspace
      const probe = yield* makeProbe
      const core = yield* coreOver(root, (yield* MemoryJournal.make()).journal, probe)
      const running = yield* Effect.forEach(Array.from({ length: 32 }, (_, i) => i), (i) => Effect.fork(core.call(i, "bash", { command: `job ${i}` })))
      yield* waitFor(probe.started, 32)
      const busy = yield* core.call(99, "bash", { command: "one more" })
      assert.isTrue(busy._tag === "RpcError" && busy.code === ErrorCodes.Busy)
      assert.include(text(busy), "busy")
      yield* Deferred.succeed(probe.gate, undefined)
      const done = yield* Effect.forEach(running, Fiber.join)
      assert.isTrue(done.every((o) => o._tag === "Result" && !o.result.isError))
      const after = yield* core.call(100, "bash", { command: "now" })
      assert.strictEqual(text(after), "ran: now")
    })
  )

  it.scopedLive("after calls that wrote, the journal tidies up once at a quiet moment, never while a call runs", () =>
    Effect.gen(function* () {
      const root = yield* workspace
      fs.writeFileSync(path.join(root, "a.txt"), "a\n")
      const probe = yield* makeProbe
      const { journal } = yield* MemoryJournal.make()
      const tidied = yield* Ref.make(0)
      const counting: JournalShape = { ...journal, idle: Ref.update(tidied, (n) => n + 1) }
      const core = yield* coreOver(root, counting, probe, { quietMs: 30 })
      yield* Effect.forkScoped(core.housekeeping)
      // Reads leave the journal nothing to do.
      for (const id of [1, 2, 3]) yield* core.call(id, "read_file", { path: "a.txt" })
      yield* Effect.sleep("120 millis")
      assert.strictEqual(yield* Ref.get(tidied), 0)
      // A write finishes while a bash still runs: no quiet moment until the bash is done.
      const bash = yield* Effect.fork(core.call(4, "bash", { command: "make" }))
      yield* waitFor(probe.started, 1)
      yield* core.call(5, "write_file", { path: "b.txt", content: "b" })
      yield* Effect.sleep("120 millis")
      assert.strictEqual(yield* Ref.get(tidied), 0)
      yield* Deferred.succeed(probe.gate, undefined)
      assert.strictEqual(text(yield* Fiber.join(bash)), "ran: make")
      yield* waitFor(tidied, 1)
      // A burst of writes: one tidy-up after it, not one per write.
      for (const id of [6, 7, 8, 9, 10]) yield* core.call(id, "write_file", { path: "b.txt", content: `b${id}` })
      yield* waitFor(tidied, 2)
      yield* Effect.sleep("120 millis")
      assert.strictEqual(yield* Ref.get(tidied), 2)
    })
  )

  it.scopedLive("interrupting a call interrupts exactly its execution and journals unknown", () =>
    Effect.gen(function* () {
      const root = yield* workspace
      const probe = yield* makeProbe
      const { journal } = yield* MemoryJournal.make()
      const core = yield* coreOver(root, journal, probe)
      const a = yield* Effect.fork(core.call(1, "bash", { command: "sleep 1000" }))
      const b = yield* Effect.fork(core.call(2, "bash", { command: "sleep 1000 too" }))
      yield* waitFor(probe.started, 2)
      yield* Fiber.interrupt(a)
      yield* waitFor(probe.killed, 1)
      assert.strictEqual(yield* Ref.get(probe.killed), 1)
      const records = yield* journal.list()
      const states = records.map((r) => r.state).sort()
      assert.deepStrictEqual(states, ["pending", "unknown"])
      // The cancelled request is not executed again on a retry.
      const retry = yield* core.call(1, "bash", { command: "sleep 1000" })
      assert.isTrue(retry._tag === "RpcError" && retry.code === ErrorCodes.AlreadyHandled)
      assert.include(text(retry), "may or may not have happened")
      assert.strictEqual(yield* Ref.get(probe.started), 2)
      yield* Deferred.succeed(probe.gate, undefined)
      assert.strictEqual(text(yield* Fiber.join(b)), "ran: sleep 1000 too")
    })
  )

  it.scopedLive("cancelling a duplicate cancels the execution it joined (they share the request id)", () =>
    Effect.gen(function* () {
      const root = yield* workspace
      const probe = yield* makeProbe
      const { journal } = yield* MemoryJournal.make()
      const core = yield* coreOver(root, journal, probe)
      const owner = yield* Effect.fork(core.call(5, "bash", { command: "sleep 1000" }))
      yield* waitFor(probe.started, 1)
      const duplicate = yield* Effect.fork(core.call(5, "bash", { command: "sleep 1000" }))
      yield* Effect.sleep("20 millis")
      yield* Fiber.interrupt(duplicate)
      assert.isTrue(Exit.isInterrupted(yield* Fiber.await(owner)))
      assert.strictEqual(yield* Ref.get(probe.killed), 1)
      assert.deepStrictEqual((yield* journal.list()).map((r) => r.state), ["unknown"])
      const retry = yield* core.call(5, "bash", { command: "sleep 1000" })
      assert.isTrue(retry._tag === "RpcError" && retry.code === ErrorCodes.AlreadyHandled)
      assert.strictEqual(yield* Ref.get(probe.started), 1)
      assert.strictEqual(yield* core.busy, 0)
    })
  )

  it.scopedLive("after a restart the journal answers a retried id: committed, failed or unknown, never re-executed", () =>
    Effect.gen(function* () {
      const root = yield* workspace
      fs.writeFileSync(path.join(root, "f.txt"), "one\n")
      const { journal } = yield* MemoryJournal.make()
      const probe = yield* makeProbe
      const first = yield* Effect.scoped(
        Effect.gen(function* () {
          const core = yield* coreOver(root, journal, probe)
          const written = yield* core.call(1, "write_file", { path: "w.txt", content: "w" })
          const failed = yield* core.call(2, "edit_file", { path: "f.txt", old_string: "absent", new_string: "x" })
          const hanging = yield* Effect.fork(core.call(3, "bash", { command: "long" }))
          yield* waitFor(probe.started, 1)
          yield* Fiber.interrupt(hanging)
          return [written, failed]
        })
      )
      assert.isTrue(first.every((o) => o._tag === "Result"))
      fs.rmSync(path.join(root, "w.txt"))
      const restarted = yield* coreOver(root, journal, probe)
      const again = yield* restarted.call(1, "write_file", { path: "w.txt", content: "w" })
      assert.isTrue(again._tag === "RpcError" && again.code === ErrorCodes.AlreadyHandled)
      assert.include(text(again), "executed successfully")
      assert.include(text(again), "by an earlier run of this server that stopped before answering it")
      assert.isFalse(fs.existsSync(path.join(root, "w.txt")))
      assert.include(text(yield* restarted.call(2, "edit_file", { path: "f.txt", old_string: "absent", new_string: "x" })), "failed")
      assert.include(text(yield* restarted.call(3, "bash", { command: "long" })), "unknown")
      assert.strictEqual(yield* Ref.get(probe.started), 1)
      // A later connection reusing an id for a different call makes a new call.
      const third = yield* coreOver(root, journal, probe)
      const fresh = yield* third.call(1, "write_file", { path: "w.txt", content: "other" })
      assert.isTrue(fresh._tag === "Result" && !fresh.result.isError)
      assert.strictEqual(fs.readFileSync(path.join(root, "w.txt"), "utf8"), "other")
    })
  )

  it.scopedLive("caps output with a visible marker", () =>
    Effect.gen(function* () {
      const root = yield* workspace
      fs.writeFileSync(path.join(root, "big.txt"), "x".repeat(1000) + "\n")
      const chainCore = yield* coreOver(root, (yield* MemoryJournal.make()).journal, yield* makeProbe)
      const normal = yield* chainCore.call(1, "read_file", { path: "big.txt" })
      assert.notInclude(text(normal), "[truncated")
      const small = yield* Effect.gen(function* () {
        const { journal } = yield* MemoryJournal.make()
        const chain = yield* Layer.build(
          Kernel.layer(
            { workspace: root, workMode: "BUILD", sessionId: McpServe.sessionId, maxOutputBytes: 100 },
            nodeAdapters({ bashParser: admitBash, journal: Layer.succeed(Journal, journal), sandboxState: sandboxed })
          )
        )
        return yield* McpServe.makeCore({ settings: settings(), root, hash, maxOutputBytes: 100 }).pipe(
          Effect.provideService(ToolExecutor, Context.get(chain, ToolExecutor)),
          Effect.provideService(Journal, journal)
        )
      })
      const capped = yield* small.call(1, "read_file", { path: "big.txt" })
      assert.include(text(capped), "[truncated:")
    })
  )
})

describe("mcp serve start-up", () => {
  /** Feeds `serve` JSON-RPC lines over in-memory stdio and collects what it answers. */
  const stdio = () => {
    const input = new PassThrough()
    const output = new PassThrough()
    const answers: Array<{ readonly id?: unknown; readonly result?: unknown }> = []
    let rest = ""
    output.on("data", (chunk: Buffer) => {
      const lines = (rest + chunk.toString("utf8")).split("\n")
      rest = lines.pop() ?? ""
      for (const line of lines) if (line !== "") answers.push(JSON.parse(line))
    })
    const send = (message: object) => input.write(JSON.stringify({ jsonrpc: "2.0", ...message }) + "\n")
    return { stdio: { input, output }, answers, send }
  }

  const kernelAdapters = (extensions: Layer.Layer<Executor.Extensions | Diagnostics, ToolFailed>): Kernel.Adapters<ToolFailed> =>
    nodeAdapters<ToolFailed>({ bashParser: admitBash, sandboxState: sandboxed, extensions })
  /** The server's adapters as the app wires them, over in-memory stdio. */
  const over = <E>(kernel: Kernel.Adapters<E>, io: { readonly input: PassThrough; readonly output: PassThrough }): McpServe.ServeAdapters<E> => ({
    kernel,
    hash,
    transport: (hooks) => StdioLineTransport.make({ input: io.input, output: io.output, maxLineBytes: McpServe.limits.maxLineBytes, ...hooks })
  })
  const serve = <E>(options: McpServe.ServeOptions, adapters: McpServe.ServeAdapters<E>) =>
    Effect.provideService(McpServe.serve(options, adapters), EffectRunner, runner)

  const initialize = { id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } } }

  it.scopedLive("answers tools/list before the chain is built, then builds it; a chain that cannot be built ends the server", () =>
    Effect.gen(function* () {
      const root = yield* workspace
      const built = yield* Ref.make(0)
      const failing = Kernel.withoutDiagnostics(Layer.effect(Executor.Extensions, Effect.zipRight(Ref.update(built, (n) => n + 1), Effect.fail(new ToolFailed({ tool: "test", reason: "no chain here" })))))
      const io = stdio()
      const server = yield* Effect.fork(serve({ workspace: root, settings: settings(), version: "0" }, over(kernelAdapters(failing), io.stdio)))
      io.send(initialize)
      io.send({ method: "notifications/initialized" })
      io.send({ id: 2, method: "tools/list" })
      const exit = yield* Fiber.await(server)
      assert.isTrue(io.answers.some((a) => a.id === 2 && a.result !== undefined))
      assert.strictEqual(yield* Ref.get(built), 1)
      assert.isTrue(Exit.isFailure(exit) && String(Cause.squash(exit.cause)).includes("no chain here"))
    })
  )

  it.scopedLive("each run is one turn of the session, finalised at the end: retention keeps the last runs; an answered call is no retry in a later run", () =>
    Effect.gen(function* () {
      const root = yield* workspace
      const dbPath = SqliteJournal.dbPathFor(root)
      const journaled: Kernel.Adapters<ToolFailed | JournalError> = {
        ...kernelAdapters(Kernel.extensionsOf([])),
        journal: SqliteJournal.layer({ dbPath, retentionTurns: 2 })
      }
      /** One server run: the calls in order, each answered before the next; then the input ends and the run with it. */
      const serveRun = (calls: ReadonlyArray<{ readonly id: number; readonly name: string; readonly arguments: object }>) =>
        Effect.gen(function* () {
          const io = stdio()
          const server = yield* Effect.fork(serve({ workspace: root, settings: settings(), version: "0" }, over(journaled, io.stdio)))
          io.send(initialize)
          io.send({ method: "notifications/initialized" })
          const answers: Array<string> = []
          for (const call of calls) {
            io.send({ id: call.id, method: "tools/call", params: { name: call.name, arguments: call.arguments } })
            while (!io.answers.some((a) => a.id === call.id)) yield* Effect.sleep("5 millis")
            answers.push(JSON.stringify(io.answers.find((a) => a.id === call.id)))
          }
          io.stdio.input.end()
          yield* Fiber.join(server)
          return answers
        })
      const write = (id: number, file: string, content: string) => ({ id, name: "write_file", arguments: { path: file, content } })
      yield* serveRun([write(10, "a.txt", "one"), write(11, "b.txt", "one")])
      // A run that only reads does not take a turn.
      yield* serveRun([{ id: 12, name: "read_file", arguments: { path: "a.txt" } }])
      yield* serveRun([write(20, "a.txt", "two")])
      fs.writeFileSync(path.join(root, "a.txt"), "changed since")
      // The same id and arguments in a later session: run 3 answered it, so it is a new call, and it runs.
      const [again] = yield* serveRun([write(20, "a.txt", "two"), write(30, "c.txt", "three")])
      assert.notInclude(again, "already received before")
      assert.strictEqual(fs.readFileSync(path.join(root, "a.txt"), "utf8"), "two")
      const records = yield* Effect.scoped(
        Effect.flatMap(Layer.build(SqliteJournal.layer({ dbPath })), (context) => Context.get(context, Journal).list({ session: McpServe.sessionId }))
      )
      // Runs 1, 3 and 4 wrote; retention (2 turns) dropped the first run's records. Every reply was written.
      assert.deepStrictEqual(records.map((r) => [r.turn, r.paths, r.finalized, r.answered]), [
        [2, ["a.txt"], true, true],
        [3, ["a.txt"], true, true],
        [3, ["c.txt"], true, true]
      ])
    })
  )

  it.scopedLive("a call before any tools/list builds the chain and runs", () =>
    Effect.gen(function* () {
      const root = yield* workspace
      fs.writeFileSync(path.join(root, "a.txt"), "hello\n")
      const io = stdio()
      yield* Effect.fork(serve({ workspace: root, settings: settings(), version: "0" }, over(kernelAdapters(Kernel.extensionsOf([])), io.stdio)))
      io.send(initialize)
      io.send({ method: "notifications/initialized" })
      io.send({ id: 2, method: "tools/call", params: { name: "read_file", arguments: { path: "a.txt" } } })
      while (!io.answers.some((a) => a.id === 2)) yield* Effect.sleep("5 millis")
      assert.include(JSON.stringify(io.answers.find((a) => a.id === 2)), "hello")
      io.stdio.input.end()
    })
  )
})
