/**
 * End to end: results with structure declare an outputSchema in tools/list and return structuredContent beside
 * the text (the SDK client checks the one against the other, and Ajv in strict mode here): list_dir entries,
 * git_status entries, grep matches, sql_query rows with columns and types, lsp_diagnostics (a scripted server).
 */
import { Ajv } from "ajv"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as path from "node:path"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import * as Postgres from "../support/Postgres.js"
import { connect, ensureBuilt, isErrorResult, makeGitWorkspace, makeWorkspace, repo, textOf } from "./support/McpServeHarness.js"

const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})
beforeAll(() => ensureBuilt(), 120_000)

describe("mcp serve: structuredContent and outputSchema", () => {
  it("list_dir and git_status give their entries as data, matching the schema they declare; the text stays", async () => {
    const ws = makeGitWorkspace()
    cleanups.push(ws.cleanup)
    fs.mkdirSync(path.join(ws.root, "src"))
    fs.writeFileSync(path.join(ws.root, "a.txt"), "one\n")
    ws.git("add", "a.txt")
    ws.git("commit", "-q", "-m", "first")
    fs.writeFileSync(path.join(ws.root, "a.txt"), "two\n")
    fs.writeFileSync(path.join(ws.root, "b.txt"), "new\n")
    const s = await connect(ws.root, ["--sandbox", "none"])
    cleanups.push(() => s.close().catch(() => undefined))
    const tools = (await s.client.listTools()).tools
    expect(tools.find((t) => t.name === "list_dir")?.outputSchema).toMatchObject({ type: "object", required: ["entries", "truncated"] })
    expect(tools.find((t) => t.name === "read_file")?.outputSchema).toBeUndefined()
    // The client validates structuredContent against the listed outputSchema: a mismatch would throw here.
    const list = await s.client.callTool({ name: "list_dir", arguments: { path: "." } })
    expect(isErrorResult(list)).toBe(false)
    expect(textOf(list)).toContain("src/")
    expect(list.structuredContent).toEqual({
      entries: [
        { name: ".git", kind: "directory" },
        { name: "src", kind: "directory" },
        { name: "a.txt", kind: "file" },
        { name: "b.txt", kind: "file" }
      ],
      truncated: false
    })
    const status = await s.client.callTool({ name: "git_status", arguments: {} })
    expect(textOf(status)).toContain("a.txt")
    expect(status.structuredContent).toMatchObject({
      branch: expect.stringContaining("main"),
      entries: expect.arrayContaining([{ status: " M", path: "a.txt" }, { status: "??", path: "b.txt" }]),
      truncated: false
    })
    // An error result has no structured content.
    const missing = await s.client.callTool({ name: "list_dir", arguments: { path: "nope" } })
    expect(isErrorResult(missing)).toBe(true)
    expect(missing.structuredContent).toBeUndefined()
  })
})

const fakeLsp = path.join(repo, "test/support/lsp-fake-server.mjs")
const Database = createRequire(import.meta.url)("better-sqlite3") as new (file: string) => { exec(sql: string): unknown; close(): void }

/** A config folder whose language server for `.fake` files is the scripted one, in `mode`. */
const lspConfig = (dir: string, mode: string) => {
  fs.mkdirSync(path.join(dir, "minicode"), { recursive: true })
  const entry = { command: process.execPath, args: [fakeLsp, mode, path.join(dir, "marker")] }
  fs.writeFileSync(path.join(dir, "minicode", "config.json"), JSON.stringify({ lsp: { ".fake": entry } }))
}

