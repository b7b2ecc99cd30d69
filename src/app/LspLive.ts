/**
 * The language tools on their real adapter: language servers over JSON-RPC, spawned on first use and shut down when
 * the caller's scope ends; or, with `broker`, held by the workspace's LSP broker (LspBroker.ts) so they stay warm
 * between CLI calls and are shared with `mcp serve`, in-process when the broker cannot answer. Sandboxed servers, in
 * the broker or in-process, are restarted when what their sandbox must hide changed (LspRenewal.ts). Loaded on first
 * use by `NodeLayers.extensions`.
 */
import { Context, Effect, Layer, Scope } from "effect"
import * as JsonRpcLspTransport from "../adapters/lsp/JsonRpcLspTransport.js"
import type { ServerEntry } from "../domain/core/Config.js"
import { Diagnostics } from "../ports/Diagnostics.js"
import type { FileSystem } from "../ports/FileSystem.js"
import type { ProtectedAliases } from "../ports/ProtectedAliases.js"
import { LspTransport } from "../ports/LspTransport.js"
import { Session } from "../ports/Session.js"
import { type Extension, Extensions } from "../kernel/Executor.js"
import * as Lazy from "../kernel/Lazy.js"
import { type History, renewed } from "./LspRenewal.js"
import * as LspTools from "../tools/LspTools.js"

export interface LiveOptions extends Omit<JsonRpcLspTransport.Options, "servers" | "root"> {
  readonly servers: Readonly<Record<string, ServerEntry>>
  /** Language servers go in the sandbox (when usable; `launch` puts them there): restarted when what it hides changed. */
  readonly sandboxed?: boolean
  /** The object stores their sandbox hides (`launch`'s history check), part of what it hides. */
  readonly history?: History
  /** Go through the workspace's broker. */
  readonly broker?: boolean
}

/** The real client (servers spawned on first use, shut down when the caller's scope ends). */
export const live = (
  options: LiveOptions
): Effect.Effect<{ readonly extension: Extension; readonly diagnostics: typeof Diagnostics.Service }, never, Scope.Scope | Session | FileSystem | ProtectedAliases> =>
  Effect.gen(function* () {
    const session = yield* Session
    const scope = yield* Effect.scope
    const sandboxed = options.sandboxed === true
    const direct = renewed({ root: session.root, sandboxed }, options.history ?? Effect.succeed(undefined), JsonRpcLspTransport.make({ ...options, root: session.root }))
    const transport =
      options.broker !== true
        ? yield* direct
        : yield* Effect.flatMap(Effect.promise(() => import("./LspBroker.js")), (B) =>
            Effect.flatMap(Lazy.onFirstUse(Scope.extend(direct, scope)), (lazyDirect) =>
              B.client({ root: session.root, servers: options.servers, unrestricted: options.unrestricted === true, sandboxed }, lazyDirect)
            )
          )
    return yield* Effect.provideService(LspTools.make, LspTransport, transport)
  })

/** The language tools alone as the `Extensions` layer, with the post-write hook beside it (tests, and `mcp serve`-like compositions). */
export const layer = (options: LiveOptions): Layer.Layer<Extensions | Diagnostics, never, Session | FileSystem | ProtectedAliases> =>
  Layer.scopedContext(
    Effect.map(live(options), ({ extension, diagnostics }) => Context.make(Extensions, [extension]).pipe(Context.add(Diagnostics, diagnostics)))
  )
