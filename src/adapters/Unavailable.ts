/**
 * Explicit "not available" adapters for ports whose real adapter is not installed in this configuration.
 * They fail with a clear reason; without the bash parser the guard denies (fail closed), never allows.
 */
import { Effect, Layer } from "effect"
import { Unavailable } from "../domain/core/Errors.js"
import { BashParseError, BashParser } from "../ports/BashParser.js"
import { LspTransport } from "../ports/LspTransport.js"
import { McpTransport } from "../ports/McpTransport.js"
import { PostgresParser, PostgresParserUnavailable } from "../ports/PostgresParser.js"
import { nothing, ProtectedAliases } from "../ports/ProtectedAliases.js"
import { SandboxState } from "../ports/SandboxState.js"
import { SearchWorkerError, SearchWorkers } from "../ports/SearchWorkers.js"
import { SqlConnections } from "../ports/SqlConnections.js"
import { Shell, ShellError } from "../ports/Shell.js"
import { TextSearch, TextSearchError } from "../ports/TextSearch.js"

/** No bash parser: every parse fails `unavailable`, and the Guard stage denies bash with that reason. */
export const bashParser = Layer.succeed(
  BashParser,
  BashParser.of({ parse: () => Effect.fail(new BashParseError({ reason: "unavailable" })) })
)

/** No external search engine: grep and glob always walk the tree themselves. */
export const textSearch = Layer.succeed(
  TextSearch,
  TextSearch.of({ engine: "none", search: () => Effect.fail(new TextSearchError({ kind: "unavailable", reason: "no search engine is installed" })) })
)

/** No worker thread for grep's own search: it reads and matches on the calling thread (in-memory compositions). */
export const searchWorkers = Layer.succeed(
  SearchWorkers,
  SearchWorkers.of({ open: () => Effect.fail(new SearchWorkerError({ kind: "unavailable", reason: "no search worker in this composition" })) })
)

/** No workspace scan: protected content under other names is not looked for, names alone are judged. */
export const aliases = Layer.succeed(ProtectedAliases, ProtectedAliases.of(nothing))

export const shell = Layer.succeed(
  Shell,
  Shell.of({ run: () => Effect.fail(new ShellError({ reason: "no shell adapter is installed" })) })
)

const missing = (port: string) => () => Effect.fail(new Unavailable({ port, reason: "no server is configured for it" }))

export const mcpTransport = Layer.succeed(
  McpTransport,
  McpTransport.of({ servers: [], list: missing("MCP client"), call: missing("MCP client"), read: missing("MCP client"), prompt: missing("MCP client") })
)

const noLsp = missing("LSP client")
export const lspTransport = Layer.succeed(
  LspTransport,
  LspTransport.of({
    servers: [],
    serverFor: () => undefined,
    diagnostics: noLsp,
    definition: noLsp,
    references: noLsp,
    hover: noLsp,
    implementation: noLsp,
    callHierarchy: noLsp,
    documentSymbols: noLsp,
    workspaceSymbols: noLsp
  })
)

/**
 * No SQL configured: no connections, and no PostgreSQL parser (the guard denies PostgreSQL statements with
 * `sql.pg.parser-unavailable`; SQLite files in the workspace are still judged by the lexer guard).
 */
export const sql = Layer.merge(
  Layer.succeed(SqlConnections, {}),
  Layer.succeed(PostgresParser, PostgresParser.of({ parse: () => Effect.fail(new PostgresParserUnavailable()) }))
)

/**
 * No OS sandbox for bash: the guard then takes the stricter reading of `Unsandboxed` (bash asks before workspace
 * code and dynamic words), and says why in its question.
 */
export const sandboxState = Layer.succeed(
  SandboxState,
  SandboxState.of({ bash: Effect.succeed({ _tag: "Unsandboxed", reason: "this session was given no sandbox" }) })
)

