import { Context, type Effect } from "effect"
import type { ToolFailed, ToolTimeout, Unavailable } from "../domain/core/Errors.js"
import type { McpContent, McpServerListing } from "../domain/mcp/McpFormat.js"

export type { McpBlock, McpContent, McpServerListing, McpToolInfo } from "../domain/mcp/McpFormat.js"

export type McpError = ToolFailed | ToolTimeout | Unavailable

/**
 * Talks to the configured MCP servers (stdio or Streamable HTTP). Servers connect on first use. Interrupting a
 * call stops waiting and sends `notifications/cancelled`; what the server already did stays done.
 */
export interface McpTransportShape {
  readonly servers: ReadonlyArray<string>
  readonly list: (server?: string) => Effect.Effect<ReadonlyArray<McpServerListing>, McpError>
  readonly call: (server: string, tool: string, args: Readonly<Record<string, unknown>>) => Effect.Effect<McpContent, McpError>
  readonly read: (server: string, uri: string) => Effect.Effect<McpContent, McpError>
  readonly prompt: (server: string, name: string, args: Readonly<Record<string, string>>) => Effect.Effect<McpContent, McpError>
}

export class McpTransport extends Context.Tag("minicode/McpTransport")<McpTransport, McpTransportShape>() {}
