import { Context, type Effect } from "effect"
import type { Unavailable } from "../domain/Errors.js"

export interface McpContent {
  readonly text: string
  readonly isError: boolean
}

/** Talks to the configured MCP servers (stdio or Streamable HTTP). */
export interface McpTransportShape {
  readonly list: (server?: string) => Effect.Effect<string, Unavailable>
  readonly call: (server: string, tool: string, args: Readonly<Record<string, unknown>>) => Effect.Effect<McpContent, Unavailable>
  readonly read: (server: string, uri: string) => Effect.Effect<McpContent, Unavailable>
  readonly prompt: (server: string, name: string, args: Readonly<Record<string, string>>) => Effect.Effect<McpContent, Unavailable>
}

export class McpTransport extends Context.Tag("minicode/McpTransport")<McpTransport, McpTransportShape>() {}
