/**
 * The PostgreSQL engine against a real throwaway server: honest reads, bound parameters, the statement timeout,
 * the always-rolled-back READ ONLY transaction, the extended protocol's one statement, and layer 2 on its own.
 * Without PostgreSQL binaries these tests are skipped locally and the CI check below fails loudly.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Effect, Either, Fiber, Option } from "effect"
import * as PostgresEngine from "../../../src/adapters/sql/PostgresEngine.js"
import { SqlEngine, type SqlRequest } from "../../../src/ports/SqlEngine.js"
import * as Postgres from "../../support/Postgres.js"
import { request } from "../../contracts/SqlEngine.contract.js"

describe("PostgreSQL availability", () => {
  it("CI has PostgreSQL binaries (apt-get install -y postgresql)", () => {
    if (process.env["CI"] === "true") assert.isTrue(Postgres.hasPostgres, "PostgreSQL binaries missing under /usr/lib/postgresql/*/bin: the PostgreSQL tests cannot run")
  })
})

describe.runIf(Postgres.hasPostgres)("PostgresEngine", () => {
  let cluster: Postgres.Cluster | undefined
  beforeAll(() => {
    cluster = Postgres.start()
  }, 120_000)
  afterAll(() => cluster?.stop())

  const url = () => cluster?.url ?? ""
  const run = (req: SqlRequest) =>
    Effect.flatMap(SqlEngine, (engine) => engine.run({ dialect: "postgres", url: url() }, req)).pipe(Effect.provide(PostgresEngine.layer), Effect.scoped)
  const count = run(request(["SELECT count(*)::int FROM users"])).pipe(Effect.map((r) => r.results[0]?.rows[0]?.[0]))

  it.live("sets up a table with a permitted write, committed", () =>
    Effect.gen(function* () {
      yield* run(request([
        "CREATE TABLE users(id serial PRIMARY KEY, name text, email text, data jsonb)",
        "INSERT INTO users(name, email, data) VALUES ('ann', 'a@x', '{\"k\": 1}'), ('bob', 'b@x', NULL), ('cy', NULL, '[]')"
      ], { write: true }))
      assert.strictEqual(yield* count, 3)
    }))

  it.live("reads rows as arrays with their column names", () =>
    Effect.gen(function* () {
      const out = yield* run(request(["SELECT id, name, data->>'k' AS k FROM users ORDER BY id"]))
      assert.deepStrictEqual(out.results[0]?.columns, ["id", "name", "k"])
      assert.deepStrictEqual(out.results[0]?.rows[0], [1, "ann", "1"])
    }))

  it.live("binds parameters through the extended protocol", () =>
    Effect.gen(function* () {
      const none = yield* run(request(["SELECT name FROM users WHERE name = $1"], { params: ["x' OR '1'='1"] }))
      assert.strictEqual(none.results[0]?.rows.length, 0)
      const one = yield* run(request(["SELECT name FROM users WHERE id = $1::int AND $2::bool"], { params: [2, true] }))
      assert.deepStrictEqual(one.results[0]?.rows, [["bob"]])
    }))

  it.live("caps rows with a truncation flag", () =>
    Effect.gen(function* () {
      const out = yield* run(request(["SELECT g FROM generate_series(1, 500) g"], { maxRows: 7 }))
      assert.strictEqual(out.results[0]?.rows.length, 7)
      assert.isTrue(out.results[0]?.truncated)
    }))

  it.live("the statement timeout fires", () =>
    Effect.gen(function* () {
      const out = yield* Effect.either(run(request(["SELECT pg_sleep(5)"], { timeoutMs: 200 })))
      assert.isTrue(Either.isLeft(out))
      if (Either.isLeft(out)) assert.strictEqual(out.left.kind, "timeout")
    }))

  it.live("a query past timeout_ms ends with the same words as on SQLite, well before it would have", () =>
    Effect.gen(function* () {
      const started = Date.now()
      const out = yield* Effect.either(run(request(["SELECT pg_sleep(5)"], { timeoutMs: 300 })))
      assert.isTrue(Either.isLeft(out))
      if (Either.isLeft(out)) {
        assert.strictEqual(out.left.kind, "timeout")
        assert.strictEqual(out.left.reason, "the query ran past its time limit of 300 ms")
      }
      assert.isBelow(Date.now() - started, 4_000, "pg_sleep(5) ran to its end")
    }))

  // A read runs as a cursor: its statement is active on the server as the FETCH from that cursor.
  // As the superuser itself (a write call): a superuser's reads run as pg_read_all_data, which sees no other session's query.
  const sleeping = run(request(["SELECT count(*)::int FROM pg_stat_activity WHERE (query LIKE 'SELECT pg_sleep(30)%' OR query LIKE 'FETCH FORWARD % FROM minicode_rows') AND pid <> pg_backend_pid() AND state = 'active'"], { write: true })).pipe(
    Effect.map((r) => r.results[0]?.rows[0]?.[0])
  )

  it.live("interrupting a call cancels its statement on the server", () =>
    Effect.gen(function* () {
      const fiber = yield* Effect.fork(run(request(["SELECT pg_sleep(30)"], { timeoutMs: 60_000 })))
      let seen = 0
      for (let i = 0; i < 100 && seen === 0; i++) {
        yield* Effect.sleep("100 millis")
        seen = Number(yield* sleeping)
      }
      assert.strictEqual(seen, 1, "the statement never ran")
      const interrupted = yield* Fiber.interrupt(fiber).pipe(Effect.timeout("10 seconds"), Effect.option)
      assert.isTrue(Option.isSome(interrupted), "interruption did not return")
      let left = 1
      for (let i = 0; i < 30 && left !== 0; i++) {
        left = Number(yield* sleeping)
        if (left !== 0) yield* Effect.sleep("100 millis")
      }
      assert.strictEqual(left, 0, "pg_sleep(30) still runs on the server after the call was interrupted")
    }), 30_000)

  // Layer 2 alone: straight to the engine, as if the static guards had been told to miss them.
  for (const sql of [
    "DELETE FROM users",
    "UPDATE users SET name = 'x'",
    "INSERT INTO users(name) VALUES ('mallory')",
    "WITH gone AS (DELETE FROM users RETURNING *) SELECT * FROM gone",
    "DROP TABLE users",
    "CREATE TABLE evil(a int)",
    "SELECT nextval('users_id_seq')",
    "SET TRANSACTION READ WRITE"
  ]) {
    it.live(`layer 2 alone refuses: ${sql}`, () =>
      Effect.gen(function* () {
        const out = yield* Effect.either(run(request([sql])))
        assert.isTrue(Either.isLeft(out))
        assert.strictEqual(yield* count, 3)
      }))
  }

  it.live("COMMIT cannot end the read-only transaction and let a write ride along", () =>
    Effect.gen(function* () {
      const out = yield* Effect.either(run(request(["COMMIT", "DELETE FROM users"])))
      assert.isTrue(Either.isLeft(out))
      // Refused by its shape before it runs (a read's statement must read); the check after each statement stays behind.
      if (Either.isLeft(out)) assert.oneOf(out.left.rule, ["sql.engine.not-a-read", "sql.engine.transaction-ended"])
      assert.strictEqual(yield* count, 3)
    }))

  it.live("one statement per call: a stacked text is a syntax error under the extended protocol", () =>
    Effect.gen(function* () {
      const out = yield* Effect.either(run(request(["SELECT 1; COMMIT; DELETE FROM users"])))
      assert.isTrue(Either.isLeft(out))
      assert.strictEqual(yield* count, 3)
    }))

  it.live("what a read-only transaction does not stop, a superuser's read does not do either: pg_read_file (runs as pg_read_all_data)", () =>
    Effect.gen(function* () {
      // The test cluster's user is a superuser: inside BEGIN READ ONLY alone the server read its own files.
      const out = yield* Effect.either(run(request(["SELECT length(pg_read_file('PG_VERSION')) > 0"])))
      assert.isTrue(Either.isLeft(out))
      // The engine's own function check refuses it by name first; the role would refuse it after (permission denied).
      if (Either.isLeft(out)) assert.match(out.left.reason, /permission denied|reads or writes files on the database server/)
    }))

  it.live("errors never carry the connection's password", () =>
    Effect.gen(function* () {
      const out = yield* Effect.either(run(request(["SELECT * FROM no_such_table"])))
      assert.isTrue(Either.isLeft(out))
      if (Either.isLeft(out)) assert.notInclude(out.left.reason, cluster?.password ?? "never")
      const bad = url().replace(cluster?.password ?? "", "wrong-password")
      const denied = yield* Effect.either(
        Effect.flatMap(SqlEngine, (engine) => engine.run({ dialect: "postgres", url: bad }, request(["SELECT 1"]))).pipe(Effect.provide(PostgresEngine.layer), Effect.scoped)
      )
      assert.isTrue(Either.isLeft(denied))
      if (Either.isLeft(denied)) assert.notInclude(denied.left.reason, "wrong-password")
    }))

  it.live("a failed write rolls back every statement", () =>
    Effect.gen(function* () {
      const out = yield* Effect.either(run(request(["DELETE FROM users", "INSERT INTO nope VALUES (1)"], { write: true })))
      assert.isTrue(Either.isLeft(out))
      assert.strictEqual(yield* count, 3)
    }))
})
