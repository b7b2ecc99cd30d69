/** PgReadRule (issue 43): what the PostgreSQL engine reads in a statement by itself, without the guards. */
import { assert, describe, it } from "@effect/vitest"
import { Either, FastCheck } from "effect"
import { attributeNames, bodyRefusal, calledFunctions, headRefusal } from "../../../src/domain/sql/PgReadRule.js"

const calls = (sql: string) => Either.getOrThrow(calledFunctions(sql)).map((f) => f.join("."))

describe("PgReadRule", () => {
  it("finds set_config however it is spelled", () => {
    for (const sql of [
      "SELECT set_config('role', 'x', true)", "SELECT SET_CONFIG ('role', 'x', true)", "SELECT pg_catalog.set_config('role', 'x', true)",
      "SELECT \"set_config\"('role', 'x', true)", "SELECT U&\"\\0073et_config\"('role', 'x', true)", "SELECT set_config/* c */('role', 'x', true)",
      "SELECT x FROM (SELECT set_config('role', 'x', true) AS x) s"
    ]) {
      assert.include(calls(sql).map((c) => c.split(".").pop()), "set_config", sql)
    }
    assert.notInclude(calls("SELECT 'set_config(1)', \"a\" FROM t -- set_config(\n"), "set_config")
  })

  it("a read must read by its shape", () => {
    for (const sql of ["SELECT 1", "(SELECT 1)", "WITH a AS (SELECT 1) SELECT * FROM a", "VALUES (1)", "TABLE t", "SHOW search_path", "EXPLAIN SELECT 1"]) {
      assert.isUndefined(headRefusal(sql), sql)
    }
    for (const sql of ["SET statement_timeout = 0", "RESET ALL", "END", "COMMIT", "UPDATE pg_settings SET setting = 'x'", "DO $$ BEGIN END $$", "COPY t TO STDOUT", ""]) {
      assert.isDefined(headRefusal(sql), sql)
    }
  })

  it("names after a dot are candidates for attribute notation; calls are not", () => {
    assert.deepStrictEqual(attributeNames("SELECT o.label, (ROW(1)::t).f, s.g(1) FROM orders o"), ["label", "f"])
  })

  it("a procedural body that calls a reach family or runs EXECUTE is refused; sleeping and plain logic are not", () => {
    assert.isDefined(bodyRefusal("BEGIN RETURN set_config('role', 'x', true); END"))
    assert.isDefined(bodyRefusal("BEGIN PERFORM dblink_exec('h', 'q'); RETURN 1; END"))
    assert.isDefined(bodyRefusal("BEGIN EXECUTE 'SELECT 1'; RETURN 1; END"))
    assert.isUndefined(bodyRefusal("BEGIN PERFORM pg_sleep(1); RETURN 'n' || x; END"))
  })

  it.prop("a statement that does not begin with a reading word is refused", [FastCheck.constantFrom("SET", "RESET", "INSERT", "UPDATE", "DELETE", "BEGIN", "END", "COMMIT", "ROLLBACK", "CALL", "DO", "COPY", "LOCK", "DISCARD", "PREPARE", "EXECUTE", "LISTEN", "NOTIFY"), FastCheck.string()], ([head, rest]) => {
    assert.isDefined(headRefusal(`${head} ${rest}`))
  })
})
