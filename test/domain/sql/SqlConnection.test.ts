import { assert, describe, it } from "@effect/vitest"
import { Either, FastCheck } from "effect"
import * as SqlConnection from "../../../src/domain/sql/SqlConnection.js"
import * as SqlPolicy from "../../../src/domain/sql/SqlPolicy.js"
import * as SqlTable from "../../../src/domain/sql/SqlTable.js"

const connections: SqlConnection.Connections = {
  app: { sqlite: "/data/app.db" },
  rw: { sqlite: "/data/rw.db", allowWrite: true },
  pg: { url: "postgres://me:s3cr%40t@db.local:5432/prod?sslmode=require&password=other" }
}

describe("SqlConnection", () => {
  it("resolves workspace files, named connections, and the dialect hint when unbound", () => {
    const file = SqlConnection.resolve("data/x.sqlite3", connections, "postgres")
    assert.deepStrictEqual(Either.getOrThrow(file), { _tag: "WorkspaceFile", path: "data/x.sqlite3", dialect: "sqlite" })
    const pg = Either.getOrThrow(SqlConnection.resolve("pg", connections, undefined))
    assert.strictEqual(pg.dialect, "postgres")
    const unbound = Either.getOrThrow(SqlConnection.resolve(undefined, {}, "postgres"))
    assert.deepInclude(unbound, { _tag: "Unbound", dialect: "postgres" })
    assert.strictEqual(Either.getOrThrow(SqlConnection.resolve(undefined, {}, undefined)).dialect, "sqlite")
    assert.strictEqual(Either.getOrThrow(SqlConnection.resolve(undefined, { only: { sqlite: "/a.db" } }, "postgres"))._tag, "Named")
    assert.isTrue(Either.isLeft(SqlConnection.resolve("nope", connections, undefined)))
    assert.isTrue(Either.isLeft(SqlConnection.resolve("toString", connections, undefined)))
  })

  it("permits writes only with write:true on a connection configured with allowWrite", () => {
    const at = (c: string | undefined) => Either.getOrThrow(SqlConnection.resolve(c, connections, undefined))
    assert.isUndefined(SqlConnection.writePermission(at("app"), false))
    assert.strictEqual(SqlConnection.writePermission(at("app"), true)?.rule, "sql.write.not-allowed")
    assert.isUndefined(SqlConnection.writePermission(at("rw"), true))
    assert.strictEqual(SqlConnection.writePermission(at("x.db"), true)?.rule, "sql.write.not-allowed")
    assert.strictEqual(SqlConnection.writePermission(at(undefined), true)?.rule, "sql.write.not-allowed")
  })

  it("a query's time limit: the call's timeout_ms, else the connection's timeoutMs, else 30000; each named in the error", () => {
    const at = (c: string | undefined, cs: SqlConnection.Connections) => Either.getOrThrow(SqlConnection.resolve(c, cs, undefined))
    const slow = { slow: { sqlite: "/a.db", timeoutMs: 1_234 } }
    assert.deepStrictEqual(SqlConnection.timeLimit(50, at("slow", slow)), { millis: 50, source: { _tag: "Argument" } })
    assert.deepStrictEqual(SqlConnection.timeLimit(undefined, at("slow", slow)), { millis: 1_234, source: { _tag: "Connection", name: "slow" } })
    assert.deepStrictEqual(SqlConnection.timeLimit(undefined, at("app", connections)), { millis: 30_000, source: { _tag: "Default" } })
    assert.deepStrictEqual(SqlConnection.timeLimit(undefined, at("x.db", slow)), { millis: 30_000, source: { _tag: "Default" } })
    assert.strictEqual(
      SqlConnection.overTime(SqlConnection.timeLimit(undefined, at("app", connections))),
      "sql_query stopped: the query ran past its time limit of 30000 ms (timeout_ms: the default; pass timeout_ms (up to 600000) or configure the connection with --timeout-ms)"
    )
    assert.include(SqlConnection.describe("slow", slow.slow), "(time limit 1234 ms)")
  })

  it("a configured timeoutMs must be a whole number of ms from 1 to 600000", () => {
    assert.isTrue(Either.isRight(SqlConnection.parseConnections({ a: { sqlite: "/a.db", timeoutMs: 600_000 } })))
    for (const bad of [0, -5, 600_001, 2.5, "100"]) {
      const parsed = SqlConnection.parseConnections({ a: { sqlite: "/a.db", timeoutMs: bad } })
      assert.isTrue(Either.isLeft(parsed) && parsed.left.includes("timeoutMs"), `${JSON.stringify(bad)} accepted`)
    }
  })

  it("never prints a password", () => {
    const line = SqlConnection.describe("pg", connections["pg"] ?? {})
    assert.notInclude(line, "s3cr")
    assert.notInclude(line, "other")
    assert.include(line, "me:***@db.local:5432/prod")
    assert.strictEqual(SqlConnection.maskUrl("postgresql://u:p@ss@h/db"), "postgresql://u:***@h/db")
    assert.strictEqual(SqlConnection.maskUrl("postgres://h/db"), "postgres://h/db")
  })

  it("validates names and entries", () => {
    assert.isTrue(Either.isRight(SqlConnection.validateName("prod-ro")))
    assert.isTrue(Either.isLeft(SqlConnection.validateName("x.db")))
    assert.isTrue(Either.isLeft(SqlConnection.validateName("-x")))
    assert.isTrue(Either.isLeft(SqlConnection.parseConnections({ a: { sqlite: "/a", url: "postgres://h" } })))
    assert.isTrue(Either.isLeft(SqlConnection.parseConnections({ a: { url: "mssql://h" } })))
    // MySQL and MariaDB are engines now (issue 24): their URLs are accepted and speak the mysql dialect.
    assert.deepStrictEqual(SqlConnection.dialectOf({ url: "mysql://u:p@h/db" }), Either.right("mysql"))
    assert.deepStrictEqual(SqlConnection.dialectOf({ url: "mariadb://h/db" }), Either.right("mysql"))
    assert.isTrue(Either.isLeft(SqlConnection.parseConnections({ a: { sqlite: "/a", extra: 1 } })))
    assert.isTrue(Either.isRight(SqlConnection.parseConnections({ a: { url: "postgresql://h/db", allowWrite: true } })))
  })
})

