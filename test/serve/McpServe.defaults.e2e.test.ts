/**
 * The defaults of an `mcp serve` session (issue 44 item 4), through the BUILT server and the SDK's real Client with
 * an elicitation handler: plain edits inside the workspace are not asked; each bash command asks, offering "always
 * for this command", which saves the exact words shown (an argv prefix, never a wildcard) to the allowlist file, so
 * the same command runs unasked from then on, in this server and the next; a command with a variable, or one that
 * wants the network, gets no "always". `--ask` asks for edits too. The server's instructions say which defaults are
 * in force, and `doctor` says what a session gets.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { ElicitRequestSchema, type ElicitRequest, type ElicitResult } from "@modelcontextprotocol/sdk/types.js"
import { afterEach, beforeAll, describe, expect, it } from "vitest"
import { runCli } from "../support/Cli.js"
import { bin, ensureBuilt, isErrorResult, makeWorkspace, textOf } from "./support/McpServeHarness.js"

const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

beforeAll(() => ensureBuilt(), 120_000)

type Handler = (request: ElicitRequest) => ElicitResult

const setup = () => {
  const ws = makeWorkspace()
  cleanups.push(ws.cleanup)
  fs.writeFileSync(path.join(ws.root, "a.txt"), "one\ntwo\n")
  const config = fs.mkdtempSync(path.join(os.tmpdir(), "minicode-config-"))
  cleanups.push(() => fs.rmSync(config, { recursive: true, force: true }))
  return { root: ws.root, config, allowlist: path.join(config, "minicode", "allowlist.json") }
}

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
const bash = (client: Client, command: string, network = false) => client.callTool({ name: "bash", arguments: network ? { command, network } : { command } })
const form = (ask: ElicitRequest["params"] | undefined) => JSON.stringify(ask ?? {})

describe("mcp serve: the defaults of a session with a client that can ask", () => {
  it("edits inside the workspace run unasked; bash asks once per command with 'always', which saves the exact words", async () => {
    const ws = setup()
    const { client, asked } = await connect(ws.root, ws.config, [], accept("always"))
    expect(isErrorResult(await client.callTool({ name: "write_file", arguments: { path: "w.txt", content: "x\n" } }))).toBe(false)
    expect(isErrorResult(await client.callTool({ name: "edit_file", arguments: { path: "w.txt", old_string: "x", new_string: "y" } }))).toBe(false)
    expect(fs.readFileSync(path.join(ws.root, "w.txt"), "utf8")).toBe("y\n")
    expect(asked).toHaveLength(0)

    const first = await bash(client, "wc -l a.txt")
    expect(textOf(first)).toContain("2 a.txt")
    expect(asked).toHaveLength(1)
    expect(asked[0]?.message).toContain("bash will run `wc -l a.txt`")
    expect(asked[0]?.message).toContain('"Always" saves "bash:wc -l a.txt"')
    expect(form(asked[0])).toContain('"enum":["once","always","deny"]')
    expect(form(asked[0])).toContain("Always allow `wc -l a.txt`")
    expect(JSON.parse(fs.readFileSync(ws.allowlist, "utf8"))).toEqual({ entries: [{ tool: "bash", argv: ["wc", "-l", "a.txt"] }] })

    // The same command again: not asked. Another command: asked.
    expect(textOf(await bash(client, "wc -l a.txt"))).toContain("2 a.txt")
    expect(asked).toHaveLength(1)
    await bash(client, "cat a.txt")
    expect(asked).toHaveLength(2)

    // A new server reads the saved entries: neither is asked again.
    const next = await connect(ws.root, ws.config, [], accept("deny"))
    expect(textOf(await next.client.callTool({ name: "bash", arguments: { command: "wc -l a.txt" } }))).toContain("2 a.txt")
    expect(textOf(await next.client.callTool({ name: "bash", arguments: { command: "cat a.txt" } }))).toContain("one")
    expect(next.asked).toHaveLength(0)
  })

  it("no 'always' for a command with a variable or a glob, for two unapproved commands, or for bash's network", async () => {
    const ws = setup()
    const { client, asked } = await connect(ws.root, ws.config, [], accept("always"))
    for (const command of ["echo $HOME", "cat *.txt", "wc -l a.txt && cat a.txt"]) {
      const before = asked.length
      const result = await bash(client, command)
      expect(asked.length, command).toBe(before + 1)
      expect(form(asked[asked.length - 1]), command).toContain('"enum":["once","deny"]')
      // "always" was answered though not offered: a deny that says so, and nothing saved.
      expect(isErrorResult(result), command).toBe(true)
      expect(textOf(result), command).toContain("not one of the offered answers")
    }
    const net = await bash(client, "echo hi", true)
    expect(isErrorResult(net)).toBe(true)
    expect(form(asked[asked.length - 1])).toContain('"enum":["once","deny"]')
    expect(fs.existsSync(ws.allowlist)).toBe(false)
  })

  it("--ask asks for edits too; the instructions say which defaults are in force", async () => {
    const ws = setup()
    const asking = await connect(ws.root, ws.config, ["--ask"], accept("once"))
    expect(isErrorResult(await asking.client.callTool({ name: "write_file", arguments: { path: "w.txt", content: "x\n" } }))).toBe(false)
    expect(asking.asked.map((a) => a.message)).toEqual([expect.stringContaining("write_file will act on w.txt")])
    expect(asking.client.getInstructions()).toContain("Asks (--ask): every change")
    const plain = await connect(ws.root, ws.config, [], accept("once"))
    const instructions = plain.client.getInstructions() ?? ""
    expect(instructions).toContain("work mode BUILD")
    expect(instructions).toContain("file edits inside the workspace run without asking, each bash command asks")
    const noAsk = await connect(ws.root, ws.config, ["--no-ask"], accept("deny"))
    expect(noAsk.client.getInstructions()).toContain("Asks (--no-ask): file edits and bash run without asking")
    expect(textOf(await bash(noAsk.client, "wc -l a.txt"))).toContain("2 a.txt")
    expect(noAsk.asked).toHaveLength(0)
  })

  it("a client without elicitation is asked nothing: bash runs", async () => {
    const ws = setup()
    const { client } = await connect(ws.root, ws.config, [])
    expect(textOf(await bash(client, "wc -l a.txt"))).toContain("2 a.txt")
    expect(client.getInstructions()).toContain("with a client that cannot ask, nothing is asked")
  })

  it("doctor says what an mcp serve session gets", async () => {
    const ws = setup()
    const run = await runCli(bin, ["doctor", "--cwd", ws.root], { env: { ...process.env, XDG_CONFIG_HOME: ws.config } })
    const line = run.stdout.split("\n").find((l) => l.startsWith("mcp serve defaults:")) ?? ""
    expect(line).toContain("work mode BUILD")
    expect(line).toContain("git=read")
    expect(line).toContain("each bash command asks")
    const json = await runCli(bin, ["doctor", "--json", "--cwd", ws.root], { env: { ...process.env, XDG_CONFIG_HOME: ws.config } })
    expect(JSON.parse(json.stdout).mcpServe).toMatchObject({ workMode: "BUILD", asks: expect.stringContaining("each bash command asks") })
  })
})
