/**
 * End to end: the BUILT `minicode mcp serve` (node dist/bin.js) driven by the SDK's real Client over
 * StdioClientTransport, and raw over its stdin for what a well-behaved client never sends.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { beforeAll, describe, expect, it } from "vitest"
import * as Tools from "../../src/domain/core/Tools.js"
import {
  connect,
  cpuMs,
  ensureBuilt,
  isErrorResult,
  makeWorkspace,
  Raw,
  sleep,
  slowGrepFixture,
  snapshot,
  textOf,
  workspaces
} from "./support/McpServeHarness.js"

const { cleanups, workspace } = workspaces(makeWorkspace)

const server = async (root: string, flags: ReadonlyArray<string> = [], roots?: ReadonlyArray<string>) => {
  const s = await connect(root, flags, roots)
  cleanups.push(() => s.close().catch(() => undefined))
  return s
}

const raw = (root: string, flags: ReadonlyArray<string> = []) => {
  const r = new Raw(root, flags)
  cleanups.push(() => r.kill())
  return r
}

const names = async (root: string, flags: ReadonlyArray<string> = []) => {
  const { client } = await server(root, flags)
  return (await client.listTools()).tools.map((t) => t.name)
}

/** Arguments every tool accepts (valid by its Schema). */
const sample: { readonly [K in Tools.ToolName]: Record<string, unknown> } = {
  read_file: { path: "a.txt" },
  write_file: { path: "new/w.txt", content: "written\n" },
  edit_file: { path: "a.txt", old_string: "hello", new_string: "hullo" },
  list_dir: { path: "." },
  glob: { pattern: "**/*.txt" },
  grep: { pattern: "hu?llo" },
  move_file: { from: "m.txt", to: "moved/m.txt" },
  delete_file: { path: "d.txt" },
  bash: { command: "echo hi" },
  git_status: {},
  git_diff: {},
  git_log: { limit: 1 },
  git_show: { rev: "HEAD" },
  git_commit: { message: "m", paths: ["a.txt"] },
  git_push: {},
  lsp_diagnostics: { path: "a.txt" },
  lsp_definition: { path: "a.txt", line: 1, character: 1 },
  lsp_references: { path: "a.txt", line: 1, character: 1 },
  lsp_hover: { path: "a.txt", line: 1, character: 1 },
  lsp_implementation: { path: "a.txt", line: 1, character: 1 },
  lsp_incoming_calls: { path: "a.txt", line: 1, character: 1 },
  lsp_outgoing_calls: { path: "a.txt", line: 1, character: 1 },
  lsp_symbols: { path: "a.txt" },
  lsp_workspace_symbols: { query: "x" },
  repo_map: {},
  sql_query: { sql: "select 1" },
  sql_schema: {},
  sql_connections: {},
  mcp_list: {},
  mcp_call: { server: "s", tool: "t" },
  mcp_read: { server: "s", uri: "u://x" },
  mcp_prompt: { server: "s", name: "p" },
  web_fetch: { url: "https://example.com" }
}

beforeAll(() => ensureBuilt(), 120_000)

