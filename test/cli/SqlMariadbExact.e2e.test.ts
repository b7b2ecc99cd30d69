/**
 * Issue 43 on a real throwaway MariaDB, through the built CLI (one server for the file):
 * - stored functions are judged by the server's facts before a read runs them: declared MODIFIES SQL DATA, or a body
 *   that writes although declared NO SQL (visible to root), is refused by rule sql.mysql.function; honest ones run.
 *   Before, they passed the static check and only the read-only transaction stopped their INSERT;
 * - CHECKSUM TABLE reads (the guard refused it before);
 * - a JSON column's `null` prints `null`, SQL's NULL prints `NULL`, the text 'null' prints `'null'` (JSON null printed
 *   NULL before);
 * - a killed CLI's statement stops on the server at the call's limit (max_statement_time on the session).
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { runCli } from "../support/Cli.js"
import * as Mariadb from "../support/Mariadb.js"

const bin = path.resolve("dist/bin.js")
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe.runIf(Mariadb.hasMariadb)("sql_query on MariaDB: routines, CHECKSUM, JSON null, the server-side limit (issue 43)", () => {
  let server: Mariadb.Server | undefined
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "minicode-my43cfg-"))
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), "minicode-my43ws-"))
  const env = { ...process.env, XDG_CONFIG_HOME: home, MINICODE_ALLOW_LOCAL_CONFIG: "" }
  const query = (args: Record<string, unknown>, onPid?: (pid: number) => void) =>
    runCli(bin, ["tool", "sql_query", JSON.stringify(args), "--cwd", ws], { env, cwd: ws, timeoutMs: 60_000, ...(onPid === undefined ? {} : { onPid }) })
  const admin = (sql: string) => server?.admin(sql) ?? ""
  beforeAll(async () => {
    server = Mariadb.start()
    admin([
      "CREATE TABLE app.log (m TEXT);",
      "CREATE TABLE app.docs (id INT PRIMARY KEY, doc JSON, t TEXT);",
      `INSERT INTO app.docs VALUES (1, 'null', NULL), (2, NULL, 'null'), (3, '{"a":null}', 'x');`,
      "DELIMITER //",
      "CREATE FUNCTION app.log_action(x TEXT) RETURNS INT MODIFIES SQL DATA BEGIN INSERT INTO app.log VALUES (x); RETURN 1; END//",
      "CREATE FUNCTION app.liar(x TEXT) RETURNS INT NO SQL BEGIN INSERT INTO app.log VALUES (x); RETURN 1; END//",
      "CREATE FUNCTION app.wrap(x TEXT) RETURNS INT READS SQL DATA RETURN app.liar(x)//",
      "CREATE FUNCTION app.twice(x INT) RETURNS INT DETERMINISTIC NO SQL RETURN x * 2//",
      "CREATE FUNCTION app.doc_count() RETURNS INT READS SQL DATA BEGIN DECLARE n INT; SELECT COUNT(*) INTO n FROM app.docs; RETURN n; END//",
      "CREATE FUNCTION app.nap(s INT) RETURNS INT NO SQL RETURN SLEEP(s)//",
      "CREATE TABLE app.s_items (a INT, b INT, total INT AS (a * b) STORED, v INT AS (a + 1) VIRTUAL, id INT AUTO_INCREMENT, ts TIMESTAMP DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP, note TEXT COMMENT 'a note', body TEXT, CHECK (a > 0), PRIMARY KEY (b, a), KEY (id), FULLTEXT KEY ft (body)) COMMENT 'line items'//",
      "CREATE TABLE app.s_parts (id INT) PARTITION BY RANGE (id) (PARTITION p0 VALUES LESS THAN (100), PARTITION p1 VALUES LESS THAN MAXVALUE)//",
      "CREATE SEQUENCE app.s_seq//"
    ].join("\n"))
    for (const [name, url] of [["my", server.url], ["root", server.rootUrl]] as const) {
      const added = await runCli(bin, ["config", "sql", "add", name, "--url", url], { env, cwd: ws })
      expect(added.status, added.stderr).toBe(0)
    }
  }, 180_000)
  afterAll(() => {
    server?.stop()
    fs.rmSync(home, { recursive: true, force: true })
    fs.rmSync(ws, { recursive: true, force: true })
  })

  it("stored functions that write are refused before they run, whatever they declare; honest ones run", async () => {
    for (const sql of ["SELECT log_action('a')", "SELECT liar('b')", "SELECT APP.Liar('c')", "SELECT wrap('d')", "SELECT 1 FROM app.docs WHERE app.liar(t) = 1"]) {
      const out = await query({ sql, connection: "root" })
      expect(out.status, `${sql}: ${out.stdout}${out.stderr}`).toBe(3)
      expect(out.stderr, sql).toContain("sql.mysql.function")
    }
    const declared = await query({ sql: "SELECT log_action('e')", connection: "my" })
    expect(declared.stderr).toContain("declared MODIFIES SQL DATA")
    const honest = await query({ sql: "SELECT twice(21) AS t, doc_count() AS n", connection: "root" })
    expect(honest.status, honest.stderr).toBe(0)
    expect(honest.stdout).toMatch(/42\s+\|\s+3/)
    expect(admin("SELECT COUNT(*) FROM app.log").trim()).toBe("0")
  }, 120_000)

  it("CHECKSUM TABLE reads", async () => {
    const out = await query({ sql: "CHECKSUM TABLE docs", connection: "my" })
    expect(out.status, out.stderr).toBe(0)
    expect(out.stdout).toMatch(/app\.docs\s+\|\s+\d+/)
  }, 60_000)

  it("JSON null, SQL NULL and the text 'null' print three ways", async () => {
    const out = await query({ sql: "SELECT id, doc, t, JSON_EXTRACT(doc, '$.a') AS a FROM docs ORDER BY id", connection: "my" })
    expect(out.status, out.stderr).toBe(0)
    const rows = out.stdout.split("\n").filter((l) => /^\d/.test(l)).map((l) => l.split("|").map((c) => c.trim()))
    expect(rows).toEqual([["1", "null", "NULL", "NULL"], ["2", "NULL", "'null'", "NULL"], ["3", '{"a":null}', "x", "null"]])
    expect(out.stdout.split("\n")[1]).toMatch(/^int\s+\|\s+json\s+\|\s+text\s+\|\s+json/)
  }, 60_000)

  it("a killed CLI's statement ends on the server at the call's limit", async () => {
    const running = () => admin("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE INFO LIKE '%app.nap(600)%' AND INFO NOT LIKE '%PROCESSLIST%'").trim()
    let pid = 0
    const call = query({ sql: "SELECT app.nap(600)", connection: "my", timeout_ms: 8000 }, (p) => (pid = p))
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
    // The limit is 8 s from the statement's start; then it must be gone.
    let gone = false
    for (let i = 0; i < 300 && !gone; i++) {
      await sleep(100)
      gone = running() === "0"
    }
    expect(gone, "the statement ran on past its limit after the CLI was killed").toBe(true)
  }, 90_000)

  it("sql_schema says what SHOW CREATE TABLE says: generated columns, AUTO_INCREMENT, ON UPDATE, FULLTEXT, CHECK, a composite key, comments, partitions; a sequence is a sequence", async () => {
    const schema = async (table: string) => {
      const out = await runCli(bin, ["tool", "sql_schema", JSON.stringify({ connection: "my", table }), "--cwd", ws], { env, cwd: ws, timeoutMs: 60_000 })
      expect(out.status, out.stderr).toBe(0)
      return out.stdout.split("\n").map((l) => l.trim())
    }
    const shown = admin("SHOW CREATE TABLE app.s_items")
    const items = await schema("s_items")
    for (const line of ["total int(11) GENERATED ALWAYS AS (`a` * `b`) STORED", "v int(11) GENERATED ALWAYS AS (`a` + 1) VIRTUAL", "id int(11) NOT NULL AUTO_INCREMENT", "note text -- a note", "PRIMARY KEY (b, a)", "INDEX ft (FULLTEXT): body", "CHECK (`a` > 0)", "COMMENT 'line items'"]) {
      expect(items, line).toContain(line)
    }
    expect(items.find((l) => l.startsWith("ts timestamp")) ?? "").toMatch(/DEFAULT current_timestamp\(\) ON UPDATE CURRENT_TIMESTAMP/i)
    expect(shown).toContain("PRIMARY KEY (`b`,`a`)")
    expect(shown).toMatch(/GENERATED ALWAYS AS \(`a` \* `b`\) STORED/)
    expect(items.join("\n")).not.toMatch(/DEFAULT NULL/)
    const parts = await schema("s_parts")
    expect(parts).toEqual(expect.arrayContaining(["PARTITION BY RANGE (`id`)", "PARTITION p0 VALUES LESS THAN (100)", "PARTITION p1 VALUES LESS THAN (MAXVALUE)"]))
    expect((await schema("s_seq"))[0]).toBe("s_seq (sequence)")
  }, 60_000)
})

