/**
 * End to end: asks reach the person behind the client. The BUILT `minicode mcp serve` driven by the SDK's real Client
 * with an elicitation handler: allow once, always (saved to the allowlist file for that exact tool, the next call is
 * not asked), decline, cancel, a time-out, and a client without the capability (a deny that says how to allow).
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { ElicitRequestSchema, type ElicitRequest, type ElicitResult } from "@modelcontextprotocol/sdk/types.js"
import { afterEach, beforeAll, describe, expect, it } from "vitest"
import { bin, ensureBuilt, isErrorResult, makeGitWorkspace, textOf } from "./support/McpServeHarness.js"

const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

beforeAll(() => ensureBuilt(), 120_000)

type Handler = (request: ElicitRequest) => Promise<ElicitResult> | ElicitResult

/** A git workspace with a.txt to commit, and a config folder of its own (the allowlist file lives there). */
const setup = () => {
  const ws = makeGitWorkspace()
  cleanups.push(ws.cleanup)
  fs.writeFileSync(path.join(ws.root, "a.txt"), "one\n")
  ws.git("add", "a.txt")
  ws.git("commit", "-q", "-m", "first")
  const config = fs.mkdtempSync(path.join(os.tmpdir(), "minicode-config-"))
  cleanups.push(() => fs.rmSync(config, { recursive: true, force: true }))
  return { ...ws, config, allowlist: path.join(config, "minicode", "allowlist.json") }
}

/** The server with a client that declares elicitation (when `handler` is given) and records every ask. */
const connect = async (root: string, config: string, flags: ReadonlyArray<string>, handler?: Handler) => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin, "mcp", "serve", "--cwd", root, "--sandbox", "none", ...flags],
    stderr: "pipe",
    cwd: root,
    env: { ...getDefaultEnvironment(), XDG_CONFIG_HOME: config }
  })
  const client = new Client({ name: "minicode-e2e", version: "1.0.0" }, { capabilities: handler === undefined ? {} : { elicitation: { form: {} } } })
  const asked: Array<ElicitRequest["params"]> = []
  if (handler !== undefined) {
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request.params)
      return handler(request)
    })
  }
  await client.connect(transport)
  cleanups.push(() => client.close().catch(() => undefined))
  return { client, asked }
}

const accept = (answer: string): Handler => () => ({ action: "accept", content: { answer } })

const commit = (client: Client, message: string) => client.callTool({ name: "git_commit", arguments: { message, paths: ["a.txt"] } })

const head = (git: (...args: Array<string>) => string) => git("log", "-1", "--format=%s").trim()

