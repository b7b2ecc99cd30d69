/**
 * Issue 43 on a real throwaway PostgreSQL, through the built CLI and `mcp serve` (one cluster for the file):
 * - everyday built-ins run on a superuser's and an ordinary role's connection; a user's VOLATILE function named like
 *   an allowlisted family (array_sneak) is refused by pg_proc before it runs (before, the allowlist admitted it by
 *   prefix and only the read-only transaction stopped its INSERT);
 * - EXPLAIN UPDATE/DELETE without ANALYZE shows the plan on a role with the privilege, and changes nothing;
 * - jsonb's `null` prints `null`, SQL's NULL `NULL`, the text 'null' `'null'` (before, jsonb null printed NULL);
 * - a cell with terminal escape sequences is shown escaped in mcp serve's text (before, raw ESC reached the client;
 *   the CLI already escaped its own output);
 * - a killed CLI's statement is gone from pg_stat_activity once the call's limit passed (statement_timeout on the
 *   session: this held before too, through a transaction-local setting).
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { runCli } from "../support/Cli.js"
import * as Postgres from "../support/Postgres.js"
import { connect, textOf } from "../serve/support/McpServeHarness.js"

const bin = path.resolve("dist/bin.js")
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const psql = (url: string, sql: string): string => {
  const bindir = Postgres.findBin() ?? ""
  return execFileSync(path.join(bindir, "psql"), [url, "-v", "ON_ERROR_STOP=1", "-Atc", sql], { encoding: "utf8" })
}

describe.runIf(Postgres.hasPostgres)("sql_query on PostgreSQL: functions by pg_proc, EXPLAIN, exact values, the server-side limit (issue 43)", () => {
  let cluster: Postgres.Cluster | undefined
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "minicode-pg43cfg-"))
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), "minicode-pg43ws-"))
  const env = { ...process.env, XDG_CONFIG_HOME: home, MINICODE_ALLOW_LOCAL_CONFIG: "" }
  const admin = (sql: string) => psql(cluster?.url ?? "", sql)
  const query = (args: Record<string, unknown>, onPid?: (pid: number) => void) =>
    runCli(bin, ["tool", "sql_query", JSON.stringify(args), "--cwd", ws], { env, cwd: ws, timeoutMs: 60_000, ...(onPid === undefined ? {} : { onPid }) })
  beforeAll(async () => {
    cluster = Postgres.start()
    admin([
      "CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')",
      "CREATE TABLE orders (id int PRIMARY KEY, placed_at timestamptz DEFAULT now(), m mood, tags int[], b box, flags bit(4), doc jsonb, note text)",
      `INSERT INTO orders VALUES (1, now(), 'ok', '{1,2,3}', '((0,0),(2,3))', B'1011', 'null', 'null'), (2, now(), 'sad', '{}', '((0,0),(1,1))', B'0001', NULL, E'a\\x1b]52;c;SGVsbG8=\\x07b\\x1b[2Jc')`,
      "CREATE TABLE log (m text)",
      "CREATE FUNCTION array_sneak() RETURNS int LANGUAGE plpgsql VOLATILE AS $$ BEGIN INSERT INTO log VALUES ('x'); RETURN 1; END $$",
      "CREATE ROLE clerk LOGIN PASSWORD 'clerk-pw'",
      "GRANT SELECT, UPDATE, DELETE ON orders TO clerk"
    ].join("; "))
    const port = new URL(cluster.url).port
    for (const [name, url] of [["pg", cluster.url], ["clerk", `postgres://clerk:clerk-pw@127.0.0.1:${port}/postgres`]] as const) {
      const added = await runCli(bin, ["config", "sql", "add", name, "--url", url], { env, cwd: ws })
      expect(added.status, added.stderr).toBe(0)
    }
  }, 180_000)
  afterAll(() => {
    cluster?.stop()
    fs.rmSync(home, { recursive: true, force: true })
    fs.rmSync(ws, { recursive: true, force: true })
  })

  it("everyday built-ins run; a VOLATILE function under an allowlisted family's name is refused by pg_proc", async () => {
    for (const connection of ["pg", "clerk"]) {
      const out = await query({
        sql: "SELECT date(placed_at) = current_date AS d, text(id), int4(id), enum_range(NULL::mood), enum_first(m), area(b), trim_array(tags, 1), bit_count(flags), pg_relation_filepath('orders') IS NOT NULL AS f, txid_current_snapshot() IS NOT NULL AS s, random() < 2 AS r FROM orders WHERE id = 1",
        connection
      })
      expect(out.status, `${connection}: ${out.stderr}`).toBe(0)
      expect(out.stdout).toMatch(/true\s+\|\s+1\s+\|\s+1\s+\|\s+\{sad,ok,happy\}\s+\|\s+sad\s+\|\s+6\s+\|\s+\{1,2\}\s+\|\s+3\s+\|\s+true\s+\|\s+true\s+\|\s+true/)
      const acl = await query({ sql: "SELECT privilege_type FROM aclexplode((SELECT relacl FROM pg_class WHERE relname = 'orders')) ORDER BY 1 LIMIT 1", connection })
      expect(acl.status, acl.stderr).toBe(0)
      const sneak = await query({ sql: "SELECT array_sneak()", connection })
      expect(sneak.status).toBe(3)
      expect(sneak.stderr).toContain("sql.pg.function")
      expect(sneak.stderr).toContain("VOLATILE")
    }
    expect(admin("SELECT count(*) FROM log").trim()).toBe("0")
  }, 120_000)

  it("EXPLAIN UPDATE and DELETE show the plan and change nothing", async () => {
    for (const sql of ["EXPLAIN UPDATE orders SET m = 'happy' WHERE id = 1", "EXPLAIN (COSTS off) DELETE FROM orders WHERE id = 2"]) {
      const out = await query({ sql, connection: "clerk" })
      expect(out.status, `${sql}: ${out.stderr}`).toBe(0)
      expect(out.stdout).toMatch(/(Update|Delete) on orders/)
    }
    const analyzed = await query({ sql: "EXPLAIN (ANALYZE) DELETE FROM orders", connection: "clerk" })
    expect(analyzed.status).toBe(3)
    expect(admin("SELECT count(*), min(m::text) FROM orders").trim()).toBe("2|ok")
  }, 60_000)

  it("jsonb null, SQL NULL and the text 'null' print three ways; escapes are shown, not obeyed, under mcp serve", async () => {
    const out = await query({ sql: "SELECT id, doc, note FROM orders WHERE id = 1 UNION ALL SELECT 2, NULL, 'x' ORDER BY id", connection: "pg" })
    expect(out.status, out.stderr).toBe(0)
    const rows = out.stdout.split("\n").filter((l) => /^\d/.test(l)).map((l) => l.split("|").map((c) => c.trim()))
    expect(rows).toEqual([["1", "null", "'null'"], ["2", "NULL", "x"]])
    const s = await connect(ws, [], undefined, { XDG_CONFIG_HOME: home, MINICODE_ALLOW_LOCAL_CONFIG: "" })
    try {
      const result = await s.client.callTool({ name: "sql_query", arguments: { sql: "SELECT note FROM orders WHERE id = 2", connection: "pg" } })
      const text = textOf(result)
      expect(text).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/)
      expect(text).toContain("a\\u001b]52;c;SGVsbG8=\\u0007b\\u001b[2Jc")
      const json = await s.client.callTool({ name: "sql_query", arguments: { sql: "SELECT doc FROM orders ORDER BY id", connection: "pg" } })
      expect(textOf(json)).toMatch(/^null\s*$/m)
      expect(textOf(json)).toMatch(/^NULL\s*$/m)
    } finally {
      await s.close().catch(() => undefined)
    }
  }, 60_000)

  it("a killed CLI's statement is gone from pg_stat_activity once the call's limit passed", async () => {
    // The read's query runs as its cursor is fetched: that FETCH is the statement a killed client leaves behind.
    const running = () => admin("SELECT count(*) FROM pg_stat_activity WHERE application_name = 'minicode' AND state = 'active' AND query LIKE 'FETCH FORWARD%'").trim()
    let pid = 0
    const call = query({ sql: "SELECT count(*) FROM generate_series(1, 20000000000) a, generate_series(1, 10) b", connection: "pg", timeout_ms: 8000 }, (p) => (pid = p))
    let seen = false
    for (let i = 0; i < 200 && !seen; i++) {
      await sleep(100)
      seen = running() === "1"
    }
    expect(seen, "the statement never ran").toBe(true)
    process.kill(pid, "SIGKILL")
    await call
    await sleep(1000)
    expect(running(), "a killed client's statement stops only at the limit (nothing else ends it)").toBe("1")
    let gone = false
    for (let i = 0; i < 300 && !gone; i++) {
      await sleep(100)
      gone = running() === "0"
    }
    expect(gone, "the statement ran on past its limit after the CLI was killed").toBe(true)
  }, 90_000)
})
