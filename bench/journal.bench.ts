/**
 * The journal's cost: write_file through the shipped chain (before-image, intent, atomic write, terminal record;
 * a turn finalised every 10 calls) against the same chain built from `Chain.stages` without the Journal stage,
 * and journal records per second; then why the adapter keeps a second, raw connection: the per-call statements of
 * a journaled write (an intent with one 1 KiB before-image, its terminal state) on the one Effect SqliteClient
 * connection against the same SQL on the plain better-sqlite3 hot-path connection (SqliteJournalHotPath.ts).
 *
 *   npx tsx bench/journal.bench.ts [calls=1000]      or      npm run bench -- journal
 */
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { Context, Effect, Layer } from "effect"
import * as Approvers from "../src/adapters/approval/Approvers.js"
import * as MemoryAllowlist from "../src/adapters/approval/MemoryAllowlist.js"
import * as NodeFileSystem from "../src/adapters/fs/NodeFileSystem.js"
import * as SqliteJournal from "../src/adapters/journal/SqliteJournal.js"
import * as MemoryJournal from "../src/adapters/journal/MemoryJournal.js"
import { cachePages, type HotRow, type HotSnapshot, hotPath } from "../src/adapters/journal/SqliteJournalHotPath.js"
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
  bashParser: Unavailable.bashParser, sql: Unavailable.sql, sandboxState: Unavailable.sandboxState, textSearch: Unavailable.textSearch, searchWorkers: Unavailable.searchWorkers, aliases: Unavailable.aliases,
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

/** The row and before-image of the i-th journaled write (unique ids and hashes: every blob is really inserted). */
const hotRow = (i: number): HotRow => ({
  id: `r${i}`, session: "bench", turn: Math.floor(i / 10), tool: "write_file", capability: "write", paths: `["f${i % files}.txt"]`,
  args_hash: `a${i}`, request_id: null, remote: 0, state: "pending", note: null, created_at: i, updated_at: i, finalized: 0,
  answered: 0, restore_action: null, restore_session: null, restore_turn: null, sum: `s${i}`, state_sum: `t${i}`, summary: null, writer: null
})
const blob = (i: number): readonly [string, Uint8Array] => [`h${i}`, new TextEncoder().encode(content(1024, i))]
const snap = (i: number): HotSnapshot => ({ path: `f${i % files}.txt`, before_hash: `h${i}`, before_mode: 0o644, after_known: 1, after_hash: null, after_mode: null })

/** A migrated journal database, as the adapter leaves it. */
const migrated = Effect.gen(function* () {
  const dbPath = SqliteJournal.dbPathFor(fresh())
  yield* Effect.scoped(Layer.build(SqliteJournal.layer({ dbPath })))
  return dbPath
})

/** Two connections (as shipped): begin + complete on the better-sqlite3 hot path; µs per journaled call. */
const onHotPath = (n: number, from: number) =>
  Effect.scoped(
    Effect.gen(function* () {
      const hot = yield* hotPath(yield* migrated, 5000, false)
      const start = performance.now()
      for (let i = from; i < from + n; i++) {
        hot.begin(hotRow(i), [blob(i)], [snap(i)])
        hot.complete(`r${i}`, "committed", null, i, `u${i}`)
      }
      return ((performance.now() - start) * 1000) / n
    })
  )

/** One connection: the same statements through the Effect SqliteClient the adapter already holds; µs per call. */
const onEffectClient = (n: number, from: number) =>
  Effect.scoped(
    Effect.gen(function* () {
      const sql = Context.get(yield* Layer.build(SqliteClient.layer({ filename: yield* migrated })), SqliteClient.SqliteClient)
      yield* sql.unsafe("PRAGMA synchronous = NORMAL")
      yield* sql.unsafe(`PRAGMA cache_size = ${cachePages}`)
      const start = performance.now()
      for (let i = from; i < from + n; i++) {
        const r = hotRow(i)
        const [hash, bytes] = blob(i)
        const s = snap(i)
        yield* sql.withTransaction(
          Effect.gen(function* () {
            const rows = yield* sql.unsafe<{ readonly seq: number }>(
              `INSERT INTO records (id, session, turn, tool, capability, paths, args_hash, request_id, remote, state, note,
                created_at, updated_at, finalized, answered, restore_action, restore_session, restore_turn, sum, state_sum)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING seq`,
              [r.id, r.session, r.turn, r.tool, r.capability, r.paths, r.args_hash, r.request_id, r.remote, r.state, r.note,
                r.created_at, r.updated_at, r.finalized, r.answered, r.restore_action, r.restore_session, r.restore_turn, r.sum, r.state_sum]
            )
            yield* sql.unsafe("INSERT OR IGNORE INTO blobs (hash, size, content) VALUES (?, ?, ?)", [hash, bytes.byteLength, bytes])
            yield* sql.unsafe(
              `INSERT OR REPLACE INTO snapshots (record_seq, path, before_hash, before_mode, after_known, after_hash, after_mode)
                VALUES (?, ?, ?, ?, ?, ?, ?)`,
              [rows[0]?.seq ?? 0, s.path, s.before_hash, s.before_mode, s.after_known, s.after_hash, s.after_mode]
            )
          })
        )
        yield* sql.unsafe("UPDATE records SET state = ?, note = ?, updated_at = ?, state_sum = ? WHERE id = ? AND state = 'pending'", [
          "committed", null, i, `u${i}`, r.id
        ])
      }
      return ((performance.now() - start) * 1000) / n
    })
  )

/** Paired rounds, alternating which goes first; the median of the per-round ratios. */
const connections = Effect.gen(function* () {
  const n = calls * 2
  yield* onHotPath(n, 0) // warm-up
  yield* onEffectClient(n, 0)
  const ratios: Array<number> = []
  const times = { one: [] as Array<number>, two: [] as Array<number> }
  for (let round = 0; round < 5; round++) {
    const first = round % 2 === 0
    const two = first ? yield* onHotPath(n, 0) : 0
    const one = yield* onEffectClient(n, 0)
    const twoAfter = first ? two : yield* onHotPath(n, 0)
    times.one.push(one)
    times.two.push(twoAfter)
    ratios.push(one / twoAfter)
  }
  const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN
  console.log(
    `journal statements per call: one connection (Effect SqliteClient) ${median(times.one).toFixed(0)} µs, two (better-sqlite3 hot path) ` +
      `${median(times.two).toFixed(0)} µs: one connection is ${median(ratios).toFixed(2)}× the cost (median of 5 paired rounds, ${n} calls each)`
  )
})

const onlyConnections = process.argv[3] === "connections"
const program = onlyConnections ? connections : Effect.gen(function* () {
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
  yield* connections
})

Effect.runPromise(program)
