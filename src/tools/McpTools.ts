/**
 * The executor extension for the MCP tools (`mcp_list`, `mcp_call`, `mcp_read`, `mcp_prompt`, dynamic
 * `server.tool`) and `web_fetch`. Gates ran before; this only talks to the ports and keeps the text compact.
 */
import { Effect } from "effect"
import * as HtmlText from "../domain/web/HtmlText.js"
import * as McpFormat from "../domain/mcp/McpFormat.js"
import { McpTransport } from "../ports/McpTransport.js"
import type { ToolOutput } from "../ports/ToolExecutor.js"
import { WebFetch, type WebPage } from "../ports/WebFetch.js"
import type { Extension } from "../kernel/Executor.js"

export const defaultWebBytes = 512 * 1024

const out = (text: string, isError = false): ToolOutput => (isError ? { text, truncated: false, isError } : { text, truncated: false })

export const page = (p: WebPage): ToolOutput => {
  const head = `GET ${p.url} → ${p.status} ${p.contentType === "" ? "(no content type)" : p.contentType}, ${p.bytes} bytes${p.truncated ? " (truncated)" : ""}`
  if (p.binary) return { text: `${head}\n[binary ${p.contentType}, ${p.bytes}${p.truncated ? "+" : ""} bytes]`, truncated: p.truncated }
  const body = HtmlText.isHtml(p.contentType) ? HtmlText.toText(p.text) : p.text
  return {
    text: `${head}\n${McpFormat.block({ _tag: "Resource", uri: p.url, text: body })}`,
    truncated: p.truncated,
    ...(p.status >= 400 ? { isError: true } : {})
  }
}

/** The extension over whatever McpTransport and WebFetch are provided. */
export const make: Effect.Effect<Extension, never, McpTransport | WebFetch> = Effect.gen(function* () {
  const mcp = yield* McpTransport
  const web = yield* WebFetch
  const content = (c: McpFormat.McpContent) => out(McpFormat.content(c), c.isError)
  return (inv) => {
    const call = inv.facts.call
    switch (call.tool) {
      case "mcp_list":
        // Asked for one server that cannot be reached: an error result (the CLI exits 1, doctor says so).
        return Effect.map(mcp.list(call.args.server), (servers) =>
          out(McpFormat.listing(servers), call.args.server !== undefined && servers.some((s) => s.error !== undefined))
        )
      case "mcp_call":
        return Effect.map(mcp.call(call.args.server, call.args.tool, call.args.arguments ?? {}), content)
      case "mcp_dynamic":
        return Effect.map(mcp.call(call.server, call.serverTool, call.args), content)
      case "mcp_read":
        return Effect.map(mcp.read(call.args.server, call.args.uri), content)
      case "mcp_prompt":
        return Effect.map(mcp.prompt(call.args.server, call.args.name, call.args.arguments ?? {}), content)
      case "web_fetch":
        return Effect.map(web.get(call.args.url, call.args.max_bytes ?? defaultWebBytes), page)
      default:
        return undefined
    }
  }
})
