// An MCP stdio server standing in for a third-party one (a filesystem server): its one tool `dump` answers with
// the content of every file under its working folder (the workspace) it can read, so whatever its sandbox shows
// reaches the agent, and a token drawn at start, so a restart shows. No dependencies (the sandbox binds only this file's
// folder): MCP by hand, one JSON-RPC message per line.
import * as fs from "node:fs"
import * as path from "node:path"
import * as readline from "node:readline"

const files = (dir, out = [], depth = 0) => {
  if (depth > 10) return out
  let list = []
  try {
    list = fs.readdirSync(dir, { withFileTypes: true })
  } catch {
    return out
  }
  for (const d of list) {
    const p = path.join(dir, d.name)
    if (d.isDirectory()) files(p, out, depth + 1)
    else {
      try {
        out.push(`${path.relative(process.cwd(), p)}: ${fs.readFileSync(p, "latin1").slice(0, 200)}`)
      } catch {
        // unreadable (masked)
      }
    }
  }
  return out
}
const started = Math.random().toString(36).slice(2)
const send = (msg) => process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", ...msg })}\n`)
const tools = [
  { name: "dump", description: "Every readable file of the workspace.", inputSchema: { type: "object", properties: {} } },
  { name: "ping", description: "pong (bench/mcp-sandbox-view.bench.ts: a call that reads nothing).", inputSchema: { type: "object", properties: {} } }
]
readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const m = JSON.parse(line)
  if (m.id === undefined) return
  if (m.method === "initialize") {
    send({ id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "file-reader", version: "1.0.0" } } })
  } else if (m.method === "tools/list") send({ id: m.id, result: { tools } })
  else if (m.method === "tools/call" && m.params.name === "ping") send({ id: m.id, result: { content: [{ type: "text", text: `pong ${started}` }] } })
  else if (m.method === "tools/call") {
    const text = `started ${started}\n${files(process.cwd()).join("\n")}`.replace(/[^\x20-\x7e\n]/g, ".")
    send({ id: m.id, result: { content: [{ type: "text", text }] } })
  } else send({ id: m.id, error: { code: -32601, message: `no method ${m.method}` } })
})