describe("minicode mcp serve (built binary, SDK client)", () => {
  it("negotiates the protocol version: the client's when supported", async () => {
    const { root } = workspace()
    for (const version of ["2024-11-05", "2025-03-26", "2025-06-18"]) {
      const r = raw(root)
      const reply = await r.init(version)
      expect(reply.result).toMatchObject({ protocolVersion: version, serverInfo: { name: "minicode" } })
      expect(JSON.stringify(reply.result)).toContain("Read before you edit")
      r.kill()
    }
    const r = raw(root)
    const unknown = await r.init("1999-01-01")
    expect(unknown.result).toMatchObject({ protocolVersion: expect.stringMatching(/^20\d\d-/) })
    const { client } = await server(root)
    expect(client.getServerVersion()).toMatchObject({ name: "minicode" })
    expect(client.getInstructions()).toContain("not a reason")
    const prompts = await client.listPrompts()
    expect(prompts.prompts.map((p) => p.name)).toEqual(["minicode-guide"])
    const prompt = await client.getPrompt({ name: "minicode-guide" })
    expect(JSON.stringify(prompt.messages)).toContain("List before you guess")
  })

  it("lists tools per scope setting", async () => {
    const { root } = workspace()
    const defaults = await names(root)
    expect(defaults).toEqual(expect.arrayContaining(["read_file", "write_file", "edit_file", "grep", "glob", "bash", "git_status", "lsp_hover", "sql_query", "repo_map"]))
    for (const hidden of ["git_commit", "git_push", "mcp_list", "mcp_call", "web_fetch"]) expect(defaults).not.toContain(hidden)
    const narrowed = await names(root, ["--scope", "files=read", "--scope", "shell=off", "--scope", "search=off", "--scope", "sql=off"])
    expect(narrowed).toContain("read_file")
    for (const hidden of ["write_file", "edit_file", "delete_file", "bash", "grep", "glob", "sql_query"]) expect(narrowed).not.toContain(hidden)
    const gitWrite = await names(root, ["--scope", "git=write"])
    expect(gitWrite).not.toContain("git_commit")
    const allowAll = await names(root, ["--scope", "git=write", "--allow-all"])
    expect(allowAll).toEqual(expect.arrayContaining(["git_commit", "git_push"]))
    const allTools = await names(root, ["--all-tools"])
    expect(allTools).toEqual(expect.arrayContaining(["mcp_list", "web_fetch"]))
    expect(allTools).not.toContain("mcp_call")
    const { client } = await server(root)
    const listed = (await client.listTools()).tools.find((t) => t.name === "read_file")
    expect(listed?.inputSchema).toMatchObject({ type: "object", required: ["path"] })
    expect(listed?.annotations?.readOnlyHint).toBe(true)
  })

  it("calls every tool: file tools work, the rest answer cleanly", async () => {
    const { root } = workspace()
    fs.writeFileSync(path.join(root, "a.txt"), "hello\n")
    fs.writeFileSync(path.join(root, "m.txt"), "move me\n")
    fs.writeFileSync(path.join(root, "d.txt"), "delete me\n")
    const { client } = await server(root, ["--allow-all", "--all-tools", "--scope", "git=write"])
    const listed = (await client.listTools()).tools.map((t) => t.name)
    const results: Record<string, string> = {}
    for (const name of Tools.toolNames) {
      const result = await client.callTool({ name, arguments: sample[name] })
      results[name] = `${isErrorResult(result) ? "error" : "ok"}: ${textOf(result)}`
      if (!listed.includes(name)) expect(isErrorResult(result)).toBe(true)
    }
    expect(results["read_file"]).toMatch(/^ok: .*hello/)
    expect(results["write_file"]).toMatch(/^ok: created new\/w\.txt/)
    expect(fs.readFileSync(path.join(root, "new/w.txt"), "utf8")).toBe("written\n")
    expect(results["edit_file"]).toMatch(/^ok: edited a\.txt/)
    expect(fs.readFileSync(path.join(root, "a.txt"), "utf8")).toBe("hullo\n")
    expect(results["list_dir"]).toMatch(/^ok: .*a\.txt/s)
    expect(results["glob"]).toMatch(/^ok: .*new\/w\.txt/s)
    expect(results["grep"]).toMatch(/^ok: a\.txt:1:hullo/)
    expect(results["move_file"]).toMatch(/^ok: moved m\.txt/)
    expect(fs.existsSync(path.join(root, "moved/m.txt"))).toBe(true)
    expect(results["delete_file"]).toMatch(/^ok: deleted d\.txt/)
    expect(fs.existsSync(path.join(root, "d.txt"))).toBe(false)
    // Tools without a configured server (LSP, SQL, MCP): a clear error result, never a hang or a protocol failure.
    for (const name of Tools.toolNames) expect(results[name]).toMatch(/^(ok|error): ./)
    expect(results["bash"]).toMatch(/^ok: /)
  })

  it("rejects invalid arguments with a message naming the field, before anything runs", async () => {
    const { root } = workspace()
    const { client } = await server(root)
    const missing = await client.callTool({ name: "write_file", arguments: { path: "x.txt" } })
    expect(isErrorResult(missing)).toBe(true)
    expect(textOf(missing)).toMatch(/content/)
    const wrong = await client.callTool({ name: "read_file", arguments: { path: "x.txt", limit: "ten" } })
    expect(textOf(wrong)).toMatch(/limit/)
    const extra = await client.callTool({ name: "write_file", arguments: { path: "x.txt", content: "c", mode: 777 } })
    expect(textOf(extra)).toMatch(/mode/)
    expect(fs.existsSync(path.join(root, "x.txt"))).toBe(false)
    await expect(client.callTool({ name: "no_such_tool", arguments: {} })).rejects.toThrow(/unknown tool/)
  })

  it("refuses unlisted tools at call time and denies paths outside the workspace, whatever the client's roots", async () => {
    const { root, parent } = workspace()
    fs.symlinkSync(parent, path.join(root, "up"))
    const before = snapshot(parent, root)
    const { client } = await server(root, ["--scope", "files=read"], ["/"])
    const write = await client.callTool({ name: "write_file", arguments: { path: "x.txt", content: "x" } })
    expect(isErrorResult(write)).toBe(true)
    expect(textOf(write)).toMatch(/--scope files=write/)
    const commit = await client.callTool({ name: "git_commit", arguments: { message: "m", paths: ["x"] } })
    expect(textOf(commit)).toMatch(/refused/)
    for (const p of ["../outside.txt", path.join(parent, "outside.txt"), "up/outside.txt", "/etc/passwd", "~/.ssh/id_rsa"]) {
      const read = await client.callTool({ name: "read_file", arguments: { path: p } })
      expect(isErrorResult(read), p).toBe(true)
      expect(textOf(read), p).toMatch(/denied/)
      expect(textOf(read), p).not.toContain(parent)
      expect(textOf(read), p).not.toContain("sentinel")
    }
    expect(snapshot(parent, root)).toEqual(before)
  })
})

