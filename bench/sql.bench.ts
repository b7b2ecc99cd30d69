/**
 * sql_query's costs: the static guards' throughput (statements/s: the lexer guard per dialect, PostgreSQL's parser
 * plus the tree walk) and the overhead of guard + engine enforcement on a point SELECT against the bare driver
 * (better-sqlite3; pg too when PostgreSQL binaries are installed: a throwaway cluster is started).
 *
 *   npx tsx bench/sql.bench.ts [iterations=5000]
 */
import { createRequire } from "node:module"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect } from "effect"
import { loadModule, parseSync } from "libpg-query"
import pg from "pg"
import * as PostgresEngine from "../src/adapters/sql/PostgresEngine.js"
import * as SqliteEngine from "../src/adapters/sql/SqliteEngine.js"
import * as PgTreePolicy from "../src/domain/sql/PgTreePolicy.js"
import { judge } from "../src/domain/sql/SqlGuard.js"
import * as SqlPolicy from "../src/domain/sql/SqlPolicy.js"
import type { SqlTarget } from "../src/ports/SqlEngine.js"
import * as Postgres from "../test/support/Postgres.js"

const n = Number(process.argv[2] ?? 5000)

const corpus = (dialect: string): ReadonlyArray<string> =>
  fs.readFileSync("test/corpus/sql-honest.jsonl", "utf8").split("\n").filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as { dialect: string; sql: string }).filter((c) => c.dialect === dialect).map((c) => c.sql)

const rate = (label: string, items: ReadonlyArray<string>, f: (sql: string) => unknown) => {
  const rounds = Math.max(1, Math.ceil(n / items.length))
  for (const s of items) f(s) // warm up
  const start = performance.now()
  for (let r = 0; r < rounds; r++) for (const s of items) f(s)
  const seconds = (performance.now() - start) / 1000
  console.log(`${label.padEnd(44)} ${Math.round((rounds * items.length) / seconds).toLocaleString("en")} statements/s`)
}

const perCall = async (label: string, f: () => Promise<unknown> | unknown): Promise<number> => {
  for (let i = 0; i < 200; i++) await f()
  const start = performance.now()
  for (let i = 0; i < n; i++) await f()
  const us = ((performance.now() - start) * 1000) / n
  console.log(`${label.padEnd(44)} ${us.toFixed(1)} µs/call`)
  return us
}

await loadModule()
console.log(`sql_query bench, ${n} iterations, node ${process.version}\n`)
rate("lexer guard, SQLite honest corpus", corpus("sqlite"), (s) => judge(s, { dialect: "sqlite" }))
rate("lexer guard, PostgreSQL honest corpus", corpus("postgres"), (s) => judge(s, { dialect: "postgres" }))
rate("libpg-query parse + tree walk", corpus("postgres"), (s) => PgTreePolicy.judge(parseSync(s), {}))
rate("both PostgreSQL guards", corpus("postgres"), (s) => {
  judge(s, { dialect: "postgres" })
  PgTreePolicy.judge(parseSync(s), {})
})

// SQLite: bare driver (one open handle) vs the guard + the engine (fresh read-only handle per call, as sql_query runs).
const Database = createRequire(import.meta.url)("better-sqlite3") as new (file: string, o?: object) => {
  exec(s: string): void
  prepare(s: string): { all(...p: Array<unknown>): unknown }
  close(): void
}
const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "minicode-sqlbench-")), "bench.db")
const setup = new Database(file)
setup.exec("CREATE TABLE users(id INTEGER PRIMARY KEY, name TEXT); WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c LIMIT 10000) INSERT INTO users SELECT i, 'user ' || i FROM c")
setup.close()
const select = "SELECT id, name FROM users WHERE id = ?"
console.log("")
const bare = new Database(file, { readonly: true })
const bareStmt = bare.prepare(select)
const b1 = await perCall("SQLite bare driver (prepared once)", () => bareStmt.all(42))
const b2 = await perCall("SQLite bare driver (open + prepare per call)", () => {
  const db = new Database(file, { readonly: true })
  db.prepare(select).all(42)
  db.close()
})
bare.close()
const engine = Effect.runSync(Effect.scoped(SqliteEngine.make).pipe(Effect.orDie))
const target: SqlTarget = { dialect: "sqlite", file }
const guarded = (t: SqlTarget, connection: string | undefined) => {
  const admitted = SqlPolicy.judgeCall({ sql: select, connection }, connection === undefined ? {} : { bench: t.dialect === "sqlite" ? { sqlite: file } : { url: "postgres://x" } }, t.dialect)
  if (admitted._tag === "Left") throw new Error(admitted.left.reason)
  return admitted.right.statements
}
const g = await perCall("SQLite guard + engine (sql_query path)", () =>
  Effect.runPromise(engine.run(target, { statements: guarded(target, "bench"), params: [42], maxRows: 200, write: false, timeoutMs: 30_000 })))
console.log(`  overhead vs bare prepared: ${(g - b1).toFixed(1)} µs; vs bare open-per-call: ${(g - b2).toFixed(1)} µs`)

if (Postgres.hasPostgres) {
  const cluster = Postgres.start()
  try {
    const client = new pg.Client({ connectionString: cluster.url })
    await client.connect()
    await client.query("CREATE TABLE users(id int PRIMARY KEY, name text); INSERT INTO users SELECT i, 'user ' || i FROM generate_series(1, 10000) i")
    const pgSelect = "SELECT id, name FROM users WHERE id = $1"
    console.log("")
    const p1 = await perCall("PostgreSQL bare pg query (one client)", () => client.query({ text: pgSelect, values: [42], rowMode: "array" }))
    await client.end()
    const pgTarget: SqlTarget = { dialect: "postgres", url: cluster.url }
    await Effect.runPromise(Effect.scoped(Effect.gen(function* () {
      const pgEngine = yield* PostgresEngine.make
      const p2 = yield* Effect.promise(() => perCall("PostgreSQL both guards + engine (BEGIN READ ONLY…ROLLBACK)", () =>
        Effect.runPromise(Effect.gen(function* () {
          const statements = SqlPolicy.judgeCall({ sql: pgSelect }, {}, "postgres")
          if (statements._tag === "Left") throw new Error(statements.left.reason)
          PgTreePolicy.judge(parseSync(pgSelect), {})
          return yield* pgEngine.run(pgTarget, { statements: statements.right.statements, params: [42], maxRows: 200, write: false, timeoutMs: 30_000 })
        }))))
      console.log(`  overhead vs bare: ${(p2 - p1).toFixed(1)} µs (3 extra round trips: BEGIN, set_config, ROLLBACK)`)
    })))
  } finally {
    cluster.stop()
  }
} else {
  console.log("\nPostgreSQL binaries not found: PostgreSQL figures skipped")
}
