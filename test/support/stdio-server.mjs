// A tiny stdio MCP server for tests: tools only (no resources, no prompts), one that dies mid-call.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
import { z } from "zod"

const server = new McpServer({ name: "tiny", version: "1.0.0" })
server.registerTool("echo", { description: "Echo the text.", inputSchema: { text: z.string() } }, async ({ text }) => ({ content: [{ type: "text", text }] }))
server.registerTool("env", { description: "Names of the environment variables." }, async () => ({ content: [{ type: "text", text: Object.keys(process.env).sort().join(",") }] }))
server.registerTool("die", { description: "Exit mid-call." }, async () => {
  process.stderr.write("tiny server: dying now\n")
  setTimeout(() => process.exit(3), 10)
  return new Promise(() => {})
})
server.registerTool("slow", { description: "Never answers." }, async () => new Promise(() => {}))
server.registerTool("big", { description: "A large reply.", inputSchema: { n: z.number() } }, async ({ n }) => ({ content: [{ type: "text", text: "x".repeat(n) }] }))
await server.connect(new StdioServerTransport())
