/**
 * Layer 2 alone on PostgreSQL: write and escape attempts sent straight to the engine as a superuser, no guard before
 * it (the lexer guard and the parse-tree walk are not in this path). Every one is refused by the engine, and the
 * database is unchanged afterwards: no row, large object, replication slot or server file.
 *
 * One statement that both switches the role back (`set_config('role', …)`, however the name is spelled, or through a
 * STABLE PL/pgSQL function that wraps it) and acts as the superuser in the same statement (`dblink_exec` committed a
 * row before the check after the statement could see it): refused before it runs, by the engine's own reading of the
 * functions a read calls (PgReadRule + pg_proc). A read that switches the statement time limit off is refused too
 * (issue 43).
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as PostgresEngine from "../../../src/adapters/sql/PostgresEngine.js"
import { SqlEngine, type SqlRequest } from "../../../src/ports/SqlEngine.js"
import * as Postgres from "../../support/Postgres.js"
import { request } from "../../contracts/SqlEngine.contract.js"

describe.runIf(Postgres.hasPostgres)("PostgresEngine alone (no guard), as a superuser", () => {
  let cluster: Postgres.Cluster | undefined
  const out = fs.mkdtempSync(path.join(os.tmpdir(), "minicode-pg-out-"))
  beforeAll(() => {
    cluster = Postgres.start()
    fs.chmodSync(out, 0o777) // the server (another user) could write here if the engine let it
  }, 120_000)
  afterAll(() => {
    cluster?.stop()
    fs.rmSync(out, { recursive: true, force: true })
  })
  const run = (req: SqlRequest) =>
    Effect.flatMap(SqlEngine, (engine) => engine.run({ dialect: "postgres", url: cluster?.url ?? "" }, req)).pipe(Effect.provide(PostgresEngine.layer), Effect.scoped)
  const state = () =>
    run(request([
      "SELECT coalesce(array_agg(x ORDER BY x), '{}')::text FROM t",
      "SELECT count(*)::int FROM pg_catalog.pg_largeobject_metadata",
      "SELECT count(*)::int FROM pg_catalog.pg_replication_slots"
    ])).pipe(Effect.map((r) => r.results.map((s) => s.rows[0]?.[0])))

  // The socket folder with trust authentication: dblink from the server to itself needs no password there.
  const local = "host=' || current_setting('unix_socket_directories') || ' port=' || current_setting('port') || ' dbname=postgres user=minicode"
  const attacks: ReadonlyArray<ReadonlyArray<string>> = [
    [`SELECT dblink_exec('${local}', 'INSERT INTO t VALUES (1)')`],
    [`SELECT * FROM dblink('${local}', 'INSERT INTO t VALUES (2) RETURNING x') AS r(x int)`],
    [`COPY (SELECT 'copied') TO '${out}/copy.txt'`],
    [`COPY t FROM '/etc/hostname'`],
    ["SELECT lo_import('/etc/hostname')"],
    ["SELECT pg_read_file('/etc/hostname')"],
    ["SELECT pg_create_physical_replication_slot('minicode_slot')"],
    ["SELECT pg_create_logical_replication_slot('minicode_slot2', 'test_decoding')"],
    ["RESET ROLE", "SELECT pg_create_physical_replication_slot('minicode_slot4')"],
    ["SET ROLE minicode", "INSERT INTO t VALUES (3)"],
    ["END", "INSERT INTO t VALUES (4)"],
    ["COMMIT", "INSERT INTO t VALUES (5)"],
    ["ROLLBACK", "INSERT INTO t VALUES (6)"],
    ["END; INSERT INTO t VALUES (7)"],
    ["START TRANSACTION READ WRITE", "INSERT INTO t VALUES (8)"],
    ["SET transaction_read_only = off", "INSERT INTO t VALUES (9)"],
    ["SELECT set_config('transaction_read_only', 'off', false)", "INSERT INTO t VALUES (10)"],
    ["SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE", "INSERT INTO t VALUES (11)"],
    ["INSERT INTO t VALUES (13)"],
    ["DO $$ BEGIN INSERT INTO t VALUES (14); END $$"],
    // issue 43: the role switched back and used within one statement; the time limit switched off
    [`SELECT set_config('role', 'minicode', true), dblink_exec('${local}', 'INSERT INTO t VALUES (21)')`],
    [`SELECT pg_catalog.set_config('session_authorization', 'minicode', true), dblink_exec('${local}', 'INSERT INTO t VALUES (22)')`],
    [`SELECT "set_config"('role', 'minicode', true), dblink_exec('${local}', 'INSERT INTO t VALUES (23)')`],
    [`SELECT U&"\\0073et_config"('role', 'minicode', true), dblink_exec('${local}', 'INSERT INTO t VALUES (24)')`],
    [`SELECT become(), dblink_exec('${local}', 'INSERT INTO t VALUES (25)')`],
    [`SELECT become_atomic(), dblink_exec('${local}', 'INSERT INTO t VALUES (29)')`],
    // attribute notation: (row).f calls f(row) with no parenthesis after its name
    [`SELECT (ROW(1)::t).become_row, dblink_exec('${local}', 'INSERT INTO t VALUES (33)')`],
    [`SELECT x.r, dblink_exec('${local}', 'INSERT INTO t VALUES (26)') FROM (SELECT set_config('role', 'minicode', true) AS r) x`],
    [`SELECT set_config('transaction_read_only', 'off', true), dblink_exec('${local}', 'INSERT INTO t VALUES (27)')`],
    ["UPDATE pg_settings SET setting = 'minicode' WHERE name = 'role'", `SELECT dblink_exec('${local}', 'INSERT INTO t VALUES (28)')`],
    ["SET statement_timeout = 0", "SELECT 1"],
    ["SELECT 1", "RESET ALL"]
  ]

  it.live("sets up a table and dblink with a permitted write", () =>
    Effect.gen(function* () {
      yield* run(request([
        "CREATE TABLE t(x int)", "CREATE EXTENSION dblink",
        "CREATE FUNCTION become() RETURNS text LANGUAGE plpgsql STABLE AS $$ BEGIN RETURN set_config('role', 'minicode', true); END $$",
        "CREATE FUNCTION twice_atomic(x int) RETURNS int LANGUAGE sql STABLE BEGIN ATOMIC SELECT x * 2; END",
        "COMMENT ON TABLE t IS 'kept'",
        "CREATE FUNCTION become_row(r t) RETURNS text LANGUAGE plpgsql VOLATILE AS $$ BEGIN RETURN set_config('role', 'minicode', true); END $$"
      ], { write: true }))
      // The engine refuses a write whose text calls set_config, so this one is made by psql, as the database's owner would.
      execFileSync(path.join(Postgres.findBin() ?? "", "psql"), [cluster?.url ?? "", "-v", "ON_ERROR_STOP=1", "-c",
        "CREATE FUNCTION become_atomic() RETURNS text LANGUAGE sql STABLE BEGIN ATOMIC SELECT set_config('role', 'minicode', true); END"])
      assert.deepStrictEqual(yield* state(), ["{}", 0, 0])
    }), 60_000)

  for (const attack of attacks) {
    it.live(`refuses ${JSON.stringify(attack).slice(0, 110)}`, () =>
      Effect.gen(function* () {
        const outcome = yield* Effect.either(run(request(attack)))
        assert.isTrue(Either.isLeft(outcome), `ran: ${JSON.stringify(attack)}`)
        assert.deepStrictEqual(yield* state(), ["{}", 0, 0], `left a trace: ${JSON.stringify(attack)}`)
        assert.deepStrictEqual(fs.readdirSync(out), [])
      }), 30_000)
  }

  for (const attack of [
    ["SELECT set_config('role', 'pg_read_all_data', true)", "INSERT INTO t VALUES (30)"],
    ["SELECT pg_catalog.set_config('session_authorization', 'pg_read_all_data', false)"],
    ["SET ROLE pg_read_all_data", "INSERT INTO t VALUES (31)"],
    ["INSERT INTO t VALUES (32)", "SET statement_timeout = 0"]
  ]) {
    it.live(`a write refuses ${JSON.stringify(attack)}, and commits nothing`, () =>
      Effect.gen(function* () {
        const outcome = yield* Effect.either(run(request(attack, { write: true })))
        assert.isTrue(Either.isLeft(outcome), `ran: ${JSON.stringify(attack)}`)
        assert.deepStrictEqual(yield* state(), ["{}", 0, 0])
      }), 30_000)
  }

  it.live("honest reads by the superuser still work: tables, catalogs, functions", () =>
    Effect.gen(function* () {
      const r = yield* run(request([
        "SELECT count(*)::int FROM t",
        "SELECT relname FROM pg_catalog.pg_class WHERE relname = 't'",
        "SELECT date(now()) = current_date, pg_relation_filepath('t') IS NOT NULL",
        "SELECT obj_description('t'::regclass, 'pg_class'), twice_atomic(21)"
      ]))
      assert.deepStrictEqual(r.results.map((s) => s.rows[0]), [[0], ["t"], [true, true], ["kept", 42]])
    }), 30_000)
})
