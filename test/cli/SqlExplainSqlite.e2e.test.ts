/**
 * EXPLAIN of a data change only plans it (issue 43): through the built CLI on a workspace SQLite database,
 * `EXPLAIN QUERY PLAN DELETE …` and `EXPLAIN DELETE …` answer on a read-only connection and the rows are all still
 * there; `DELETE` itself is still refused. Before, the guard refused both EXPLAINs as writes (and the engine's
 * sqlite3_stmt_readonly said the same).
 */
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { runCli } from "../support/Cli.js"

const bin = path.resolve("dist/bin.js")
const Database = createRequire(import.meta.url)("better-sqlite3") as new (file: string) => {
  exec(sql: string): unknown
  prepare(sql: string): { get(): unknown }
  close(): void
}

describe("sql_query: EXPLAIN of a data change on SQLite", () => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "minicode-explcfg-"))
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), "minicode-explws-"))
  const env = { ...process.env, XDG_CONFIG_HOME: home, MINICODE_ALLOW_LOCAL_CONFIG: "" }
  afterAll(() => {
    fs.rmSync(home, { recursive: true, force: true })
    fs.rmSync(ws, { recursive: true, force: true })
  })
  const count = () => {
    const db = new Database(path.join(ws, "app.db"))
    const row = db.prepare("SELECT count(*) AS n FROM t").get()
    db.close()
    return row
  }
  const query = (sql: string) => runCli(bin, ["tool", "sql_query", JSON.stringify({ sql, connection: "app.db" }), "--cwd", ws], { env, cwd: ws })

  it("plans and changes nothing; DELETE itself stays refused", async () => {
    const db = new Database(path.join(ws, "app.db"))
    db.exec("CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT); INSERT INTO t(v) VALUES ('a'), ('b');")
    db.close()
    const plan = await query("EXPLAIN QUERY PLAN DELETE FROM t WHERE id = 1")
    expect(plan.status, plan.stderr).toBe(0)
    expect(plan.stdout).toMatch(/SEARCH t USING INTEGER PRIMARY KEY|SEARCH TABLE t/)
    const program = await query("EXPLAIN DELETE FROM t")
    expect(program.status, program.stderr).toBe(0)
    expect(program.stdout).toMatch(/opcode/)
    const update = await query("EXPLAIN QUERY PLAN UPDATE t SET v = 'x' WHERE id = 2")
    expect(update.status, update.stderr).toBe(0)
    const del = await query("DELETE FROM t")
    expect(del.status).toBe(3)
    const analyzed = await query("EXPLAIN QUERY PLAN DELETE FROM t; DELETE FROM t")
    expect(analyzed.status).toBe(3)
    expect(count()).toEqual({ n: 2 })
  }, 60_000)

  it("sql_schema says what sqlite_master says: generated columns, a composite key in its order, CHECK", async () => {
    const db = new Database(path.join(ws, "schema.db"))
    db.exec("CREATE TABLE s_items (a INT, b INT, total INT GENERATED ALWAYS AS (a * b) STORED, v INT AS (a + 1), CHECK (a > 0), PRIMARY KEY (b, a))")
    const definition = db.prepare("SELECT sql AS s FROM sqlite_master WHERE name = 's_items'").get()
    db.close()
    const out = await runCli(bin, ["tool", "sql_schema", JSON.stringify({ connection: "schema.db", table: "s_items" }), "--cwd", ws], { env, cwd: ws })
    expect(out.status, out.stderr).toBe(0)
    const lines = out.stdout.split("\n").map((l) => l.trim())
    expect(lines).toContain("total INT GENERATED ALWAYS (STORED)")
    expect(lines).toContain("v INT GENERATED ALWAYS (VIRTUAL)")
    expect(lines).toContain("PRIMARY KEY (b, a)")
    expect(lines).toContain(`DEFINITION ${(definition as { s: string }).s}`)
  }, 60_000)
})

