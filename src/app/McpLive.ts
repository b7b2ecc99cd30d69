/**
 * The MCP tools and web_fetch on their real adapters: the SDK client for configured servers, the pinned fetch, and
 * the Node resolver the SSRF guard checks with. A server's elicitation is asked of the operator when stdin and
 * stderr are a terminal (else declined) unless the caller passes its own `elicit` (`mcp serve` forwarding upstream). Loaded on first use by `NodeLayers.extensions`.
 */
import { Effect, Layer, type Scope } from "effect"
import * as NetGuard from "../adapters/net/NetGuard.js"
import * as PinnedFetch from "../adapters/net/PinnedFetch.js"
import * as TtyElicitation from "../adapters/mcp/TtyElicitation.js"
import * as SdkMcpTransport from "../adapters/mcp/SdkMcpTransport.js"
import type { ServerEntry } from "../domain/core/Config.js"
import type { Extension } from "../kernel/Executor.js"
import * as McpTools from "../tools/McpTools.js"
import { viewOf } from "./LspRenewal.js"

/** What a sandboxed stdio server's profile is made from: when it changed, the server is started again (issue 19). */
export const sandboxView = viewOf

export interface LiveOptions extends Omit<SdkMcpTransport.Options, "servers"> {
  readonly servers: Readonly<Record<string, ServerEntry>>
  readonly resolve?: NetGuard.Resolver
}

/** The real adapters (SDK client, pinned fetch), alive as long as the caller's scope. */
export const live = (options: LiveOptions): Effect.Effect<Extension, never, Scope.Scope> =>
  Effect.gen(function* () {
    const resolve = options.resolve ?? NetGuard.nodeResolver()
    const context = yield* Layer.build(
      Layer.merge(
        SdkMcpTransport.layer({ ...options, resolve, elicit: options.elicit ?? TtyElicitation.make(TtyElicitation.processTerminal()) }),
        PinnedFetch.webLayer({ resolve })
      )
    )
    return yield* Effect.provide(McpTools.make, context)
  })