describe("SqlPolicy.judgeCall", () => {
  it("judges by the connection's dialect, then the write permission, then the lexer guard", () => {
    const decide = (call: SqlPolicy.SqlCall, hint?: "sqlite" | "postgres" | "mysql") =>
      Either.match(SqlPolicy.judgeCall(call, connections, hint), { onLeft: (d) => d, onRight: (a) => a.decision })
    assert.strictEqual(decide({ sql: "SELECT 1", connection: "app" }).rule, "sql.read-only")
    assert.strictEqual(decide({ sql: "DELETE FROM t", connection: "app" }).rule, "sql.write")
    assert.strictEqual(decide({ sql: "DELETE FROM t", connection: "app", write: true }).rule, "sql.write.not-allowed")
    assert.strictEqual(decide({ sql: "DELETE FROM t", connection: "rw", write: true }).decision, "allow")
    assert.strictEqual(decide({ sql: "ATTACH 'x' AS y", connection: "rw", write: true }).decision, "deny")
    // PRAGMA is SQLite-only: a workspace file is SQLite whatever the hint says.
    assert.strictEqual(decide({ sql: "PRAGMA table_info(t)", connection: "a.db" }, "postgres").decision, "allow")
    assert.strictEqual(decide({ sql: "PRAGMA table_info(t)" }, "postgres").decision, "deny")
    assert.strictEqual(decide({ sql: "SHOW search_path", connection: "pg" }).decision, "allow")
  })
})

describe("SqlTable", () => {
  it("renders a compact table with the row count and a truncation marker", () => {
    const text = SqlTable.render({ columns: ["id", "note"], rows: [[1n, "a|b\nc"], [2, null]], truncated: true }, 2)
    assert.strictEqual(text, ["id | note", "---+--------", "1  | a\\|b\\nc", "2  | NULL", "[2 rows shown; more rows not shown: truncated at max_rows=2]"].join("\n"))
    assert.include(SqlTable.render({ columns: ["x"], rows: [], truncated: false }, 5), "(0 rows)")
    assert.strictEqual(SqlTable.render({ columns: [], rows: [], truncated: false, changes: 1 }, 5), "(1 row changed)")
    assert.strictEqual(SqlTable.cell(new Uint8Array([0, 255])), "x'00ff'")
    assert.strictEqual(SqlTable.cell("x".repeat(500)).length, SqlTable.maxCellChars)
    assert.strictEqual(SqlTable.cell({ a: 1n }), '{"a":"1"}')
  })
})

describe("urlProblem (config sql add)", () => {
  it("URLs that can work pass", () => {
    for (const url of [
      "postgres://u:p@h:5432/db", "postgresql://h/db", "mysql://u:p%2Fq%23r@127.0.0.1:3306/app", "mariadb://h/db", "postgres://u@[::1]:5432/db",
      "postgres:///db?host=/var/run/postgresql", "mysql://u:p@localhost/app?socketPath=/run/mysqld.sock", "postgres://u:p@h/db?sslmode=require"
    ]) assert.isUndefined(SqlConnection.urlProblem(url), url)
  })
  it("URLs that can never work are told what is wrong, without the password", () => {
    const cases: ReadonlyArray<readonly [string, RegExp]> = [
      ["postgres://u:p@h:port/db", /port must be a number/],
      ["mysql://u:p@h:99999/db", /port must be a number/],
      ["postgres:///db", /no host/],
      ["mysql://u:p@/app", /no host/],
      ["postgres://u:se/cret@h/db", /unencoded '\/', '#' or '\?'/],
      ["mysql://u:se#cret@h/db", /unencoded/],
      ["mysql://u:se?cret@h/db", /unencoded/]
    ]
    for (const [url, expected] of cases) {
      const problem = SqlConnection.urlProblem(url)
      assert.match(problem ?? "", expected, url)
      assert.notInclude(problem ?? "", "cret")
    }
  })
})

describe("SqlTable.cell: a real NULL and the text 'NULL' never print alike", () => {
  it("table", () => {
    assert.strictEqual(SqlTable.cell(null), "NULL")
    assert.strictEqual(SqlTable.cell("NULL"), "'NULL'")
    assert.strictEqual(SqlTable.cell("null"), "'null'")
    assert.strictEqual(SqlTable.cell("'NULL'"), "'''NULL'''")
    assert.strictEqual(SqlTable.cell("NULLS"), "NULLS")
    assert.strictEqual(SqlTable.cell("a NULL"), "a NULL")
  })
  it("property: distinct values print distinctly when one of them is NULL or a text", () => {
    FastCheck.assert(FastCheck.property(FastCheck.oneof(FastCheck.constantFrom("NULL", "null", "'NULL'", "''NULL''", "Null", "'null"), FastCheck.string()), FastCheck.oneof(FastCheck.constant(null), FastCheck.constantFrom("NULL", "'NULL'", "null")), (a, b) =>
      a === b || SqlTable.cell(a, 10_000) !== SqlTable.cell(b, 10_000) || a.includes("|") || /[\r\n\t\\]/.test(a)))
  })
})
