/** The SQLite engine on real database files: honest reads, bound parameters, caps, and layer 2 on its own. */
import { assert, describe, it } from "@effect/vitest"
import { createRequire } from "node:module"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect, Either, Fiber, Option } from "effect"
import * as SqliteEngine from "../../../src/adapters/sql/SqliteEngine.js"
import { SqlEngine, type SqlRequest } from "../../../src/ports/SqlEngine.js"
import * as QueryProcesses from "../../support/QueryProcesses.js"
import { tempDir } from "../../support/Workspace.js"
import { request } from "../../contracts/SqlEngine.contract.js"

interface Db {
  exec(sql: string): unknown
  prepare(sql: string): { all(): Array<Record<string, unknown>> }
  close(): void
}
const Database = createRequire(import.meta.url)("better-sqlite3") as new (file: string) => Db

const fixture = (): string => {
  const file = path.join(tempDir("minicode-sqlite-"), "app.db")
  const db = new Database(file)
  db.exec(`CREATE TABLE users(id INTEGER PRIMARY KEY, name TEXT, email TEXT, big INTEGER, photo BLOB);
    INSERT INTO users(name, email, big, photo) VALUES ('ann', 'a@x', 9007199254740993, x'00ff'), ('bob', 'b@x', 1, NULL), ('cy', NULL, 2, NULL);`)
  db.close()
  return file
}

const count = (file: string): number => {
  const db = new Database(file)
  const n = Number(db.prepare("SELECT count(*) AS n FROM users").all()[0]?.["n"])
  db.close()
  return n
}

const run = (file: string, req: SqlRequest) =>
  Effect.flatMap(SqlEngine, (engine) => engine.run({ dialect: "sqlite", file }, req)).pipe(Effect.provide(SqliteEngine.layer))

