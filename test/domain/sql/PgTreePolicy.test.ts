/** The parse-tree walk, on trees from PostgreSQL's real parser (libpg-query), rule by rule. */
import { assert, beforeAll, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import { loadModule, parseSync } from "libpg-query"
import * as PgTreePolicy from "../../../src/domain/sql/PgTreePolicy.js"

beforeAll(() => loadModule())

const judge = (sql: string, write = false) => PgTreePolicy.judge(parseSync(sql), { write })
const rule = (sql: string, write = false) => {
  const v = judge(sql, write)
  return v._tag === "Deny" ? v.rule : "allow"
}

describe("PgTreePolicy", () => {
  it("allows every honest PostgreSQL query of the corpus", () => {
    for (const line of fs.readFileSync("test/corpus/sql-honest.jsonl", "utf8").split("\n")) {
      if (line.trim() === "") continue
      const c = JSON.parse(line) as { dialect: string; sql: string }
      if (c.dialect === "postgres") assert.strictEqual(rule(c.sql), "allow", c.sql)
    }
  })

  it("denies statement kinds outside the read-only allowlist, CTE bodies included", () => {
    for (const sql of [
      "DELETE FROM users", "WITH g AS (DELETE FROM u RETURNING *) SELECT * FROM g", "COPY t TO STDOUT", "DO $$ BEGIN END $$",
      "CALL p()", "SET search_path TO evil", "BEGIN", "COMMIT", "PREPARE p AS SELECT 1", "LISTEN c", "LOCK TABLE t",
      "CREATE TABLE t(a int)", "GRANT ALL ON t TO public", "VACUUM", "DECLARE c CURSOR FOR SELECT 1", "LOAD 'x'"
    ]) {
      assert.strictEqual(rule(sql), "sql.pg.read-only", sql)
    }
  })

  it("denies SELECT INTO, locking clauses and EXPLAIN ANALYZE", () => {
    assert.strictEqual(rule("SELECT * INTO t2 FROM t"), "sql.pg.read-only")
    assert.strictEqual(rule("SELECT * FROM t FOR KEY SHARE"), "sql.pg.read-only")
    assert.strictEqual(rule("EXPLAIN (ANALYZE) SELECT 1"), "sql.pg.read-only")
    assert.strictEqual(rule("EXPLAIN (ANALYZE on) SELECT 1"), "sql.pg.read-only")
    assert.strictEqual(rule("EXPLAIN (ANALYZE off) SELECT 1"), "allow")
  })

  it("denies functions off the allowlist, however they are written", () => {
    for (const sql of [
      "SELECT pg_read_file('/etc/passwd')", "SELECT \"pg_read_file\"('x')", "SELECT pg_catalog.pg_ls_dir('.')",
      "SELECT * FROM dblink('h', 'q') AS t(a int)", "SELECT pg_terminate_backend(1)", "SELECT pg_sleep(1)",
      "SELECT set_config('a', 'b', false)", "SELECT nextval('s')", "SELECT lo_import('/etc/passwd')",
      "SELECT query_to_xml('DELETE FROM t', true, true, '')", "SELECT ts_stat('SELECT v FROM t')", "SELECT public.lower('x')",
      "SELECT my_function(1)", "SELECT 1 WHERE EXISTS (SELECT pg_advisory_lock(1))"
    ]) {
      assert.strictEqual(rule(sql), "sql.pg.function", sql)
    }
  })

  it("denies operators that are not built in", () => {
    assert.strictEqual(rule("SELECT 1 === 2"), "sql.pg.operator")
    assert.strictEqual(rule("SELECT 1 OPERATOR(myschema.+) 2"), "sql.pg.operator")
    assert.strictEqual(rule("SELECT 1 OPERATOR(pg_catalog.+) 2"), "allow")
    assert.strictEqual(rule("SELECT a BETWEEN 1 AND 2 FROM t"), "allow")
  })

  it("admits data and schema changes in write mode, and still denies what reaches outside", () => {
    assert.strictEqual(rule("INSERT INTO t VALUES (1) RETURNING *", true), "allow")
    assert.strictEqual(rule("CREATE TABLE t(a int); ALTER TABLE t ADD b text", true), "allow")
    assert.strictEqual(rule("DO $$ BEGIN END $$", true), "sql.pg.statement")
    assert.strictEqual(rule("COPY t FROM PROGRAM 'id'", true), "sql.pg.statement")
    assert.strictEqual(rule("CREATE FUNCTION f() RETURNS int LANGUAGE sql AS 'SELECT 1'", true), "sql.pg.statement")
    assert.strictEqual(rule("INSERT INTO t SELECT pg_read_file('x')", true), "sql.pg.function")
  })

  it("denies shapes it does not know", () => {
    assert.strictEqual(PgTreePolicy.judge({}, {})._tag, "Deny")
    assert.strictEqual(PgTreePolicy.judge({ stmts: [{ stmt: "x" }] }, {})._tag, "Deny")
    assert.strictEqual(PgTreePolicy.judge({ stmts: [] }, {})._tag, "Deny")
  })

  it("allows the everyday built-ins without a connection: type-named casts, enum, array, geometric, bit, txid, acl (issue 43)", () => {
    for (const sql of [
      "SELECT date(placed_at), text(id), int4(qty), int8(qty), float4(1.5), bool(1), name('a') FROM t",
      "SELECT enum_range(NULL::mood), enum_first(NULL::mood), enum_last(NULL::mood)",
      "SELECT area(box '((0,0),(1,1))'), center(box '((0,0),(1,1))'), diameter(circle '((0,0),2)'), npoints(path '((0,0),(1,1))')",
      "SELECT trim_array(ARRAY[1,2,3], 1), array_length(ARRAY[1], 1), cardinality(ARRAY[1])",
      "SELECT bit_count(B'1011'), get_bit(B'1011', 1), length(B'1011')",
      "SELECT txid_current_snapshot(), txid_snapshot_xmin(txid_current_snapshot()), txid_visible_in_snapshot(1, txid_current_snapshot())",
      "SELECT * FROM aclexplode(acldefault('r', 10))", "SELECT makeaclitem(10, 10, 'SELECT', false)", "SELECT pg_relation_filepath('t')",
      "SELECT random(), clock_timestamp(), gen_random_uuid(), timeofday()"
    ]) {
      assert.strictEqual(rule(sql), "allow", sql)
    }
  })

  it("never widens into what changes state or reaches outside (issue 43)", () => {
    for (const sql of [
      "SELECT txid_current()", "SELECT pg_current_xact_id()", "SELECT set_config('role', 'postgres', true)", "SELECT lo_get(1)",
      "SELECT pg_advisory_xact_lock(1)", "SELECT table_to_xml('t', true, true, '')", "SELECT pg_notify('c', 'x')", "SELECT setval('s', 1)"
    ]) {
      assert.strictEqual(rule(sql), "sql.pg.function", sql)
    }
  })

  it("EXPLAIN without ANALYZE plans a data change in a read; with ANALYZE, or nested in a CTE, it is refused (issue 43)", () => {
    assert.strictEqual(rule("EXPLAIN UPDATE t SET a = 1 WHERE id = 2"), "allow")
    assert.strictEqual(rule("EXPLAIN (COSTS off, FORMAT JSON) DELETE FROM t WHERE id = 2"), "allow")
    assert.strictEqual(rule("EXPLAIN INSERT INTO t SELECT * FROM u"), "allow")
    assert.strictEqual(rule("EXPLAIN (ANALYZE) DELETE FROM t"), "sql.pg.read-only")
    assert.strictEqual(rule("EXPLAIN (ANALYZE on) UPDATE t SET a = 1"), "sql.pg.read-only")
    assert.strictEqual(rule("EXPLAIN CREATE TABLE x AS SELECT 1"), "sql.pg.read-only")
    assert.strictEqual(rule("DELETE FROM t"), "sql.pg.read-only")
    assert.strictEqual(rule("EXPLAIN DELETE FROM t WHERE id = pg_catalog.nextval('s')"), "sql.pg.function")
  })

  it("on a connection, every function goes to pg_proc, allowlisted or not; reach families stay denied by name (issue 43)", () => {
    const deferred = (sql: string) => {
      const v = PgTreePolicy.judge(parseSync(sql), { deferFunctions: true })
      return v._tag === "Allow" ? (v.deferred ?? []).map((f) => f.join(".")) : v.rule
    }
    assert.deepStrictEqual(deferred("SELECT lower(name), count(*), array_sneak() FROM t GROUP BY 1"), ["lower", "count", "array_sneak"])
    assert.deepStrictEqual(deferred("SELECT public.lower('x')"), ["public.lower"])
    assert.strictEqual(deferred("SELECT pg_read_file('x')"), "sql.pg.function")
    assert.strictEqual(deferred("SELECT a.b.c()"), "sql.pg.function")
  })

  it("alone, refuses the set_config family in reads and writes, with or without a connection (issue 43)", () => {
    for (const sql of [
      "SELECT set_config('role', 'postgres', true)", "SELECT pg_catalog.set_config('session_authorization', 'postgres', true)",
      "SELECT \"set_config\"('transaction_read_only', 'off', true)", "SELECT 1 FROM (SELECT set_config('role', 'x', true)) s"
    ]) {
      assert.strictEqual(rule(sql), "sql.pg.function", sql)
      assert.strictEqual(rule(sql, true), "sql.pg.function", sql)
      const deferred = PgTreePolicy.judge(parseSync(sql), { deferFunctions: true })
      assert.strictEqual(deferred._tag, "Deny", sql)
    }
  })
})

