/**
 * The journal's cost: write_file through the shipped chain (before-image, intent, atomic write, terminal record;
 * a turn finalised every 10 calls) against the same chain built from `Chain.stages` without the Journal stage,
 * and journal records per second.
 *
 *   npx tsx bench/journal.bench.ts [calls=1000]
 */
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { Effect, Layer } from "effect"
import * as Approvers from "../src/adapters/approval/Approvers.js"
import * as MemoryAllowlist from "../src/adapters/approval/MemoryAllowlist.js"
import * as NodeFileSystem from "../src/adapters/fs/NodeFileSystem.js"
import * as SqliteJournal from "../src/adapters/journal/SqliteJournal.js"
import * as MemoryJournal from "../src/adapters/journal/MemoryJournal.js"
import * as MemoryNetGuard from "../src/adapters/net/MemoryNetGuard.js"
import * as Unavailable from "../src/adapters/Unavailable.js"
import * as Chain from "../src/kernel/Chain.js"
import * as Kernel from "../src/kernel/Kernel.js"
import * as Runner from "../src/kernel/Runner.js"
import { Journal } from "../src/ports/Journal.js"
import type { ToolExecutor } from "../src/ports/ToolExecutor.js"

const calls = Number(process.argv[2] ?? 1000)
const files = 20

const fresh = (): string => NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "minicode-bench-"))
const content = (size: number, i: number) => `${i} `.padEnd(size, "x")

const adapters = (journal: Kernel.Adapters["journal"]): Kernel.Adapters => ({
  fileSystem: NodeFileSystem.layer,
  allowlist: MemoryAllowlist.layer([]),
  approver: Approvers.constant("no"),
  bashParser: Unavailable.bashParser, sql: Unavailable.sql, sandboxState: Unavailable.sandboxState,
  netGuard: MemoryNetGuard.layer(),
  journal
})

/** `calls` write_file calls through `build`'s chain, turn by turn; µs per call. */
const writes = (size: number, build: (root: string, turn: number) => Layer.Layer<ToolExecutor, unknown>, finalize: (turn: number) => Effect.Effect<void, unknown, Journal>) =>
  Effect.gen(function* () {
    const root = fresh()
    const start = performance.now()
    for (let turn = 0; turn * 10 < calls; turn++) {
      yield* Effect.gen(function* () {
        for (let i = turn * 10; i < Math.min(calls, turn * 10 + 10); i++) {
          yield* Runner.invoke({ tool: "write_file", args: { path: `f${i % files}.txt`, content: content(size, i) } })
        }
      }).pipe(Effect.provide(build(root, turn)))
      yield* finalize(turn)
    }
    return (performance.now() - start) / calls
  })

const session = (root: string, turn: number): Kernel.SessionOptions => ({ workspace: root, workMode: "BUILD", sessionId: "bench", turn })

/** The shipped chain minus its Journal stage (over an in-memory journal nobody writes to). */
const unjournaled = (size: number) =>
  writes(
    size,
    (root, turn) => {
      const a = adapters(MemoryJournal.layer())
      return Chain.compose(Chain.stages.filter((s) => s !== Chain.Journal), Kernel.executorOf(a)).pipe(Layer.provide(Kernel.services(session(root, turn), a)))
    },
    () => Effect.void
  ).pipe(Effect.provide(MemoryJournal.layer()))

const journaled = (size: number, synchronous: "normal" | "full") =>
  Effect.gen(function* () {
    const journal = yield* Journal
    return yield* writes(size, (root, turn) => Kernel.layer(session(root, turn), adapters(Layer.succeed(Journal, journal))), (turn) => journal.finalizeTurn("bench", turn))
  }).pipe(Effect.provide(SqliteJournal.layer({ dbPath: SqliteJournal.dbPathFor(fresh()), synchronous })))

const records = Effect.gen(function* () {
  const journal = yield* Journal
  const n = calls * 5
  const start = performance.now()
  for (let i = 0; i < n; i++) {
    const r = yield* journal.begin(
      { session: "bench", turn: Math.floor(i / 10), tool: "bash", capability: "exec", paths: [], canonicalArgs: `{"i":${i}}`, remote: false },
      []
    )
    yield* journal.complete(r.id, "committed")
  }
  return n / ((performance.now() - start) / 1000)
}).pipe(Effect.provide(SqliteJournal.layer({ dbPath: SqliteJournal.dbPathFor(fresh()) })))

const program = Effect.gen(function* () {
  console.log(`${calls} calls over ${files} files, node ${process.version}, ${NodeOs.cpus().length} cpus`)
  for (const size of [1024, 64 * 1024]) {
    yield* unjournaled(size) // warm-up
    const plain = yield* unjournaled(size)
    yield* journaled(size, "normal") // warm-up
    const normal = yield* journaled(size, "normal")
    const full = yield* journaled(size, "full")
    console.log(
      `write_file ${size / 1024} KiB: chain without Journal ${(plain * 1000).toFixed(0)} µs, journaled ${(normal * 1000).toFixed(0)} µs ` +
        `(ratio ${(normal / plain).toFixed(2)}×), synchronous=full ${(full * 1000).toFixed(0)} µs (ratio ${(full / plain).toFixed(2)}×)`
    )
  }
  const perSecond = yield* records
  console.log(`journal records: ${perSecond.toFixed(0)} begin+complete pairs/s (no snapshots)`)
})

Effect.runPromise(program)
