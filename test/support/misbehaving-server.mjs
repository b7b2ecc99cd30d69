// A stdio MCP server that misbehaves on purpose (low-level SDK Server, so every answer is ours):
//   argv "crash": prints "boom: missing API_KEY" on stderr and exits before initialize.
//   argv "slow-list MS": answers tools/list after MS milliseconds ("never": does not answer it at all).
//   otherwise: declares tools and resources (but resources/list fails, templates are listed), no prompts;
//   tools: nested (a deep input and output schema, long description), controls (NUL, ANSI, CR, bidi in text),
//   structured (content + structuredContent), shaped (an outputSchema; arguments.how "bad" breaks it, "none" omits it), links (resource link with description, audience), huge (n chars),
//   hang (never answers), progress (n progress notifications, delay ms apart, then answers), log (a log
//   notification, then an error), badargs (an McpError -32602 thrown by the handler), roots / elicit / sample
//   (server-to-client requests), caps (the client's declared capabilities), needsurl (a -32042 URL
//   elicitation required error).
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
import {
  CallToolRequestSchema, ElicitResultSchema, CreateMessageResultSchema, ErrorCode, ListResourceTemplatesRequestSchema, ListResourcesRequestSchema,
  ListRootsResultSchema, ListToolsRequestSchema, McpError
} from "@modelcontextprotocol/sdk/types.js"

if (process.argv[2] === "crash") {
  process.stderr.write("boom: missing API_KEY\n")
  process.exit(1)
}

const longDescription = `${"Every word matters here. ".repeat(120)}THE END`
const tools = [
  {
    name: "nested",
    title: "Nested thing",
    description: `Deeply nested input.\nSecond line of the description.\n${longDescription}`,
    inputSchema: {
      type: "object",
      properties: {
        target: {
          type: "object",
          description: "Where to send it",
          properties: { host: { type: "string", format: "hostname" }, port: { type: "integer", minimum: 1, maximum: 65535, default: 443 } },
          required: ["host"]
        },
        tags: { type: "array", items: { type: "object", properties: { key: { type: "string" }, value: { type: ["string", "null"] } } } },
        mode: { enum: ["fast", "full"] },
        node: { $ref: "#/$defs/Node" }
      },
      required: ["target"],
      $defs: { Node: { type: "object", properties: { name: { type: "string" }, children: { type: "array", items: { $ref: "#/$defs/Node" } } } } }
    },
    outputSchema: { type: "object", properties: { sent: { type: "boolean" }, bytes: { type: "integer" } }, required: ["sent"] },
    annotations: { readOnlyHint: true, openWorldHint: false },
    execution: { taskSupport: "optional" }
  },
  { name: "tasky", description: "Only as a task.", inputSchema: { type: "object" }, execution: { taskSupport: "required" } },
  { name: "controls", description: "Bad\u001b[31m bytes\u0000 in the description.", inputSchema: { type: "object" } },
  { name: "structured", description: "Content and structured content.", inputSchema: { type: "object" } },
  { name: "shaped", description: "Structured content as its output schema says, or (arg bad) not, or (arg none) none.", inputSchema: { type: "object" },
    outputSchema: { type: "object", properties: { temperature: { type: "number" }, unit: { type: "string", enum: ["C", "F"] } }, required: ["temperature", "unit"] } },
  { name: "links", description: "A resource link.", inputSchema: { type: "object" } },
  { name: "huge", description: "n characters.", inputSchema: { type: "object", properties: { n: { type: "integer" } } } },
  { name: "hang", description: "Never answers.", inputSchema: { type: "object" } },
  { name: "progress", description: "Reports progress, then answers.", inputSchema: { type: "object", properties: { n: { type: "integer" }, delay: { type: "integer" } } } },
  { name: "log", description: "Logs, then fails.", inputSchema: { type: "object" } },
  { name: "badargs", description: "Throws invalid params.", inputSchema: { type: "object" } },
  { name: "roots", description: "Asks the client for its roots.", inputSchema: { type: "object" } },
  { name: "elicit", description: "Asks the client for input.", inputSchema: { type: "object" } },
  { name: "sample", description: "Asks the client for a completion.", inputSchema: { type: "object" } },
  { name: "caps", description: "The capabilities the client declared.", inputSchema: { type: "object" } },
  { name: "needsurl", description: "Answers -32042: the person must visit pages first.", inputSchema: { type: "object" } }
]

