/**
 * End to end: long work other than bash is visible too. The BUILT `minicode mcp serve` (progress every 10 ms here,
 * `MINICODE_PROGRESS_MS`, so no timing is assumed) with the SDK's real Client: grep and repo_map over a generated
 * tree, a language server loading its project and an SQL query, send notifications/progress carrying what they are doing, then
 * their whole result; bash running without a sandbox is told once per server as a logging warning.
 */
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as path from "node:path"
import { LoggingMessageNotificationSchema, type Progress } from "@modelcontextprotocol/sdk/types.js"
import { afterEach, beforeAll, describe, expect, it } from "vitest"
import { connect, ensureBuilt, isErrorResult, makeWorkspace, repo, sleep, textOf } from "./support/McpServeHarness.js"

const Database = createRequire(import.meta.url)("better-sqlite3") as new (file: string) => { exec(sql: string): unknown; close(): void }

const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})
beforeAll(() => ensureBuilt(), 120_000)

/** `dirs` folders of `perDir` TypeScript files, each defining and using a function; every 100th mentions a needle. */
const tree = (root: string, dirs: number, perDir: number) => {
  for (let d = 0; d < dirs; d++) {
    const dir = path.join(root, `pkg${d}`)
    fs.mkdirSync(dir)
    for (let f = 0; f < perDir; f++) {
      const n = d * perDir + f
      const body = `export function f${n}(x: number): number {\n  return x + ${n}\n}\nexport const use${n} = f${n}(${n % 7})\n${n % 100 === 0 ? "// needle\n" : ""}`
      fs.writeFileSync(path.join(dir, `m${f}.ts`), body)
    }
  }
}

const start = async (env: Readonly<Record<string, string>> = {}, flags: ReadonlyArray<string> = ["--sandbox", "none"]) => {
  const ws = makeWorkspace()
  cleanups.push(ws.cleanup)
  const s = await connect(ws.root, flags, undefined, { MINICODE_PROGRESS_MS: "10", XDG_CACHE_HOME: path.join(ws.parent, "cache"), XDG_CONFIG_HOME: path.join(ws.parent, "config"), ...env })
  cleanups.push(() => s.close().catch(() => undefined))
  return { ...ws, ...s }
}

const withProgress = async (client: Awaited<ReturnType<typeof start>>["client"], name: string, args: Record<string, unknown>) => {
  const seen: Array<Progress> = []
  const result = await client.callTool({ name, arguments: args }, undefined, { onprogress: (p) => seen.push(p), timeout: 120_000 })
  return { result, seen, messages: seen.map((p) => p.message ?? "") }
}

const increasing = (seen: ReadonlyArray<Progress>) => {
  const values = seen.map((p) => p.progress)
  expect(values).toEqual([...values].sort((a, b) => a - b))
  expect(new Set(values).size).toBe(values.length)
}

describe("mcp serve: progress from grep, repo_map and language servers", () => {
  it("grep over 5000 files (its own walk): notes of how many files were searched, then every match", async () => {
    const s = await start({ MINICODE_GREP: "node" })
    tree(s.root, 50, 100)
    const { result, seen, messages } = await withProgress(s.client, "grep", { pattern: "needle" })
    expect(isErrorResult(result), textOf(result)).toBe(false)
    expect(textOf(result).split("\n")).toHaveLength(50)
    expect(result.structuredContent).toMatchObject({ total: 50, truncated: false })
    increasing(seen)
    // The files are searched as the walk lists them (a step of folders at a time): by the end all 5000 are listed.
    expect(messages.some((m) => /^grep: \d+ files searched \(5000 listed so far\), \d+ matches$/.test(m)), messages.join("\n")).toBe(true)
    for (const m of messages) expect(m).toMatch(/^(grep: \d+ files searched \(\d+ listed so far\), \d+ matches|grep: listing files( \(\d+ entries so far\))?|grep: searching with ripgrep|running \(\d+ s\))$/)
  }, 120_000)

  it("grep over 5000 files through ripgrep: notes of the matches so far, then every match", async () => {
    const s = await start()
    tree(s.root, 50, 100)
    // A big file of matches keeps rg streaming long enough for a tick at 10 ms.
    fs.writeFileSync(path.join(s.root, "big.txt"), "needle here\n".repeat(400_000))
    const { result, seen, messages } = await withProgress(s.client, "grep", { pattern: "needle" })
    expect(isErrorResult(result), textOf(result)).toBe(false)
    expect(result.structuredContent).toMatchObject({ total: 400_050, truncated: true })
    increasing(seen)
    for (const m of messages) expect(m).toMatch(/^(grep: \d+ matches so far \(ripgrep, now in [^)]+\)|grep: \d+ files searched \(\d+ listed so far\), \d+ matches|grep: listing files( \(\d+ entries so far\))?|grep: searching with ripgrep|running \(\d+ s\))$/)
  }, 120_000)

  it("repo_map over 3000 source files: notes of the scan, then the map", async () => {
    const s = await start()
    tree(s.root, 30, 100)
    const { result, seen, messages } = await withProgress(s.client, "repo_map", {})
    expect(isErrorResult(result), textOf(result)).toBe(false)
    expect(textOf(result)).toContain("covers all 3000 source files")
    increasing(seen)
    expect(messages.some((m) => /^repo_map: \d+ source files scanned \(3000 files listed\)$/.test(m)), messages.join("\n")).toBe(true)
    // Without a token the same call sends none.
    let notified = 0
    s.client.fallbackNotificationHandler = async (n) => {
      if (n.method === "notifications/progress") notified++
    }
    const again = await s.client.callTool({ name: "repo_map", arguments: {} })
    expect(textOf(again)).toContain("covers all 3000 source files")
    expect(notified).toBe(0)
  }, 120_000)

  it("a language server's start-up and loading are told while lsp_diagnostics waits", async () => {
    const ws = makeWorkspace()
    cleanups.push(ws.cleanup)
    const config = path.join(ws.parent, "config")
    fs.mkdirSync(path.join(config, "minicode"), { recursive: true })
    const entry = { command: process.execPath, args: [path.join(repo, "test/support/lsp-fake-server.mjs"), "loading", path.join(ws.parent, "marker")] }
    fs.writeFileSync(path.join(config, "minicode", "config.json"), JSON.stringify({ lsp: { ".fake": entry } }))
    fs.writeFileSync(path.join(ws.root, "main.fake"), "x\n")
    const s = await connect(ws.root, ["--sandbox", "none"], undefined, { MINICODE_PROGRESS_MS: "10", XDG_CONFIG_HOME: config })
    cleanups.push(() => s.close().catch(() => undefined))
    const { result, seen, messages } = await withProgress(s.client, "lsp_diagnostics", { path: "main.fake" })
    expect(isErrorResult(result), textOf(result)).toBe(false)
    expect(textOf(result)).toContain("fake warning")
    increasing(seen)
    expect(messages.some((m) => m.endsWith(": Loading the project")), messages.join("\n")).toBe(true)
  }, 60_000)
})

