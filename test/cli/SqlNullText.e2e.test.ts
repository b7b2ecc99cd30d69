/**
 * The text 'NULL' never prints like a real NULL (issue 43), through the built CLI on a workspace SQLite database.
 * Before, both printed NULL.
 */
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { runCli } from "../support/Cli.js"

const bin = path.resolve("dist/bin.js")
const Database = createRequire(import.meta.url)("better-sqlite3") as new (file: string) => { exec(sql: string): unknown; close(): void }

describe("sql_query: NULL and the text 'NULL'", () => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "minicode-nullcfg-"))
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), "minicode-nullws-"))
  const env = { ...process.env, XDG_CONFIG_HOME: home, MINICODE_ALLOW_LOCAL_CONFIG: "" }
  afterAll(() => {
    fs.rmSync(home, { recursive: true, force: true })
    fs.rmSync(ws, { recursive: true, force: true })
  })
  it("a real NULL prints NULL, the text prints quoted", async () => {
    const db = new Database(path.join(ws, "app.db"))
    db.exec("CREATE TABLE t(id INTEGER, v TEXT); INSERT INTO t VALUES (1, NULL), (2, 'NULL');")
    db.close()
    const out = await runCli(bin, ["tool", "sql_query", JSON.stringify({ sql: "SELECT id, v FROM t ORDER BY id", connection: "app.db" }), "--cwd", ws], { env, cwd: ws })
    expect(out.status, out.stderr).toBe(0)
    const lines = out.stdout.split("\n")
    const one = lines.find((l) => /^\s*1\b/.test(l)) ?? ""
    const two = lines.find((l) => /^\s*2\b/.test(l)) ?? ""
    expect(one).toMatch(/\bNULL\b/)
    expect(one).not.toContain("'NULL'")
    expect(two).toContain("'NULL'")
  }, 30_000)
})
