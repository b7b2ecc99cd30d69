/**
 * The journal's cost: a journaled write_file (before-image, intent, atomic write, terminal record; a turn
 * finalised every 10 calls) against the same atomic write alone, and journal records per second.
 *
 *   npx tsx bench/journal.bench.ts [calls=1000]
 */
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { Effect } from "effect"
import * as SqliteJournal from "../src/adapters/journal/SqliteJournal.js"
import { Journal } from "../src/ports/Journal.js"
import { journaledWrite, writeAtomic } from "../test/support/JournaledWrite.js"

const calls = Number(process.argv[2] ?? 1000)
const files = 20

const fresh = (): string => NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "minicode-bench-"))
const content = (size: number, i: number) => new TextEncoder().encode(`${i} `.padEnd(size, "x"))

const unjournaled = (size: number) => {
  const root = fresh()
  const start = performance.now()
  for (let i = 0; i < calls; i++) writeAtomic(NodePath.join(root, `f${i % files}.txt`), content(size, i), 0o644)
  return (performance.now() - start) / calls
}

const journaled = (size: number, synchronous: "normal" | "full") =>
  Effect.gen(function* () {
    const root = fresh()
    const journal = yield* Journal
    const start = performance.now()
    for (let i = 0; i < calls; i++) {
      const turn = Math.floor(i / 10)
      yield* journaledWrite({ root, session: "bench", turn, path: `f${i % files}.txt`, content: content(size, i) })
      if (i % 10 === 9) yield* journal.finalizeTurn("bench", turn)
    }
    return (performance.now() - start) / calls
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
    unjournaled(size) // warm-up
    const plain = unjournaled(size)
    yield* journaled(size, "normal") // warm-up
    const normal = yield* journaled(size, "normal")
    const full = yield* journaled(size, "full")
    console.log(
      `write_file ${size / 1024} KiB: unjournaled ${(plain * 1000).toFixed(0)} µs, journaled ${(normal * 1000).toFixed(0)} µs ` +
        `(ratio ${(normal / plain).toFixed(2)}×), synchronous=full ${(full * 1000).toFixed(0)} µs (ratio ${(full / plain).toFixed(2)}×)`
    )
  }
  const perSecond = yield* records
  console.log(`journal records: ${perSecond.toFixed(0)} begin+complete pairs/s (no snapshots)`)
})

Effect.runPromise(program)