describe("mcp serve: progress from SQL", () => {
  it("a query that runs to its time limit: notes of what runs where, then its answer", async () => {
    const s = await start()
    const db = new Database(path.join(s.root, "app.db"))
    db.exec("CREATE TABLE t (x INTEGER)")
    db.close()
    const runaway = "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r"
    const { result, seen, messages } = await withProgress(s.client, "sql_query", { connection: "app.db", sql: runaway, timeout_ms: 500 })
    expect(isErrorResult(result)).toBe(true)
    expect(textOf(result)).toMatch(/time limit/)
    increasing(seen)
    expect(messages).toContain("sql_query: running 1 statement on app.db")
  }, 60_000)
})

describe("mcp serve: bash without a sandbox is told once", () => {
  it("sandbox auto finding no usable bubblewrap: one warning for the server's life, however many commands run", async () => {
    const ws = makeWorkspace()
    cleanups.push(ws.cleanup)
    // A bwrap that cannot work, first on PATH: the probe finds it unusable, as on a host without user namespaces.
    const fakeBin = path.join(ws.parent, "bin")
    fs.mkdirSync(fakeBin)
    fs.writeFileSync(path.join(fakeBin, "bwrap"), "#!/bin/sh\necho 'bwrap: no user namespaces' >&2\nexit 1\n", { mode: 0o755 })
    const s = await connect(ws.root, [], undefined, { PATH: `${fakeBin}:${process.env["PATH"] ?? "/usr/bin:/bin"}`, XDG_CONFIG_HOME: path.join(ws.parent, "config") })
    cleanups.push(() => s.close().catch(() => undefined))
    const got: Array<{ level: string; data: unknown }> = []
    s.client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      got.push({ level: n.params.level, data: n.params.data })
    })
    for (const word of ["one", "two", "three"]) {
      const r = await s.client.callTool({ name: "bash", arguments: { command: `echo ${word}` } })
      expect(isErrorResult(r), textOf(r)).toBe(false)
      expect(textOf(r)).toContain(word)
    }
    const status = await s.client.callTool({ name: "list_dir", arguments: { path: "." } })
    expect(isErrorResult(status)).toBe(false)
    for (let i = 0; i < 20 && got.length === 0; i++) await sleep(50)
    const warnings = got.filter((m) => typeof m.data === "string" && m.data.includes("without a sandbox"))
    expect(warnings).toEqual([{ level: "warning", data: expect.stringMatching(/^bash runs without a sandbox: .*--version failed.*--sandbox bwrap/) }])
  }, 60_000)

  it("--sandbox none: one warning naming the configuration, and none before bash runs", async () => {
    const s = await start({}, ["--sandbox", "none"])
    const got: Array<unknown> = []
    s.client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      got.push(n.params.data)
    })
    const listed = await s.client.callTool({ name: "list_dir", arguments: { path: "." } })
    expect(isErrorResult(listed)).toBe(false)
    await sleep(200)
    expect(got).toEqual([])
    for (const word of ["one", "two"]) expect(textOf(await s.client.callTool({ name: "bash", arguments: { command: `echo ${word}` } }))).toContain(word)
    for (let i = 0; i < 20 && got.length === 0; i++) await sleep(50)
    expect(got).toEqual(["bash runs without a sandbox: disabled by configuration (sandbox: none) (--sandbox bwrap refuses bash instead)"])
  }, 60_000)
})
