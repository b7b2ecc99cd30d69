/**
 * End to end: under `mcp serve`, what an upstream MCP server asks or reports reaches the client that runs minicode.
 * The BUILT server, driven by the SDK's real Client, calls a configured upstream server (test/support/misbehaving-
 * server.mjs) through mcp_call: its elicitation is forwarded to the client when the client declared elicitation
 * (else declined), and its progress notifications become the call's notifications/progress.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { ElicitRequestSchema, type ElicitRequest } from "@modelcontextprotocol/sdk/types.js"
import { afterEach, beforeAll, describe, expect, it } from "vitest"
import { bin, ensureBuilt, makeWorkspace, repo, textOf } from "./support/McpServeHarness.js"

const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})
beforeAll(() => ensureBuilt(), 120_000)

const misbehaving = path.join(repo, "test/support/misbehaving-server.mjs")

/** A workspace and a config home whose config.json names the upstream server "up". */
const connect = async (elicitation: boolean) => {
  const ws = makeWorkspace()
  cleanups.push(ws.cleanup)
  const config = fs.mkdtempSync(path.join(os.tmpdir(), "minicode-config-"))
  cleanups.push(() => fs.rmSync(config, { recursive: true, force: true }))
  fs.mkdirSync(path.join(config, "minicode"))
  fs.writeFileSync(path.join(config, "minicode", "config.json"), JSON.stringify({ mcpServers: { up: { command: process.execPath, args: [misbehaving] } } }))
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin, "mcp", "serve", "--cwd", ws.root, "--sandbox", "none", "--all-tools", "--allow-all"],
    stderr: "pipe",
    cwd: ws.root,
    env: { ...getDefaultEnvironment(), XDG_CONFIG_HOME: config }
  })
  const client = new Client({ name: "minicode-e2e", version: "1.0.0" }, { capabilities: elicitation ? { elicitation: { form: {} } } : {} })
  const asked: Array<ElicitRequest["params"]> = []
  if (elicitation) {
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request.params)
      return { action: "accept", content: { name: "Ada" } }
    })
  }
  await client.connect(transport)
  cleanups.push(() => client.close().catch(() => undefined))
  return { client, asked }
}

describe("mcp serve: an upstream server's asks and progress reach the client", () => {
  it("elicitation is forwarded to a client that declared it, naming the asking server; the answer goes back up", async () => {
    const { client, asked } = await connect(true)
    const result = await client.callTool({ name: "mcp_call", arguments: { server: "up", tool: "elicit", arguments: {} } })
    expect(textOf(result)).toContain('"action":"accept"')
    expect(textOf(result)).toContain('"name":"Ada"')
    expect(asked).toHaveLength(1)
    expect(asked[0]?.message).toBe('The MCP server "up" asks (not a minicode approval; your answer goes to that server): Your name?')
    expect(JSON.stringify(asked[0])).toContain('"name"')
  })

  it("without the client's elicitation capability the upstream ask is declined", async () => {
    const { client } = await connect(false)
    const result = await client.callTool({ name: "mcp_call", arguments: { server: "up", tool: "elicit", arguments: {} } })
    expect(textOf(result)).toContain('"action":"decline"')
  })

  it("the upstream server's progress becomes the call's notifications/progress, and the result still follows", async () => {
    const { client } = await connect(false)
    const seen: Array<string> = []
    const result = await client.callTool(
      { name: "mcp_call", arguments: { server: "up", tool: "progress", arguments: { n: 6, delay: 500 } } },
      undefined,
      { onprogress: (p) => void seen.push(p.message ?? "") }
    )
    expect(textOf(result)).not.toBe("")
    // The server ticks every second with the call's latest note: the upstream's own "step i" lines.
    expect(seen.some((m) => /^up\.progress: \d\/6 step \d$/.test(m)), JSON.stringify(seen)).toBe(true)
  })
})
