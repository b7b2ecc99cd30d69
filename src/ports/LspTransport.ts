import { Context, type Effect } from "effect"
import type { ToolFailed, ToolTimeout, Unavailable } from "../domain/core/Errors.js"
import type { Diagnostic, DocumentSymbol, Location, SymbolInformation, ZeroPosition } from "../domain/lsp/Lsp.js"

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
  /** The diagnostics the server publishes for this text (awaited by version, bounded). `changed` also sends didChangeWatchedFiles. */
  readonly diagnostics: (
    doc: LspDocument,
    options?: { readonly changed?: boolean }
  ) => Effect.Effect<ReadonlyArray<Diagnostic>, LspError>
  readonly definition: (doc: LspDocument, at: ZeroPosition) => Effect.Effect<ReadonlyArray<Location>, LspError>
  readonly references: (
    doc: LspDocument,
    at: ZeroPosition,
    includeDeclaration: boolean
  ) => Effect.Effect<ReadonlyArray<Location>, LspError>
  /** Hover contents as text ("" when there are none). */
  readonly hover: (doc: LspDocument, at: ZeroPosition) => Effect.Effect<string, LspError>
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
  ) => Effect.Effect<ReadonlyArray<SymbolInformation>, LspError>
}

export class LspTransport extends Context.Tag("minicode/LspTransport")<LspTransport, LspTransportShape>() {}