describe("minicode mcp serve (built binary, raw JSON-RPC)", () => {
  it("runs concurrent duplicates once (verified on disk), replays a retry, refuses a conflicting reuse", async () => {
    const { root } = workspace()
    fs.writeFileSync(path.join(root, "log.txt"), "x\n")
    const r = raw(root)
    await r.init()
    const edit = { path: "log.txt", old_string: "x\n", new_string: "x\nx\n" }
    for (let i = 0; i < 5; i++) r.call(42, "edit_file", edit)
    const replies = await Promise.all([1, 2, 3, 4, 5].map((n) => r.reply(42, n)))
    expect(fs.readFileSync(path.join(root, "log.txt"), "utf8")).toBe("x\nx\n")
    for (const reply of replies) expect(reply.result).toEqual(replies[0]?.result)
    expect(textOf(replies[0]?.result)).toMatch(/edited log\.txt/)
    r.call(42, "edit_file", edit)
    const replay = await r.reply(42, 6)
    expect(replay.result).toEqual(replies[0]?.result)
    expect(fs.readFileSync(path.join(root, "log.txt"), "utf8")).toBe("x\nx\n")
    r.call(42, "write_file", { path: "log.txt", content: "clobber" })
    const conflict = await r.reply(42, 7)
    expect(conflict.error?.code).toBe(-32081)
    expect(fs.readFileSync(path.join(root, "log.txt"), "utf8")).toBe("x\nx\n")
    r.call("42", "read_file", { path: "log.txt" })
    expect(textOf((await r.reply("42")).result)).toMatch(/x/)
  })

  // Clients number their ids afresh in each session: a call the earlier run answered is a new call in the next
  // one (a killed run's unanswered call is the retry case: McpServe.retry.e2e.test.ts).
  it("after a clean restart, the same id and arguments are a new call and execute again", async () => {
    const { root } = workspace()
    const first = raw(root)
    await first.init()
    first.call(5, "write_file", { path: "once.txt", content: "1" })
    await first.reply(5)
    first.child.stdin.end()
    await first.exit()
    fs.rmSync(path.join(root, "once.txt"))
    const second = raw(root)
    await second.init()
    second.call(5, "write_file", { path: "once.txt", content: "1" })
    const again = await second.reply(5)
    expect(again.error).toBeUndefined()
    expect(fs.readFileSync(path.join(root, "once.txt"), "utf8")).toBe("1")
  })

  it("answers malformed JSON with -32700 and an oversized line with its id, then keeps serving", async () => {
    const { root } = workspace()
    const r = raw(root)
    await r.init()
    r.send("{this is not json")
    r.send('{"jsonrpc":"2.0","id":')
    r.send("[1,2,3]")
    r.send('{"jsonrpc":"2.0","id":9,"method":5}')
    r.send({ jsonrpc: "2.0", id: 10, method: "tools/list" })
    await r.reply(10)
    expect(r.replies.filter((x) => x.id === null && x.error?.code === -32700)).toHaveLength(2)
    expect(r.replies.some((x) => x.id === null && x.error?.code === -32600)).toBe(true)
    expect((await r.reply(9)).error?.code).toBe(-32600)
    // 6 MB, over the 4 MB cap: refused by id, never written.
    r.send({ jsonrpc: "2.0", method: "tools/call", params: { name: "write_file", arguments: { path: "huge.txt", content: "z".repeat(6 * 1024 * 1024) } }, id: 77 })
    const refused = await r.reply(77)
    expect(refused.error?.code).toBe(-32084)
    expect(refused.error?.message).toMatch(/too large/i)
    expect(fs.existsSync(path.join(root, "huge.txt"))).toBe(false)
    r.send({ jsonrpc: "2.0", id: 78, method: "ping" })
    expect((await r.reply(78)).result).toEqual({})
  })

  it("drains on end of input: the call in flight is answered, then the process exits 0", async () => {
    const { root } = workspace()
    fs.writeFileSync(path.join(root, "a.txt"), "bye\n")
    const r = raw(root)
    await r.init()
    r.call(1, "read_file", { path: "a.txt" })
    r.child.stdin.end()
    expect(textOf((await r.reply(1)).result)).toMatch(/bye/)
    expect(await r.exit()).toBe(0)
  })

  it("a client that stops reading and then goes away: replies pile up to a bound, then the server exits 0 (no EPIPE crash)", async () => {
    const { root } = workspace()
    const big = "x".repeat(99) + "\n"
    for (let i = 0; i < 10; i++) fs.writeFileSync(path.join(root, `big${i}.txt`), big.repeat(2000))
    const r = raw(root)
    await r.init()
    r.child.stdout.pause()
    // ~200 KB per reply: 100 of them are far over the 1 MB the server queues before it stops reading requests.
    for (let i = 0; i < 100; i++) r.call(i + 1, "read_file", { path: `big${i % 10}.txt` })
    await sleep(1500)
    r.child.stdout.destroy()
    expect(await r.exit()).toBe(0)
    expect(r.child.stdin.writableEnded).toBe(false)
  })

  it("drains on SIGTERM with a deadline, then exits", async () => {
    const { root } = workspace()
    const fixture = slowGrepFixture(root)
    const r = raw(root)
    await r.init()
    r.call(1, "grep", { pattern: fixture.pattern, path: fixture.path })
    await sleep(300)
    const started = Date.now()
    r.child.kill("SIGTERM")
    expect(await r.exit()).toBe(0)
    expect(Date.now() - started).toBeLessThan(10_000)
  })
})

