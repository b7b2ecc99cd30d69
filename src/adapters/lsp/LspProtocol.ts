/**
 * The LSP client's side of the protocol that is not about our own requests: what we tell a server we are
 * (`initialize`), how we answer the requests servers send to clients (so no server stalls waiting for us), and
 * how a server's failure is put into words.
 */
import type * as Rpc from "vscode-jsonrpc/node.js"
import { Either, Schema } from "effect"

export interface Folder {
  readonly uri: string
  readonly name: string
}

export const messageOf = (cause: unknown): string =>
  cause instanceof Error ? cause.message : typeof cause === "object" && cause !== null && "message" in cause ? String(cause.message) : String(cause)

export const tail = (stderr: string) => {
  const t = stderr.trim()
  return t === "" ? "" : `; its stderr ends with: ${t.slice(-600)}`
}

/** The last few lines of a server's stderr, on one line. */
export const lastLines = (stderr: string, n = 5) =>
  stderr
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== "")
    .slice(-n)
    .join(" | ")
    .slice(-600)

/** Answers the requests servers send to clients (`workspace/configuration`, `workDoneProgress/create`, …). */
export const answerServerRequests = (
  m: typeof Rpc,
  conn: Rpc.MessageConnection,
  folders: ReadonlyArray<Folder>,
  /** Told each method a server registers dynamically (`client/registerCapability`). */
  onRegister: (method: string) => void = () => undefined
) => {
  conn.onRequest("workspace/configuration", (params: { readonly items?: ReadonlyArray<unknown> } | undefined) =>
    (params?.items ?? []).map(() => null)
  )
  conn.onRequest("workspace/workspaceFolders", () => folders)
  conn.onRequest("window/workDoneProgress/create", () => null)
  conn.onRequest("client/registerCapability", (params: { readonly registrations?: ReadonlyArray<{ readonly method?: unknown }> } | undefined) => {
    for (const r of params?.registrations ?? []) if (typeof r.method === "string") onRegister(r.method)
    return null
  })
  conn.onRequest("client/unregisterCapability", () => null)
  conn.onRequest("window/showMessageRequest", () => null)
  conn.onRequest("window/showDocument", () => ({ success: false }))
  conn.onRequest("workspace/applyEdit", () => ({ applied: false, failureReason: "minicode's language tools are read-only" }))
  conn.onRequest((method) =>
    method.endsWith("/refresh") ? null : new m.ResponseError(m.ErrorCodes.MethodNotFound, `minicode does not handle ${method}`)
  )
}

/** `processId`: minicode's pid, or null when the server cannot see it (a sandbox's own PID namespace). */
export const initializeParams = (root: string, rootUri: string, folders: ReadonlyArray<Folder>, processId: number | null = process.pid) => ({
  processId,
  clientInfo: { name: "minicode", version: "0.1.0" },
  locale: "en",
  rootPath: root,
  rootUri,
  workspaceFolders: folders,
  capabilities: {
    general: { positionEncodings: ["utf-16"] },
    window: { workDoneProgress: true, showMessage: {}, showDocument: { support: false } },
    workspace: {
      configuration: true,
      workspaceFolders: true,
      applyEdit: false,
      didChangeConfiguration: { dynamicRegistration: false },
      didChangeWatchedFiles: { dynamicRegistration: false },
      symbol: { dynamicRegistration: false, symbolKind: { valueSet: Array.from({ length: 26 }, (_, i) => i + 1) } }
    },
    textDocument: {
      synchronization: { dynamicRegistration: false, didSave: false, willSave: false, willSaveWaitUntil: false },
      diagnostic: { dynamicRegistration: false, relatedDocumentSupport: true },
      publishDiagnostics: { relatedInformation: false, versionSupport: true, codeDescriptionSupport: false, dataSupport: false },
      hover: { dynamicRegistration: false, contentFormat: ["markdown", "plaintext"] },
      definition: { dynamicRegistration: false, linkSupport: true },
      references: { dynamicRegistration: false },
      implementation: { dynamicRegistration: false, linkSupport: true },
      callHierarchy: { dynamicRegistration: false },
      documentSymbol: {
        dynamicRegistration: false,
        hierarchicalDocumentSymbolSupport: true,
        symbolKind: { valueSet: Array.from({ length: 26 }, (_, i) => i + 1) }
      }
    }
  },
  trace: "off"
})