const server = new Server({ name: "misbehaving", version: "1.0.0" }, { capabilities: { tools: {}, resources: {}, logging: {} } })
server.setRequestHandler(ListToolsRequestSchema, async () => {
  if (process.argv[2] === "slow-list") {
    const ms = process.argv[3] === "never" ? 2_147_483_647 : Number(process.argv[3])
    await new Promise((r) => setTimeout(r, ms))
  }
  return { tools }
})
server.setRequestHandler(ListResourcesRequestSchema, async () => {
  throw new Error("resources are broken today")
})
server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
  resourceTemplates: [{ uriTemplate: "mem://items/{id}", name: "item", description: "One item by id.", mimeType: "application/json" }]
}))
const sleep = (ms) => new Promise((r) => setTimeout(r, ms))
server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
  const args = req.params.arguments ?? {}
  switch (req.params.name) {
    case "controls":
      return { content: [{ type: "text", text: "red\u001b[31mALERT\u001b[0m nul\u0000 cr\rover \u202eevil" }] }
    case "shaped": {
      const how = req.params.arguments?.how
      const text = [{ type: "text", text: "the weather is fine" }]
      return how === "bad" ? { content: text, structuredContent: { temperature: "warm", unit: "K" } } : how === "none" ? { content: text } : { content: text, structuredContent: { temperature: 21, unit: "C" } }
    }
    case "structured":
      return { content: [{ type: "text", text: "the weather is fine" }], structuredContent: { temperature: 21, unit: "C" } }
    case "links":
      return {
        content: [
          { type: "resource_link", uri: "file:///tmp/report.csv", name: "report", description: "The quarterly report", mimeType: "text/csv" },
          { type: "text", text: "for the user only", annotations: { audience: ["user"], priority: 0.2 } }
        ]
      }
    case "huge":
      return { content: [{ type: "text", text: "z".repeat(Number(args.n ?? 1000)) }] }
    case "hang":
      return new Promise(() => {})
    case "progress": {
      const token = req.params._meta?.progressToken
      const n = Number(args.n ?? 3)
      for (let i = 1; i <= n; i++) {
        await sleep(Number(args.delay ?? 10))
        if (token !== undefined) await extra.sendNotification({ method: "notifications/progress", params: { progressToken: token, progress: i, total: n, message: `step ${i}` } })
      }
      return { content: [{ type: "text", text: `done after ${n} steps; token ${token === undefined ? "absent" : "present"}` }] }
    }
    case "log":
      await server.sendLoggingMessage({ level: "error", logger: "db", data: "database connection refused" })
      return { content: [{ type: "text", text: "failed, see the log" }], isError: true }
    case "badargs":
      throw new McpError(ErrorCode.InvalidParams, "MCP error -32602: argument x is missing")
    case "roots": {
      const got = await server.request({ method: "roots/list" }, ListRootsResultSchema)
      return { content: [{ type: "text", text: JSON.stringify(got.roots) }] }
    }
    case "elicit": {
      try {
        const got = await server.request(
          { method: "elicitation/create", params: { mode: "form", message: "Your name?", requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] } } },
          ElicitResultSchema
        )
        return { content: [{ type: "text", text: JSON.stringify(got) }] }
      } catch (e) {
        return { content: [{ type: "text", text: `elicitation refused: ${e.message}` }], isError: true }
      }
    }
    case "needsurl":
      throw new McpError(-32042, "Authorization required", {
        elicitations: [
          { mode: "url", elicitationId: "e1", url: "https://auth.example.com/connect?state=1", message: "Connect your\u001b[2K calendar" },
          { mode: "url", elicitationId: "e2", url: "javascript:alert(1)", message: "Click" }
        ]
      })
    case "caps":
      return { content: [{ type: "text", text: JSON.stringify(server.getClientCapabilities() ?? null) }] }
    case "sample": {
      try {
        await server.request({ method: "sampling/createMessage", params: { messages: [{ role: "user", content: { type: "text", text: "hi" } }], maxTokens: 10 } }, CreateMessageResultSchema)
        return { content: [{ type: "text", text: "sampled" }] }
      } catch (e) {
        return { content: [{ type: "text", text: `sampling refused: ${e.message}` }], isError: true }
      }
    }
    default:
      throw new McpError(ErrorCode.InvalidParams, `no tool ${req.params.name}`)
  }
})
await server.connect(new StdioServerTransport())