describe("minicode mcp serve (built binary): cancellation and the in-flight cap", () => {
  it("notifications/cancelled interrupts exactly that request: the long call stops using CPU, the other completes", async () => {
    const { root } = workspace()
    const fixture = slowGrepFixture(root)
    fs.writeFileSync(path.join(root, "a.txt"), "still here\n")
    const { client, pid } = await server(root)
    const abort = new AbortController()
    const long = client.callTool({ name: "grep", arguments: { pattern: fixture.pattern, path: fixture.path } }, undefined, { signal: abort.signal, timeout: 120_000 })
    const other = client.callTool({ name: "read_file", arguments: { path: "a.txt" } })
    await sleep(500)
    // Busy: the server burns CPU on the long call. Measured until it has used 100 ms more (a fixed 300 ms window
    // saw exactly 100 ms on a CI whose other test files held the cores), at most 10 s.
    const busyBefore = cpuMs(pid)
    for (let i = 0; i < 100 && cpuMs(pid) - busyBefore <= 100; i++) await sleep(100)
    expect(cpuMs(pid) - busyBefore).toBeGreaterThan(100)
    abort.abort("user pressed stop")
    await expect(long).rejects.toThrow()
    expect(textOf(await other)).toMatch(/still here/)
    await sleep(300)
    const idleBefore = cpuMs(pid)
    await sleep(700)
    expect(cpuMs(pid) - idleBefore).toBeLessThan(150)
    const after = await client.callTool({ name: "read_file", arguments: { path: "a.txt" } })
    expect(textOf(after)).toMatch(/still here/)
  })

  it("33 concurrent calls: 32 run, one is refused as busy at once, never a hang", async () => {
    const { root } = workspace()
    const fixture = slowGrepFixture(root, 200)
    const { client } = await server(root)
    const aborts = Array.from({ length: 33 }, () => new AbortController())
    const calls = aborts.map((a) =>
      client
        .callTool({ name: "grep", arguments: { pattern: fixture.pattern, path: fixture.path } }, undefined, { signal: a.signal, timeout: 120_000 })
        .then(
          () => "done",
          (e: unknown) => (e instanceof Error && /busy/.test(e.message) ? "busy" : "aborted")
        )
    )
    const first = await Promise.race(calls.map((c, i) => c.then((v) => ({ v, i }))))
    expect(first.v).toBe("busy")
    for (const a of aborts) a.abort()
    const outcomes = await Promise.all(calls)
    expect(outcomes.filter((o) => o === "busy")).toHaveLength(1)
    const ping = await client.ping()
    expect(ping).toEqual({})
  })
})
