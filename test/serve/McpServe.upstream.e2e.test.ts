/**
 * End to end: under `mcp serve`, what an upstream MCP server asks or reports reaches the client that runs minicode.
 * The BUILT server, driven by the SDK's real Client, calls a configured upstream server (test/support/misbehaving-
 * server.mjs) through mcp_call: its elicitation is forwarded to the client when the client declared elicitation
 * (else declined), and its progress notifications become the call's notifications/progress.
 */
import * as path from "node:path"
import { afterEach, beforeAll, describe, expect, it } from "vitest"
import { ensureBuilt, repo, textOf } from "./support/McpServeHarness.js"
import { serveWithUpstream } from "./support/Upstream.js"

const cleanups: Array<() => unknown> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})
beforeAll(() => ensureBuilt(), 120_000)

const misbehaving = path.join(repo, "test/support/misbehaving-server.mjs")

const connect = (elicitation: boolean) =>
  serveWithUpstream(cleanups, [misbehaving], elicitation ? { action: "accept", content: { name: "Ada" } } : undefined)

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

  it("without the client's elicitation capability minicode does not declare elicitation upstream, so nobody is asked", async () => {
    const { client } = await connect(false)
    const caps = await client.callTool({ name: "mcp_call", arguments: { server: "up", tool: "caps", arguments: {} } })
    expect(JSON.parse(textOf(caps))).toEqual({ roots: { listChanged: false } })
    const result = await client.callTool({ name: "mcp_call", arguments: { server: "up", tool: "elicit", arguments: {} } })
    expect(textOf(result)).toContain("Method not found")
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
