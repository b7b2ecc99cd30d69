/**
 * End to end: under the BUILT `mcp serve`, sql_query's description in tools/list names this run's configured
 * connections (name, engine, mode), so the agent never guesses one; never a URL, a host, a file or a password.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, beforeAll, describe, expect, it } from "vitest"
import { connect, ensureBuilt, makeWorkspace } from "./support/McpServeHarness.js"

const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})
beforeAll(() => ensureBuilt(), 120_000)

const describeSql = async (sql: Record<string, unknown> | undefined) => {
  const ws = makeWorkspace()
  cleanups.push(ws.cleanup)
  const config = path.join(ws.parent, "config")
  fs.mkdirSync(path.join(config, "minicode"), { recursive: true })
  fs.writeFileSync(path.join(config, "minicode", "config.json"), JSON.stringify(sql === undefined ? {} : { sql }))
  const s = await connect(ws.root, ["--sandbox", "none"], undefined, { XDG_CONFIG_HOME: config })
  cleanups.push(() => s.close().catch(() => undefined))
  const tools = (await s.client.listTools()).tools
  return { sqlQuery: tools.find((t) => t.name === "sql_query")?.description ?? "", readFile: tools.find((t) => t.name === "read_file")?.description ?? "" }
}

describe("mcp serve: sql_query's description names the configured connections", () => {
  it("names, engines and modes, sorted; no URL, host, file or password", async () => {
    const { sqlQuery, readFile } = await describeSql({
      prod: { url: "postgres://admin:s3cret@db.internal.example:5432/app" },
      shop: { url: "mysql://reader:hunter2@shop-db.example/shop", timeoutMs: 2000 },
      scratch: { sqlite: "/srv/private/scratch.db", allowWrite: true }
    })
    expect(sqlQuery).toMatch(/^Query a database \(read-only unless write is set and allowed\)\. /)
    expect(sqlQuery).toContain("Configured connections: prod (postgres, read-only), scratch (sqlite, writes allowed), shop (mysql/mariadb, read-only).")
    for (const secret of ["s3cret", "hunter2", "admin", "reader", "db.internal", "shop-db", "5432", "/srv/private", "scratch.db", "://"]) {
      expect(sqlQuery).not.toContain(secret)
    }
    expect(readFile).not.toContain("connections")
  }, 60_000)

  it("without connections it says how to name a database file", async () => {
    const { sqlQuery } = await describeSql(undefined)
    expect(sqlQuery).toContain("No connections are configured: name a workspace .db/.sqlite file as connection.")
  }, 60_000)
})