/** What the tools use of a server's `initialize` reply (anything else, or a reply that does not fit, is ignored). */
const InitializeResult = Schema.Struct({
  capabilities: Schema.Struct({
    diagnosticProvider: Schema.optional(
      Schema.Union(
        Schema.Struct({ interFileDependencies: Schema.optional(Schema.Boolean), workspaceDiagnostics: Schema.optional(Schema.Boolean) }),
        Schema.Boolean
      )
    ),
    executeCommandProvider: Schema.optional(Schema.Struct({ commands: Schema.optional(Schema.Array(Schema.String)) })),
    positionEncoding: Schema.optional(Schema.String),
    definitionProvider: Schema.optional(Schema.Unknown),
    referencesProvider: Schema.optional(Schema.Unknown),
    implementationProvider: Schema.optional(Schema.Unknown),
    callHierarchyProvider: Schema.optional(Schema.Unknown),
    hoverProvider: Schema.optional(Schema.Unknown),
    documentSymbolProvider: Schema.optional(Schema.Unknown),
    workspaceSymbolProvider: Schema.optional(Schema.Unknown)
  })
})

/** The requests the tools send that a server must offer, by capability, with the words a refusal uses. */
export const offerable = {
  "textDocument/definition": { capability: "definitionProvider", what: "definitions" },
  "textDocument/references": { capability: "referencesProvider", what: "references" },
  "textDocument/hover": { capability: "hoverProvider", what: "hover" },
  "textDocument/implementation": { capability: "implementationProvider", what: "implementations" },
  "textDocument/prepareCallHierarchy": { capability: "callHierarchyProvider", what: "call hierarchy" },
  "textDocument/documentSymbol": { capability: "documentSymbolProvider", what: "document symbols" },
  "workspace/symbol": { capability: "workspaceSymbolProvider", what: "workspace symbols" }
} as const

export interface ServerCaps {
  /** `textDocument/diagnostic` (pull diagnostics). */
  readonly pull: boolean
  /** `workspace/diagnostic` too (asked after a write, for the files that depend on it). */
  readonly workspacePull: boolean
  /** typescript-language-server's `typescript.tsserverRequest`: tsserver's own diagnostics and project requests. */
  readonly tsserver: boolean
  /** The `offerable` requests its initialize reply offers; undefined when the reply did not fit (then all are tried). */
  readonly offers: ReadonlySet<string> | undefined
}

export const tsserverRequest = "typescript.tsserverRequest"

export const capsOf = (reply: unknown): ServerCaps => {
  const r = Schema.decodeUnknownEither(InitializeResult)(reply)
  if (Either.isLeft(r)) return { pull: false, workspacePull: false, tsserver: false, offers: undefined }
  const c = r.right.capabilities
  const offered = (value: unknown) => value !== undefined && value !== null && value !== false
  return {
    pull: c.diagnosticProvider !== undefined && c.diagnosticProvider !== false,
    workspacePull: typeof c.diagnosticProvider === "object" && c.diagnosticProvider.workspaceDiagnostics === true,
    tsserver: (c.executeCommandProvider?.commands ?? []).includes(tsserverRequest),
    offers: new Set(Object.entries(offerable).flatMap(([method, o]) => (offered(c[o.capability]) ? [method] : [])))
  }
}

/** `$/progress` work-done reports, tracked as the set of tokens begun and not yet ended. */
export const WorkDoneProgress = Schema.Struct({
  token: Schema.Union(Schema.String, Schema.Number),
  value: Schema.Struct({
    kind: Schema.String,
    title: Schema.optional(Schema.String),
    message: Schema.optional(Schema.String),
    percentage: Schema.optional(Schema.Number)
  })
})
