/**
 * The built `mcp serve` (allow-all, all tools, no sandbox) with one upstream MCP server "up" in its configuration,
 * driven by the SDK's real Client; with `answer`, the client declares elicitation and answers each ask with it,
 * recording what it was asked.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { ElicitRequestSchema, type ElicitRequest, type ElicitResult } from "@modelcontextprotocol/sdk/types.js"
import { bin, makeWorkspace } from "./McpServeHarness.js"

export const serveWithUpstream = async (cleanups: Array<() => unknown>, upstream: ReadonlyArray<string>, answer?: ElicitResult) => {
  const ws = makeWorkspace()
  cleanups.push(ws.cleanup)
  const config = fs.mkdtempSync(path.join(os.tmpdir(), "minicode-config-"))
  cleanups.push(() => fs.rmSync(config, { recursive: true, force: true }))
  fs.mkdirSync(path.join(config, "minicode"))
  fs.writeFileSync(path.join(config, "minicode", "config.json"), JSON.stringify({ mcpServers: { up: { command: process.execPath, args: upstream } } }))
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin, "mcp", "serve", "--cwd", ws.root, "--sandbox", "none", "--all-tools", "--allow-all"],
    stderr: "pipe",
    cwd: ws.root,
    env: { ...getDefaultEnvironment(), XDG_CONFIG_HOME: config }
  })
  const client = new Client({ name: "minicode-e2e", version: "1.0.0" }, { capabilities: answer === undefined ? {} : { elicitation: { form: {} } } })
  const asked: Array<ElicitRequest["params"]> = []
  if (answer !== undefined) {
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request.params)
      return answer
    })
  }
  await client.connect(transport)
  cleanups.push(() => client.close().catch(() => undefined))
  return { client, asked }
}
