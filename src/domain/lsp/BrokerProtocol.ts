/**
 * What the CLI (or `mcp serve`) and the per-workspace LSP broker say to each other over its socket: one JSON line
 * per request, then the broker's progress lines and one reply line. A request carries the language part of a call
 * the chain already judged: the operation, the workspace root, and the documents as the caller read them through
 * the jail (path and text). The broker serves only its own root. Pure.
 */
import { Schema } from "effect"
import { ToolFailed, ToolTimeout, Unavailable } from "../core/Errors.js"

/** Bumped when a request or reply changes shape: a broker of another version is not spoken to. */
export const version = 2

const Document = Schema.Struct({ path: Schema.String, text: Schema.String })
const Position = Schema.Struct({ line: Schema.Number, character: Schema.Number })

export const Operation = Schema.Union(
  Schema.Struct({ op: Schema.Literal("diagnostics"), doc: Document, changed: Schema.Boolean }),
  Schema.Struct({ op: Schema.Literal("definition", "hover", "implementation"), doc: Document, at: Position }),
  Schema.Struct({ op: Schema.Literal("callHierarchy"), doc: Document, at: Position, direction: Schema.Literal("incoming", "outgoing") }),
  Schema.Struct({ op: Schema.Literal("references"), doc: Document, at: Position, includeDeclaration: Schema.Boolean }),
  Schema.Struct({ op: Schema.Literal("documentSymbols"), doc: Document }),
  Schema.Struct({ op: Schema.Literal("workspaceSymbols"), query: Schema.String, anchors: Schema.Array(Document) }),
  Schema.Struct({ op: Schema.Literal("status", "stop") })
)
export type Operation = typeof Operation.Type

export const Request = Schema.Struct({
  version: Schema.Literal(version),
  /** The workspace's real path: a broker refuses any other. */
  root: Schema.String,
  /** Whether the caller shows progress notes (`Progress.watched`). */
  watched: Schema.Boolean,
  operation: Operation
})
export type Request = typeof Request.Type

export const LspFailure = Schema.Union(ToolFailed, ToolTimeout, Unavailable)

export const Status = Schema.Struct({
  pid: Schema.Number,
  root: Schema.String,
  uptimeMs: Schema.Number,
  requests: Schema.Number,
  idleMs: Schema.Number,
  /** The broker's resident memory, and its language servers' (the processes under it), in bytes. */
  rssBytes: Schema.Number,
  serversRssBytes: Schema.Number,
  /** The pids of the processes it started (the language servers, or their sandboxes). */
  children: Schema.Array(Schema.Number)
})
export type Status = typeof Status.Type

export const Line = Schema.Union(
  Schema.Struct({ kind: Schema.Literal("note"), message: Schema.String }),
  Schema.Struct({ kind: Schema.Literal("log"), level: Schema.Literal("info", "warning", "error"), message: Schema.String }),
  Schema.Struct({ kind: Schema.Literal("ok"), value: Schema.Unknown }),
  Schema.Struct({ kind: Schema.Literal("failed"), error: LspFailure })
)
export type Line = typeof Line.Type

export const LineJson = Schema.parseJson(Line)
export const RequestJson = Schema.parseJson(Request)

/** The path is the root or inside it (both absolute real paths, as the jail resolved them). */
export const inside = (root: string, path: string): boolean => path === root || path.startsWith(root.endsWith("/") ? root : `${root}/`)

/** The documents a request hands to the language servers. */
export const documentsOf = (operation: Operation): ReadonlyArray<{ readonly path: string }> =>
  operation.op === "workspaceSymbols" ? operation.anchors : "doc" in operation ? [operation.doc] : []
