/**
 * The language tools on their real adapter: language servers over JSON-RPC, spawned on first use and shut down when
 * the caller's scope ends. Loaded on first use by `NodeLayers.extensions`.
 */
import { Context, Effect, Layer, type Scope } from "effect"
import * as JsonRpcLspTransport from "../adapters/lsp/JsonRpcLspTransport.js"
import type { ServerEntry } from "../domain/core/Config.js"
import { Diagnostics } from "../ports/Diagnostics.js"
import type { FileSystem } from "../ports/FileSystem.js"
import { Session } from "../ports/Session.js"
import { type Extension, Extensions } from "../kernel/Executor.js"
import * as LspTools from "../tools/LspTools.js"

export interface LiveOptions extends Omit<JsonRpcLspTransport.Options, "servers" | "root"> {
  readonly servers: Readonly<Record<string, ServerEntry>>
}

/** The real client (servers spawned on first use, shut down when the caller's scope ends). */
export const live = (
  options: LiveOptions
): Effect.Effect<{ readonly extension: Extension; readonly diagnostics: typeof Diagnostics.Service }, never, Scope.Scope | Session | FileSystem> =>
  Effect.gen(function* () {
    const session = yield* Session
    const context = yield* Layer.build(JsonRpcLspTransport.layer({ ...options, root: session.root }))
    return yield* Effect.provide(LspTools.make, context)
  })

/** The language tools alone as the `Extensions` layer, with the post-write hook beside it (tests, and `mcp serve`-like compositions). */
export const layer = (options: LiveOptions): Layer.Layer<Extensions | Diagnostics, never, Session | FileSystem> =>
  Layer.scopedContext(
    Effect.map(live(options), ({ extension, diagnostics }) => Context.make(Extensions, [extension]).pipe(Context.add(Diagnostics, diagnostics)))
  )
