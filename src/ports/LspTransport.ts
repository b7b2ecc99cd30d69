import { Context, type Effect } from "effect"
import type { ToolFailed, ToolTimeout, Unavailable } from "../domain/core/Errors.js"
import type * as CallHierarchy from "../domain/lsp/CallHierarchy.js"
import type { DocumentSymbol, Location, SymbolInformation, ZeroPosition } from "../domain/lsp/Lsp.js"
import type { Answer, DiagnosticsReport } from "../domain/lsp/Reports.js"

export type LspError = ToolFailed | ToolTimeout | Unavailable

/** A file as the caller read it (through the jail): its absolute real path and its current text. */
export interface LspDocument {
  readonly path: string
  readonly text: string
}

export interface LspServerInfo {
  /** `typescript-language-server (.js,.ts,.tsx)`: the command and the extensions it serves. */
  readonly name: string
  readonly extensions: ReadonlyArray<string>
}

/**
 * The language servers configured for the workspace, one process per configuration, started on first use.
 * Every operation opens the document with the text given (`didOpen`, or `didChange` with the next version when
 * it is already open), asks, and closes it again (`didClose`) when no operation uses it any more: servers never
 * keep a stale copy. A server that crashed is restarted on next use (with back-off); one that does not answer
 * fails with a timeout.
 */
export interface LspTransportShape {
  readonly servers: ReadonlyArray<LspServerInfo>
  /** The server configured for this file's extension, if any. */
  readonly serverFor: (path: string) => LspServerInfo | undefined
  /**
   * The diagnostics of this text once the server has settled: pulled (`textDocument/diagnostic`, or tsserver's
   * own diagnostics requests) when the server offers it, else the published report awaited by version, or by work-done
   * progress and a quiet period; `incomplete` when the server's deadline passed while it was still loading.
   * `changed` (after a write) also sends didChangeWatchedFiles and collects errors in files that depend on it.
   */
  readonly diagnostics: (
    doc: LspDocument,
    options?: { readonly changed?: boolean }
  ) => Effect.Effect<DiagnosticsReport, LspError>
  /** Position requests wait for the project to load (up to the server's load deadline; then `loadingSeconds`). */
  readonly definition: (doc: LspDocument, at: ZeroPosition) => Effect.Effect<Answer<ReadonlyArray<Location>>, LspError>
  readonly references: (
    doc: LspDocument,
    at: ZeroPosition,
    includeDeclaration: boolean
  ) => Effect.Effect<Answer<ReadonlyArray<Location>>, LspError>
  /** `textDocument/implementation`: what implements an interface or abstract member (or overrides a method). */
  readonly implementation: (doc: LspDocument, at: ZeroPosition) => Effect.Effect<Answer<ReadonlyArray<Location>>, LspError>
  /** The functions prepared at the position (`textDocument/prepareCallHierarchy`) and their calls one way. */
  readonly callHierarchy: (
    doc: LspDocument,
    at: ZeroPosition,
    direction: CallHierarchy.Direction
  ) => Effect.Effect<Answer<CallHierarchy.Calls>, LspError>
  /** Hover contents as text ("" when there are none). */
  readonly hover: (doc: LspDocument, at: ZeroPosition) => Effect.Effect<Answer<string>, LspError>
  readonly documentSymbols: (
    doc: LspDocument
  ) => Effect.Effect<ReadonlyArray<DocumentSymbol> | ReadonlyArray<SymbolInformation>, LspError>
  /**
   * `workspace/symbol` on every server one of the anchors belongs to (each server is asked with its first anchor
   * open, since some, like tsserver, only know the projects of open files).
   */
  readonly workspaceSymbols: (
    query: string,
    anchors: ReadonlyArray<LspDocument>
  ) => Effect.Effect<Answer<ReadonlyArray<SymbolInformation>>, LspError>
}

export class LspTransport extends Context.Tag("minicode/LspTransport")<LspTransport, LspTransportShape>() {}
