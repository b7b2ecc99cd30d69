/**
 * Red team: minicode's own approval prompt must show what is approved. Through the built `mcp serve` (no
 * --allow-all, so bash asks through the client's elicitation) and the SDK's real client, which declines.
 *
 * Was a hole: the sentence cut the command at 200 characters, so `echo <200 harmless characters>; curl … | sh`
 * was shown as a harmless echo; an ESC (`\u001b[8m`, concealed text on a terminal) passed through raw. Now
 * (domain/core/Approval.ts) the command is shown whole up to 4,000 characters, a cut says how much is not shown,
 * and control characters are spelled out.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { ElicitRequestSchema, type ElicitRequest } from "@modelcontextprotocol/sdk/types.js"
import { afterEach, beforeAll, describe, expect, it } from "vitest"
import { bin, ensureBuilt, makeWorkspace } from "../serve/support/McpServeHarness.js"

const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})
beforeAll(() => ensureBuilt(), 120_000)

describe("mcp serve: the approval prompt shows the whole call", () => {
  it("a dangerous tail after 200 harmless characters, and ANSI, are shown (spelled out), and the call is declined", async () => {
    const ws = makeWorkspace()
    cleanups.push(ws.cleanup)
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [bin, "mcp", "serve", "--cwd", ws.root, "--sandbox", "none"],
      stderr: "pipe",
      cwd: ws.root,
      env: getDefaultEnvironment()
    })
    const client = new Client({ name: "redteam", version: "1.0.0" }, { capabilities: { elicitation: { form: {} } } })
    const asked: Array<ElicitRequest["params"]> = []
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request.params)
      return { action: "decline" }
    })
    await client.connect(transport)
    cleanups.push(() => client.close().catch(() => undefined))
    const command = `echo "${"a harmless build step ".repeat(12)}" \u001b[8m; touch PWNED-TAIL`
    await client.callTool({ name: "bash", arguments: { command } })
    expect(asked).toHaveLength(1)
    const message = asked[0]?.message ?? ""
    expect(message).toContain("touch PWNED-TAIL")
    expect(message).toContain("\\u001b[8m")
    expect(message).not.toContain("\u001b")
  })
})