describe("SqliteEngine", () => {
  it.live("reads rows with exact integers, blobs and NULLs", () =>
    Effect.gen(function* () {
      const file = fixture()
      const out = yield* run(file, request(["SELECT id, name, email, big, photo FROM users ORDER BY id"]))
      const set = out.results[0]
      assert.deepStrictEqual(set?.columns, ["id", "name", "email", "big", "photo"])
      assert.strictEqual(set?.rows.length, 3)
      assert.strictEqual(set?.rows[0]?.[3], 9007199254740993n)
      assert.strictEqual(set?.rows[2]?.[2], null)
      assert.isFalse(set?.truncated)
    }))

  it.live("binds parameters as data, never as SQL", () =>
    Effect.gen(function* () {
      const file = fixture()
      const out = yield* run(file, request(["SELECT name FROM users WHERE name = ?"], { params: ["x' OR '1'='1"] }))
      assert.strictEqual(out.results[0]?.rows.length, 0)
      const ok = yield* run(file, request(["SELECT name FROM users WHERE id = ? AND ?"], { params: [2, true] }))
      assert.deepStrictEqual(ok.results[0]?.rows, [["bob"]])
    }))

  it.live("caps rows and marks the truncation", () =>
    Effect.gen(function* () {
      const out = yield* run(fixture(), request(["WITH RECURSIVE c(v) AS (SELECT 1 UNION ALL SELECT v + 1 FROM c LIMIT 1000) SELECT v FROM c"], { maxRows: 10 }))
      assert.strictEqual(out.results[0]?.rows.length, 10)
      assert.isTrue(out.results[0]?.truncated)
    }))

  // Layer 2 alone: these go straight to the engine, as if the static guard had been told to miss them.
  for (const sql of [
    "DELETE FROM users",
    "INSERT INTO users(name) VALUES ('mallory')",
    "UPDATE users SET name = 'x'",
    "DROP TABLE users",
    "CREATE TABLE t(a)",
    "CREATE TEMP TABLE t(a)",
    "CREATE TEMP VIEW v AS SELECT 1",
    "VACUUM INTO '/tmp/minicode-vacuum-into.db'",
    "PRAGMA user_version = 7",
    "PRAGMA query_only = OFF",
    "ATTACH DATABASE ':memory:' AS other",
    "BEGIN",
    "COMMIT",
    "SAVEPOINT s"
  ]) {
    it.live(`layer 2 alone refuses: ${sql}`, () =>
      Effect.gen(function* () {
        const file = fixture()
        fs.rmSync("/tmp/minicode-vacuum-into.db", { force: true })
        const out = yield* Effect.either(run(file, request([sql])))
        assert.isTrue(Either.isLeft(out))
        if (Either.isLeft(out)) assert.strictEqual(out.left.kind, "refused", out.left.reason)
        assert.strictEqual(count(file), 3)
        assert.isFalse(fs.existsSync("/tmp/minicode-vacuum-into.db"))
      }))
  }

  it.live("a refused statement stops the ones after it; the connection does not outlive the call", () =>
    Effect.gen(function* () {
      const file = fixture()
      const out = yield* Effect.either(run(file, request(["SELECT 1", "PRAGMA query_only = OFF", "DELETE FROM users"])))
      assert.isTrue(Either.isLeft(out))
      assert.strictEqual(count(file), 3)
    }))

  it.live("load_extension() is not authorised on the engine's connections", () =>
    Effect.gen(function* () {
      const out = yield* Effect.either(run(fixture(), request(["SELECT load_extension('/tmp/evil.so')"])))
      assert.isTrue(Either.isLeft(out))
    }))

  it.live("writes run only when asked, all statements or none", () =>
    Effect.gen(function* () {
      const file = fixture()
      const out = yield* run(file, request(["INSERT INTO users(name) VALUES (?)"], { write: true, params: ["dee"] }))
      assert.strictEqual(out.results[0]?.changes, 1)
      assert.strictEqual(count(file), 4)
      const failed = yield* Effect.either(run(file, request(["DELETE FROM users", "INSERT INTO nope VALUES (1)"], { write: true })))
      assert.isTrue(Either.isLeft(failed))
      assert.strictEqual(count(file), 4)
    }))

  it.live("a missing file is an error, not a new database", () =>
    Effect.gen(function* () {
      const file = path.join(tempDir("minicode-sqlite-"), "missing.db")
      const out = yield* Effect.either(run(file, request(["SELECT 1"])))
      assert.isTrue(Either.isLeft(out))
      assert.isFalse(fs.existsSync(file))
    }))

  it.live("engineRule names what sqlite3_stmt_readonly lets through", () =>
    Effect.sync(() => {
      assert.isDefined(SqliteEngine.engineRule("/* x */ attach 'a' as b"))
      assert.isDefined(SqliteEngine.engineRule("PRAGMA main.query_only = 0"))
      assert.isUndefined(SqliteEngine.engineRule("PRAGMA table_info(users)"))
      assert.isUndefined(SqliteEngine.engineRule("SELECT 'ATTACH'"))
    }))

  const runaway = "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r"
  /** Polls `check` every 50 ms until it holds or `millis` pass; says whether it held. */
  const eventually = (check: () => boolean, millis: number) =>
    Effect.gen(function* () {
      const until = Date.now() + millis
      while (!check()) {
        if (Date.now() > until) return false
        yield* Effect.sleep("50 millis")
      }
      return true
    })

  it.live("a runaway recursive CTE is stopped at its time limit, with an error that says so; no process is left", () =>
    Effect.gen(function* () {
      const started = Date.now()
      const out = yield* Effect.either(run(fixture(), request([runaway], { timeoutMs: 500 })))
      const elapsed = Date.now() - started
      assert.isTrue(Either.isLeft(out))
      if (Either.isLeft(out)) {
        assert.strictEqual(out.left.kind, "timeout")
        assert.strictEqual(out.left.reason, "the query ran past its time limit of 500 ms")
      }
      assert.isBelow(elapsed, 500 + 5_000, "the runaway query was not stopped near its limit")
      assert.deepStrictEqual(QueryProcesses.children(), [])
    }), 20_000)

  it.live("a write killed at its time limit leaves nothing behind: no rows, no lock, the next write works", () =>
    Effect.gen(function* () {
      const file = fixture()
      const endless = "INSERT INTO users(name) SELECT 'x' || n FROM (WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT n FROM r)"
      const out = yield* Effect.either(run(file, request([endless], { write: true, timeoutMs: 500 })))
      assert.isTrue(Either.isLeft(out) && out.left.kind === "timeout", JSON.stringify(out))
      assert.strictEqual(count(file), 3)
      const next = yield* run(file, request(["INSERT INTO users(name) VALUES ('dee')"], { write: true }))
      assert.strictEqual(next.results[0]?.changes, 1)
      assert.strictEqual(count(file), 4)
    }), 20_000)

  it.live("interrupting a running query kills its process; meanwhile the same engine answers other calls", () =>
    Effect.gen(function* () {
      const file = fixture()
      const engine = yield* SqlEngine
      const fiber = yield* Effect.fork(engine.run({ dialect: "sqlite", file }, request([runaway], { timeoutMs: 600_000 })))
      assert.isTrue(yield* eventually(() => QueryProcesses.children().length === 1, 15_000), "the query process did not start")
      const busy = QueryProcesses.children().map((p) => p.pid)
      yield* Effect.sleep("300 millis") // deep inside SQLite's loop by now
      // The main thread is free: another call on the same engine and file answers while the runaway runs.
      const other = yield* engine.run({ dialect: "sqlite", file }, request(["SELECT count(*) FROM users"]))
      assert.strictEqual(other.results[0]?.rows[0]?.[0], 3n)
      assert.isTrue(Option.isNone(yield* Fiber.poll(fiber)), "the runaway query ended by itself")
      const interrupted = yield* Fiber.interrupt(fiber).pipe(Effect.timeout("10 seconds"), Effect.option)
      assert.isTrue(Option.isSome(interrupted), "interruption did not return")
      // The runaway's process is gone by the time interruption returns; the idle one that answered is kept.
      for (const pid of busy) assert.isFalse(QueryProcesses.alive(pid), `query process ${pid} still runs`)
      assert.strictEqual(QueryProcesses.children().length, 1)
    }).pipe(Effect.provide(SqliteEngine.layer)), 40_000)

  it.live("a healthy query process serves the next call; the processes end with the layer", () =>
    Effect.gen(function* () {
      const file = fixture()
      yield* Effect.gen(function* () {
        const engine = yield* SqlEngine
        yield* engine.run({ dialect: "sqlite", file }, request(["SELECT 1"]))
        const first = QueryProcesses.children().map((p) => p.pid)
        assert.strictEqual(first.length, 1)
        yield* Effect.either(engine.run({ dialect: "sqlite", file }, request(["DELETE FROM users"]))) // refused, process healthy
        yield* engine.run({ dialect: "sqlite", file }, request(["SELECT 2"]))
        assert.deepStrictEqual(QueryProcesses.children().map((p) => p.pid), first)
      }).pipe(Effect.provide(SqliteEngine.layer))
      assert.deepStrictEqual(QueryProcesses.children(), [])
    }), 20_000)

  it.live("a query process ends by itself when minicode is killed (SIGKILL) mid-query", () =>
    Effect.gen(function* () {
      const file = fixture()
      const parent = spawn(process.execPath, ["--import", "tsx", "test/support/sqlite-runaway.ts", file], { stdio: ["ignore", "pipe", "inherit"] })
      const line = yield* Effect.async<string>((resume) => {
        let text = ""
        parent.stdout.on("data", (chunk: Buffer) => {
          text += chunk.toString("utf8")
          if (text.includes("\n")) resume(Effect.succeed(text.trim()))
        })
      }).pipe(Effect.timeout("30 seconds"))
      const pid = Number(line)
      assert.isTrue(pid > 0 && QueryProcesses.alive(pid), `no query process: ${line}`)
      parent.kill("SIGKILL")
      assert.isTrue(yield* eventually(() => !QueryProcesses.alive(pid), 10_000), `query process ${pid} outlived its parent`)
    }), 60_000)
})
