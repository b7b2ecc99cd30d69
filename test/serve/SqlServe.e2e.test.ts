/**
 * Issue 17: a runaway SQLite query under the BUILT binary (dist/bin.js). Under `mcp serve` it must not block other
 * calls, `notifications/cancelled` must stop it, SIGTERM must end the server; the CLI must stop it at its time limit
 * (the call's timeout_ms or the connection's --timeout-ms) and obey SIGTERM. "Stopped" means the query process is
 * gone, read from /proc, not merely that an answer came.
 */
import { spawn, spawnSync } from "node:child_process"
import { createRequire } from "node:module"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterEach, beforeAll, describe, expect, it } from "vitest"
import * as QueryProcesses from "../support/QueryProcesses.js"
import { bin, connect, ensureBuilt, isErrorResult, makeWorkspace, sleep, textOf } from "./support/McpServeHarness.js"

interface Db {
  exec(sql: string): unknown
  close(): void
}
const Database = createRequire(import.meta.url)("better-sqlite3") as new (file: string) => Db

const runaway = "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r"

const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})
beforeAll(() => ensureBuilt(), 300_000)

const workspace = () => {
  const ws = makeWorkspace()
  cleanups.push(ws.cleanup)
  const db = new Database(path.join(ws.root, "app.db"))
  db.exec("CREATE TABLE users(id INTEGER PRIMARY KEY, name TEXT); INSERT INTO users(name) VALUES ('ann'), ('bob');")
  db.close()
  fs.writeFileSync(path.join(ws.root, "a.txt"), "still here\n")
  return ws
}

const until = async (check: () => boolean, millis: number): Promise<boolean> => {
  const deadline = Date.now() + millis
  while (!check()) {
    if (Date.now() > deadline) return false
    await sleep(50)
  }
  return true
}

/** Waits until `parent` runs a query process, and a little longer, so the query is deep in SQLite's loop. */
const busyQueryOf = async (parent: number): Promise<ReadonlyArray<number>> => {
  expect(await until(() => QueryProcesses.children(parent).length > 0, 20_000)).toBe(true)
  await sleep(500)
  return QueryProcesses.children(parent).map((p) => p.pid)
}

describe("sql_query under mcp serve (built binary): a runaway SQLite query", () => {
  it("does not block other calls, and notifications/cancelled kills its query process", async () => {
    const { root } = workspace()
    const s = await connect(root)
    cleanups.push(() => s.close().catch(() => undefined))
    const abort = new AbortController()
    const long = s.client.callTool({ name: "sql_query", arguments: { sql: runaway, connection: "app.db", timeout_ms: 600_000 } }, undefined, { signal: abort.signal, timeout: 120_000 })
    const busy = await busyQueryOf(s.pid)
    // The server's main thread is free: a file read and another query on the same database answer meanwhile.
    expect(textOf(await s.client.callTool({ name: "read_file", arguments: { path: "a.txt" } }))).toMatch(/still here/)
    expect(textOf(await s.client.callTool({ name: "sql_query", arguments: { sql: "SELECT name FROM users ORDER BY id", connection: "app.db" } }))).toMatch(/ann/)
    abort.abort("user pressed stop")
    await expect(long).rejects.toThrow()
    for (const pid of busy) expect(await until(() => !QueryProcesses.alive(pid), 10_000), `query process ${pid} survived the cancellation`).toBe(true)
  }, 90_000)

  it("ends at timeout_ms with an error that names the limit", async () => {
    const { root } = workspace()
    const s = await connect(root)
    cleanups.push(() => s.close().catch(() => undefined))
    const result = await s.client.callTool({ name: "sql_query", arguments: { sql: runaway, connection: "app.db", timeout_ms: 500 } }, undefined, { timeout: 30_000 })
    expect(isErrorResult(result)).toBe(true)
    expect(textOf(result)).toContain("sql_query stopped: the query ran past its time limit of 500 ms (timeout_ms: set by the call's timeout_ms argument)")
    expect(QueryProcesses.children(s.pid)).toHaveLength(0)
  }, 60_000)

  it("does not hold the server on SIGTERM: it exits and leaves no query process", async () => {
    const { root } = workspace()
    const s = await connect(root)
    cleanups.push(() => s.close().catch(() => undefined))
    void s.client.callTool({ name: "sql_query", arguments: { sql: runaway, connection: "app.db", timeout_ms: 600_000 } }, undefined, { timeout: 120_000 }).catch(() => undefined)
    const busy = await busyQueryOf(s.pid)
    process.kill(s.pid, "SIGTERM")
    expect(await until(() => !fs.existsSync(`/proc/${s.pid}`) || fs.readFileSync(`/proc/${s.pid}/stat`, "utf8").includes(") Z "), 15_000), "the server ignored SIGTERM").toBe(true)
    for (const pid of busy) expect(await until(() => !QueryProcesses.alive(pid), 10_000), `query process ${pid} outlived the server`).toBe(true)
  }, 90_000)
})

