/**
 * MySQL/MariaDB through the shipped CLI (dist/bin.js) on a real throwaway MariaDB: `config sql add my --url mysql://…`
 * then `minicode tool sql_query`, reads answered, writes and escalations refused with the guard's or the server's rule.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Mariadb from "../support/Mariadb.js"

const bin = path.resolve("dist/bin.js")

describe.runIf(Mariadb.hasMariadb)("sql_query on MariaDB through the CLI", () => {
  let server: Mariadb.Server | undefined
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "minicode-mycfg-"))
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), "minicode-myws-"))
  const env = { ...process.env, XDG_CONFIG_HOME: home, MINICODE_ALLOW_LOCAL_CONFIG: "" }
  const minicode = (args: ReadonlyArray<string>) => spawnSync(process.execPath, [bin, ...args], { encoding: "utf8", env, cwd: ws })
  const query = (args: Record<string, unknown>) => minicode(["tool", "sql_query", JSON.stringify(args), "--cwd", ws])
  beforeAll(() => {
    server = Mariadb.start()
    server.admin("CREATE TABLE app.items (id INT PRIMARY KEY, label VARCHAR(20)); INSERT INTO app.items VALUES (1, 'one'), (2, 'two')")
  }, 120_000)
  afterAll(() => server?.stop())

  it("config sql add my --url mysql://… is accepted and listed as mysql with the password masked", () => {
    const out = minicode(["config", "sql", "add", "my", "--url", server?.url ?? ""])
    expect(out.stderr).toBe("")
    expect(out.stdout).toContain("added my: mysql mysql://minicode:***@127.0.0.1")
    const rw = minicode(["config", "sql", "add", "myrw", "--url", server?.url ?? "", "--allow-write"])
    expect(rw.status).toBe(0)
  }, 30_000)

  it("reads answer; writes on the read-only connection and file reach are refused", () => {
    const read = query({ sql: "SELECT id, label FROM items ORDER BY id", connection: "my" })
    expect(read.stdout).toContain("one")
    expect(read.stdout).toContain("(2 rows)")
    for (const sql of ["DELETE FROM items", "SELECT LOAD_FILE('/etc/passwd')", "SELECT 1 INTO OUTFILE '/tmp/x'"]) {
      const out = query({ sql, connection: "my" })
      expect(out.status, `${sql}: ${out.stdout}`).not.toBe(0)
    }
    expect(server?.admin("SELECT COUNT(*) FROM app.items").trim()).toBe("2")
  }, 60_000)
})
