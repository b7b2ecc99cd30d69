/**
 * Language servers started again whenever what their sandbox must hide changed since they started: shared by the
 * LSP broker (LspBroker.ts) and the in-process servers (LspLive.ts). bwrap fixes its masks when a server starts, so
 * a secret created (or an object store filled) since is not hidden from a server that stays up.
 *
 * Was a hole (red team), twice: a broker's server, started before `.env` (or `deep/x/prod.env`) existed, read it on
 * a later hover and the agent got its content; then the same with `MINICODE_LSP_BROKER=off`, through the in-process
 * servers of a long session (`mcp serve`); and a masked `.env` replaced by a rename while the server ran. A CLI
 * call's servers die with the call; a broker's and a session's live on.
 */
import * as fs from "node:fs"
import { Effect, Exit, Scope, SynchronizedRef } from "effect"
import * as SecretObjects from "../adapters/shell/SecretObjects.js"
import * as WatchedScan from "../adapters/shell/WatchedScan.js"
import type { LspTransportShape } from "../ports/LspTransport.js"

/** The git folders whose object stores the servers' sandbox hides (a history holding a protected file). */
export type History = Effect.Effect<{ readonly gitDirs: ReadonlyArray<string> } | undefined>

/** Which file a path is now (a replaced one is another), or "-". */
const identity = (p: string) => {
  const st = fs.lstatSync(p, { throwIfNoEntry: false, bigint: true })
  return st === undefined ? "-" : `${st.dev}:${st.ino}`
}

/**
 * What a sandboxed server's profile was made from: the paths the scan masks and pins, which files they are, the
 * object stores hidden. Which files: a mount over a path lasts only while that file is there, so a secret replaced
 * by a rename (an editor's save, `mv new .env`) is the new file, unmasked, in a sandbox that stays up. Also what
 * the MCP client compares for its sandboxed stdio servers (SdkMcpTransport `sandboxView`). Editor controls are left
 * out: a read-only server's view does not depend on them (a settings file saved would restart its servers).
 */
export const viewOf = (root: string, history: History) =>
  Effect.flatMap(Effect.zip(WatchedScan.shared.scan(root), history), ([hits, hidden]) =>
    Effect.map(SecretObjects.toHideEffect(root, hits), (hide) =>
      JSON.stringify([hits.filter((h) => h.verdict !== "control").map((h) => `${h.verdict} ${h.kind} ${h.path} ${identity(h.path)}`).sort(), hide, SecretObjects.secretMessages(root, hits), SecretObjects.remoteFolders(root, hits), hidden?.gitDirs ?? []])
    )
  )

/**
 * The transport `make` builds, built again (the old one's servers closed first) when the view of `root` its sandbox
 * was made from changed; `sandboxed: false` (no sandbox, nothing masked) never restarts.
 */
export const renewed = (
  c: { readonly root: string; readonly sandboxed: boolean },
  history: History,
  make: Effect.Effect<LspTransportShape, never, Scope.Scope>,
  onRestart: () => void = () => undefined
): Effect.Effect<LspTransportShape, never, Scope.Scope> =>
  Effect.gen(function* () {
    const view = c.sandboxed ? viewOf(c.root, history) : Effect.succeed("")
    const start = (key: string) => Effect.flatMap(Scope.make(), (scope) => Effect.map(Scope.extend(make, scope), (t) => ({ key, t, scope })))
    const ref = yield* SynchronizedRef.make(yield* Effect.flatMap(view, start))
    yield* Effect.addFinalizer(() => Effect.flatMap(SynchronizedRef.get(ref), (s) => Scope.close(s.scope, Exit.void)))
    const current = Effect.flatMap(view, (key) =>
      SynchronizedRef.modifyEffect(ref, (s) =>
        s.key === key
          ? Effect.succeed([s.t, s] as const)
          : Effect.zipRight(
              Effect.zipRight(Scope.close(s.scope, Exit.void), Effect.sync(onRestart)),
              Effect.map(start(key), (n) => [n.t, n] as const)
            )
      )
    )
    const first = (yield* SynchronizedRef.get(ref)).t
    return {
      servers: first.servers,
      serverFor: first.serverFor,
      diagnostics: (doc, options) => Effect.flatMap(current, (t) => t.diagnostics(doc, options)),
      definition: (doc, at) => Effect.flatMap(current, (t) => t.definition(doc, at)),
      references: (doc, at, includeDeclaration) => Effect.flatMap(current, (t) => t.references(doc, at, includeDeclaration)),
      hover: (doc, at) => Effect.flatMap(current, (t) => t.hover(doc, at)),
      implementation: (doc, at) => Effect.flatMap(current, (t) => t.implementation(doc, at)),
      callHierarchy: (doc, at, direction) => Effect.flatMap(current, (t) => t.callHierarchy(doc, at, direction)),
      documentSymbols: (doc) => Effect.flatMap(current, (t) => t.documentSymbols(doc)),
      workspaceSymbols: (query, anchors) => Effect.flatMap(current, (t) => t.workspaceSymbols(query, anchors))
    }
  })