describe("mcp serve: asks go to the user through elicitation", () => {
  it("allow once: the commit runs after one ask that names the tool, the files, the message and the reason; the next call asks again", async () => {
    const ws = setup()
    const { client, asked } = await connect(ws.root, ws.config, ["--scope", "git=write"], accept("once"))
    expect((await client.listTools()).tools.map((t) => t.name)).toContain("git_commit")
    fs.writeFileSync(path.join(ws.root, "a.txt"), "two\n")
    const first = await commit(client, "second commit")
    expect(isErrorResult(first), textOf(first)).toBe(false)
    expect(head(ws.git)).toBe("second commit")
    expect(asked).toHaveLength(1)
    const message = asked[0]?.message ?? ""
    expect(message).toContain("git_commit will commit a.txt")
    expect(message).toContain('"second commit"')
    expect(message).toContain("needs the operator's approval")
    expect(JSON.stringify(asked[0])).toContain('"enum":["once","always","deny"]')
    fs.writeFileSync(path.join(ws.root, "a.txt"), "three\n")
    await commit(client, "third commit")
    expect(asked).toHaveLength(2)
    expect(fs.existsSync(ws.allowlist)).toBe(false)
  })

  it("always: saved to the allowlist file for exactly that tool, and the next call is not asked", async () => {
    const ws = setup()
    const { client, asked } = await connect(ws.root, ws.config, ["--scope", "git=write"], accept("always"))
    fs.writeFileSync(path.join(ws.root, "a.txt"), "two\n")
    expect(isErrorResult(await commit(client, "second"))).toBe(false)
    expect(JSON.parse(fs.readFileSync(ws.allowlist, "utf8"))).toEqual({ entries: [{ tool: "git_commit" }] })
    fs.writeFileSync(path.join(ws.root, "a.txt"), "three\n")
    const again = await commit(client, "third")
    expect(isErrorResult(again), textOf(again)).toBe(false)
    expect(head(ws.git)).toBe("third")
    expect(asked).toHaveLength(1)
    // A new server reads the saved entry: no ask either.
    const next = await connect(ws.root, ws.config, ["--scope", "git=write"], accept("deny"))
    fs.writeFileSync(path.join(ws.root, "a.txt"), "four\n")
    expect(isErrorResult(await commit(next.client, "fourth"))).toBe(false)
    expect(next.asked).toHaveLength(0)
  })

  it("decline, cancel and deny are denies that change nothing and say how to allow the call", async () => {
    for (const [reply, why] of [
      [{ action: "decline" }, "the user declined"],
      [{ action: "cancel" }, "the user dismissed the question"],
      [{ action: "accept", content: { answer: "deny" } }, "the user denied it"]
    ] as const) {
      const ws = setup()
      const { client, asked } = await connect(ws.root, ws.config, ["--scope", "git=write"], () => reply)
      fs.writeFileSync(path.join(ws.root, "a.txt"), "two\n")
      const result = await commit(client, "not this")
      expect(isErrorResult(result)).toBe(true)
      const text = textOf(result)
      expect(text).toContain(why)
      expect(text).toContain('add "git_commit" to the allowlist')
      expect(text).toContain("--allow-all")
      expect(head(ws.git)).toBe("first")
      expect(asked).toHaveLength(1)
      expect(fs.existsSync(ws.allowlist)).toBe(false)
    }
  })

  it("a time-out is a deny (--ask-timeout), and the server goes on answering", async () => {
    const ws = setup()
    const { client, asked } = await connect(ws.root, ws.config, ["--scope", "git=write", "--ask-timeout", "1"], () => new Promise<ElicitResult>(() => undefined))
    fs.writeFileSync(path.join(ws.root, "a.txt"), "two\n")
    const result = await commit(client, "too late")
    expect(isErrorResult(result)).toBe(true)
    expect(textOf(result)).toContain("did not answer within 1 s")
    expect(head(ws.git)).toBe("first")
    expect(asked).toHaveLength(1)
    const read = await client.callTool({ name: "read_file", arguments: { path: "a.txt" } })
    expect(textOf(read)).toContain("two")
  })

  it("--ask: every mutation asks; by default a plain edit does not (issue 44); --no-ask asks only what must ask; --allow-all never asks", async () => {
    const ws = setup()
    const asking = await connect(ws.root, ws.config, ["--ask"], accept("once"))
    expect(isErrorResult(await asking.client.callTool({ name: "write_file", arguments: { path: "w.txt", content: "x\n" } }))).toBe(false)
    expect(asking.asked.map((a) => a.message)).toEqual([expect.stringContaining("write_file will act on w.txt")])
    const byDefault = await connect(ws.root, ws.config, [], accept("deny"))
    expect(isErrorResult(await byDefault.client.callTool({ name: "write_file", arguments: { path: "u.txt", content: "x\n" } }))).toBe(false)
    expect(byDefault.asked).toHaveLength(0)
    const plain = await connect(ws.root, ws.config, ["--no-ask"], accept("deny"))
    expect(isErrorResult(await plain.client.callTool({ name: "write_file", arguments: { path: "v.txt", content: "x\n" } }))).toBe(false)
    expect(plain.asked).toHaveLength(0)
    const all = await connect(ws.root, ws.config, ["--allow-all", "--scope", "git=write"], accept("deny"))
    fs.writeFileSync(path.join(ws.root, "a.txt"), "two\n")
    expect(isErrorResult(await commit(all.client, "allowed"))).toBe(false)
    expect(all.asked).toHaveLength(0)
    expect(head(ws.git)).toBe("allowed")
  })

  it("a client without elicitation: nothing asks, gated tools stay unlisted, and an ask is a deny that says how to allow", async () => {
    const ws = setup()
    const { client } = await connect(ws.root, ws.config, ["--scope", "git=write"])
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain("git_commit")
    const gated = await commit(client, "no")
    expect(isErrorResult(gated)).toBe(true)
    expect(textOf(gated)).toContain("--allow-all")
    // Not ASK by default: a write runs.
    expect(isErrorResult(await client.callTool({ name: "write_file", arguments: { path: "w.txt", content: "x\n" } }))).toBe(false)
    // bash with network asks, and nobody can be asked.
    const net = await client.callTool({ name: "bash", arguments: { command: "echo hi", network: true } })
    expect(isErrorResult(net)).toBe(true)
    expect(textOf(net)).toContain("cannot ask the user")
    expect(textOf(net)).toContain("bashNetwork")
    expect(head(ws.git)).toBe("first")
  })
})