describe("mcp serve: structured grep matches, diagnostics and SQL rows", () => {
  it("each validates against the outputSchema tools/list declares (Ajv strict), beside the same text as before", async () => {
    const ws = makeWorkspace()
    cleanups.push(ws.cleanup)
    fs.mkdirSync(path.join(ws.root, "src"))
    fs.writeFileSync(path.join(ws.root, "src", "a.ts"), "const needle = 1\nother\nneedle again\n")
    fs.writeFileSync(path.join(ws.root, "b.txt"), "a needle here\n")
    fs.writeFileSync(path.join(ws.root, "bin.dat"), Buffer.from([0, 1, 2, ...Buffer.from("needle"), 0]))
    fs.writeFileSync(path.join(ws.root, "main.fake"), "x\ny\nz\n")
    const db = new Database(path.join(ws.root, "app.db"))
    db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, big INTEGER, raw BLOB); INSERT INTO t VALUES (1, 'ann', 9007199254740993, x'01ff'), (2, NULL, 2, NULL)")
    db.close()
    const config = path.join(ws.parent, "config")
    lspConfig(config, "pull")
    const s = await connect(ws.root, ["--sandbox", "none"], undefined, { XDG_CONFIG_HOME: config })
    cleanups.push(() => s.close().catch(() => undefined))
    const tools = (await s.client.listTools()).tools
    const validator = (name: string) => {
      const schema = tools.find((t) => t.name === name)?.outputSchema
      expect(schema, name).toBeDefined()
      const ajv = new Ajv({ strict: true, allErrors: true })
      const validate = ajv.compile(schema ?? {})
      return (data: unknown) => {
        expect(validate(data), `${name}: ${ajv.errorsText(validate.errors)} in ${JSON.stringify(data)}`).toBe(true)
      }
    }

    const grep = await s.client.callTool({ name: "grep", arguments: { pattern: "needle" } })
    expect(isErrorResult(grep), textOf(grep)).toBe(false)
    expect(textOf(grep)).toBe("b.txt:1:a needle here\nsrc/a.ts:1:const needle = 1\nsrc/a.ts:3:needle again\n[binary file bin.dat matches]")
    validator("grep")(grep.structuredContent)
    expect(grep.structuredContent).toEqual({
      matches: [
        { path: "b.txt", line: 1, text: "a needle here" },
        { path: "src/a.ts", line: 1, text: "const needle = 1" },
        { path: "src/a.ts", line: 3, text: "needle again" }
      ],
      total: 3,
      binaryFiles: ["bin.dat"],
      truncated: false
    })
    const none = await s.client.callTool({ name: "grep", arguments: { pattern: "absent-word" } })
    expect(textOf(none)).toBe("no matches for /absent-word/")
    expect(none.structuredContent).toEqual({ matches: [], total: 0, binaryFiles: [], truncated: false })

    const sql = await s.client.callTool({ name: "sql_query", arguments: { connection: "app.db", sql: "SELECT id, name, big, raw FROM t ORDER BY id" } })
    expect(isErrorResult(sql), textOf(sql)).toBe(false)
    expect(textOf(sql)).toContain("(2 rows)")
    expect(textOf(sql)).toMatch(/^id +\| name +\| big +\| raw/)
    validator("sql_query")(sql.structuredContent)
    expect(sql.structuredContent).toEqual({
      results: [
        {
          columns: ["id", "name", "big", "raw"],
          // SQLite's engine names no types.
          types: null,
          rows: [
            [1, "ann", "9007199254740993", "\\x01ff"],
            [2, null, 2, null]
          ],
          truncated: false
        }
      ]
    })
    const capped = await s.client.callTool({ name: "sql_query", arguments: { connection: "app.db", sql: "SELECT id FROM t ORDER BY id", max_rows: 1 } })
    validator("sql_query")(capped.structuredContent)
    expect(capped.structuredContent).toMatchObject({ results: [{ rows: [[1]], truncated: true }] })

    const diagnostics = await s.client.callTool({ name: "lsp_diagnostics", arguments: { path: "main.fake" } })
    expect(isErrorResult(diagnostics), textOf(diagnostics)).toBe(false)
    expect(textOf(diagnostics)).toContain("main.fake:1:1 warning: fake warning")
    expect(textOf(diagnostics)).toContain("dependent.fake:3:5 error: fake error in a dependent")
    validator("lsp_diagnostics")(diagnostics.structuredContent)
    expect(diagnostics.structuredContent).toEqual({
      path: "main.fake",
      diagnostics: [{ line: 1, column: 1, endLine: 1, endColumn: 2, severity: "warning", code: null, source: null, message: "fake warning" }],
      complete: true,
      related: [
        { path: "dependent.fake", diagnostics: [{ line: 3, column: 5, endLine: 3, endColumn: 6, severity: "error", code: null, source: null, message: "fake error in a dependent" }] }
      ],
      truncated: false
    })
    // A failed call gives no structured content.
    const bad = await s.client.callTool({ name: "sql_query", arguments: { connection: "app.db", sql: "SELECT nope FROM t" } })
    expect(isErrorResult(bad)).toBe(true)
    expect(bad.structuredContent).toBeUndefined()
  }, 60_000)
})

describe.runIf(Postgres.hasPostgres)("mcp serve: sql_query's structured rows on PostgreSQL", () => {
  let cluster: Postgres.Cluster | undefined
  beforeAll(() => {
    cluster = Postgres.start()
  }, 120_000)
  afterAll(() => cluster?.stop())

  it("columns with the database's types, rows as data (dates as dates, jsonb as JSON, arrays in their SQL form), valid against the schema", async () => {
    const ws = makeWorkspace()
    cleanups.push(ws.cleanup)
    const config = path.join(ws.parent, "config")
    fs.mkdirSync(path.join(config, "minicode"), { recursive: true })
    fs.writeFileSync(path.join(config, "minicode", "config.json"), JSON.stringify({ sql: { pg: { url: cluster?.url ?? "" } } }))
    const s = await connect(ws.root, ["--sandbox", "none"], undefined, { XDG_CONFIG_HOME: config })
    cleanups.push(() => s.close().catch(() => undefined))
    const schema = (await s.client.listTools()).tools.find((t) => t.name === "sql_query")?.outputSchema
    const ajv = new Ajv({ strict: true, allErrors: true })
    const validate = ajv.compile(schema ?? {})
    const sql = "SELECT 1::int4 AS id, 'ann'::text AS name, DATE '2023-03-01' AS born, 9007199254740993::int8 AS big, '{\"a\":[1,2]}'::jsonb AS doc, ARRAY['x','y']::text[] AS tags, NULL::numeric AS price"
    const result = await s.client.callTool({ name: "sql_query", arguments: { connection: "pg", sql } })
    expect(isErrorResult(result), textOf(result)).toBe(false)
    expect(textOf(result)).toContain("(1 row)")
    expect(validate(result.structuredContent), ajv.errorsText(validate.errors)).toBe(true)
    expect(result.structuredContent).toEqual({
      results: [
        {
          columns: ["id", "name", "born", "big", "doc", "tags", "price"],
          types: ["integer", "text", "date", "bigint", "jsonb", "text[]", "numeric"],
          // An array in PostgreSQL's own text form, so text[] and jsonb stay distinguishable (as in the text table).
          rows: [[1, "ann", "2023-03-01", "9007199254740993", { a: [1, 2] }, "{x,y}", null]],
          truncated: false
        }
      ]
    })
    expect(JSON.stringify(result)).not.toContain(cluster?.password ?? "never")
  }, 60_000)
})
