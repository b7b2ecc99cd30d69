// Runs a runaway query on the SQLite engine and prints its query process's pid, then waits (killed by the test).
import { Effect, Fiber } from "effect"
import * as SqliteEngine from "../../src/adapters/sql/SqliteEngine.js"
import { SqlEngine } from "../../src/ports/SqlEngine.js"
import * as QueryProcesses from "./QueryProcesses.js"

const file = process.argv[2] ?? ""
const runaway = "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r"
const program = Effect.gen(function* () {
  const engine = yield* SqlEngine
  const fiber = yield* Effect.fork(engine.run({ dialect: "sqlite", file }, { statements: [runaway], params: [], maxRows: 10, write: false, timeoutMs: 600_000 }))
  while (QueryProcesses.children().length === 0) yield* Effect.sleep("50 millis")
  yield* Effect.sleep("1500 millis") // started, sent the query, and deep inside SQLite's loop
  process.stdout.write(`${QueryProcesses.children().map((p) => p.pid).join(",")}\n`)
  yield* Fiber.join(fiber)
})
void Effect.runPromise(Effect.scoped(Effect.provide(program, SqliteEngine.layer)))