describe("sql_query in the CLI (built binary): time limits", () => {
  const cli = (args: ReadonlyArray<string>, home: string) =>
    spawnSync(process.execPath, [bin, ...args], { encoding: "utf8", env: { ...process.env, XDG_CONFIG_HOME: home }, timeout: 60_000 })

  it("a connection's --timeout-ms stops a runaway query with an error naming the connection; bad values are refused", () => {
    const { root } = workspace()
    const home = fs.mkdtempSync(path.join(os.tmpdir(), "minicode-sqlcfg-"))
    cleanups.push(() => fs.rmSync(home, { recursive: true, force: true }))
    for (const bad of ["0", "-1", "600001", "abc"]) {
      const refused = cli(["config", "sql", "add", "slow", "--sqlite", path.join(root, "app.db"), "--timeout-ms", bad], home)
      expect(refused.status, `--timeout-ms ${bad} accepted: ${refused.stdout}`).not.toBe(0)
      expect(`${refused.stdout}${refused.stderr}`).toMatch(/timeout-ms/)
    }
    const added = cli(["config", "sql", "add", "slow", "--sqlite", path.join(root, "app.db"), "--timeout-ms", "700"], home)
    expect(added.stdout).toContain("(time limit 700 ms)")
    expect(cli(["config", "sql", "list"], home).stdout).toContain("slow: sqlite")
    const out = cli(["tool", "sql_query", JSON.stringify({ sql: runaway, connection: "slow" }), "--cwd", root], home)
    expect(out.status).toBe(1)
    expect(`${out.stdout}${out.stderr}`).toContain(
      "sql_query stopped: the query ran past its time limit of 700 ms (timeout_ms: configured for connection \"slow\" (--timeout-ms); a call may pass timeout_ms)"
    )
    const honest = cli(["tool", "sql_query", JSON.stringify({ sql: "SELECT count(*) AS n FROM users", connection: "slow" }), "--cwd", root], home)
    expect(honest.status).toBe(0)
    expect(honest.stdout).toMatch(/2/)
  }, 120_000)

  it("SIGTERM ends `minicode tool sql_query` running a runaway query, and its query process", async () => {
    const { root } = workspace()
    const child = spawn(process.execPath, [bin, "tool", "sql_query", JSON.stringify({ sql: runaway, connection: "app.db", timeout_ms: 600_000 }), "--cwd", root], { stdio: "ignore" })
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()))
    cleanups.push(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
    })
    const busy = await busyQueryOf(child.pid ?? 0)
    child.kill("SIGTERM")
    const ended = await Promise.race([exited.then(() => true), sleep(15_000).then(() => false)])
    expect(ended, "the CLI ignored SIGTERM").toBe(true)
    for (const pid of busy) expect(await until(() => !QueryProcesses.alive(pid), 10_000), `query process ${pid} outlived the CLI`).toBe(true)
  }, 90_000)
})
