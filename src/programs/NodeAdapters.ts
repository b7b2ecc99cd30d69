/**
 * The real adapters a session runs on, in one place: the CLI, `mcp serve` and the runTool API all start here and
 * replace what they need (the approver, the allowlist store, a fake for tests).
 */
import { Context, Effect, Layer } from "effect"
import * as Approvers from "../adapters/Approvers.js"
import * as MemoryAllowlist from "../adapters/MemoryAllowlist.js"
import * as MemoryJournal from "../adapters/MemoryJournal.js"
import * as NodeFileSystem from "../adapters/NodeFileSystem.js"
import * as LibpgQueryParser from "../adapters/LibpgQueryParser.js"
import * as NodeShell from "../adapters/NodeShell.js"
import * as NodeSqlEngine from "../adapters/NodeSqlEngine.js"
import type { AllowEntry } from "../domain/Allowlist.js"
import type { ServerEntry } from "../domain/Config.js"
import { ToolFailed } from "../domain/Errors.js"
import type { Connections } from "../domain/SqlConnection.js"
import { Diagnostics } from "../ports/Diagnostics.js"
import { Session } from "../ports/Session.js"
import { SqlConnections } from "../ports/SqlConnections.js"
import * as BashTool from "./BashTool.js"
import { Extensions } from "./Executor.js"
import * as GitTools from "./GitTools.js"
import * as RepoMap from "./RepoMap.js"
import type { Adapters } from "./Kernel.js"
import * as SqlTool from "./SqlTool.js"

/**
 * The SQLite journal at `<workspace>/.minicode/state.db`, loaded on first use only: commands that never mutate
 * (explain, conformance, doctor) do not pay for SQLite.
 */
export const sqliteJournal = Layer.unwrapEffect(
  Effect.gen(function* () {
    const session = yield* Session
    const SqliteJournal = yield* Effect.promise(() => import("../adapters/SqliteJournal.js"))
    return SqliteJournal.layer({ dbPath: SqliteJournal.dbPathFor(session.root) }).pipe(
      Layer.mapError((e) => new ToolFailed({ tool: "journal", reason: e.reason }))
    )
  })
)

/** The bash guard on tree-sitter-bash, loaded on first use (the parser and its rules are the heaviest code). */
export const treeSitterGuard = Layer.unwrapEffect(
  Effect.promise(() => import("../adapters/TreeSitterBashParser.js")).pipe(Effect.map((m) => m.layer))
)

/** What the guard stage needs to judge sql_query: the configured connections and PostgreSQL's parser. */
export const sqlGuard = (connections: Connections = {}) =>
  Layer.merge(Layer.succeed(SqlConnections, connections), LibpgQueryParser.layer)

/**
 * bash and the git tools over the Node shell; sql_query over SQLite and PostgreSQL; the MCP tools and web_fetch
 * over the SDK client and the pinned fetch (loaded on first use; servers are closed when the session's scope ends);
 * the lsp_* tools over the configured language servers (started on first use, shut down with the session), with
 * the post-write `Diagnostics` hook beside the extensions (the executor picks it up); repo_map.
 */
export const extensions = (options: {
  readonly unrestricted: boolean
  readonly mcpServers?: Readonly<Record<string, ServerEntry>>
  readonly sql?: Connections
  /** The config file's `lsp` entries (extension → server). */
  readonly lsp?: Readonly<Record<string, ServerEntry>>
  /** "regex" forces the repo map's regex outlines (default: MINICODE_REPOMAP). */
  readonly repoMap?: "auto" | "regex"
}) =>
  Layer.scopedContext(
    Effect.gen(function* () {
      const session = yield* Session
      const local = yield* Effect.all([BashTool.make, GitTools.make, SqlTool.make])
      const McpTools = yield* Effect.promise(() => import("./McpTools.js"))
      const mcp = yield* McpTools.live({ servers: options.mcpServers ?? {}, cwd: session.root, env: process.env })
      const LspTools = yield* Effect.promise(() => import("./LspTools.js"))
      const lsp = yield* LspTools.live({ servers: options.lsp ?? {}, env: process.env, unrestricted: options.unrestricted })
      const repoMap = yield* RepoMap.make({ mode: options.repoMap ?? (process.env["MINICODE_REPOMAP"] === "regex" ? "regex" : "auto") })
      return Context.make(Extensions, [...local, mcp, lsp.extension, repoMap]).pipe(Context.add(Diagnostics, lsp.diagnostics))
    })
  ).pipe(
    Layer.provide(Layer.mergeAll(NodeShell.layer(options), NodeSqlEngine.layer, Layer.succeed(SqlConnections, options.sql ?? {})))
  )

export const adapters = (options: {
  readonly unrestricted: boolean
  readonly allowlist?: ReadonlyArray<AllowEntry>
  /** "memory" for decisions only (explain, conformance) and dry runs. */
  readonly journal?: "sqlite" | "memory"
  readonly mcpServers?: Readonly<Record<string, ServerEntry>>
  /** The config file's `sql` entries, decoded (`SqlConnection.parseConnections`). */
  readonly sql?: Connections
  /** The config file's `lsp` entries. */
  readonly lsp?: Readonly<Record<string, ServerEntry>>
}): Adapters<ToolFailed> => ({
  fileSystem: NodeFileSystem.layer,
  allowlist: MemoryAllowlist.layer(options.allowlist ?? []),
  approver: Approvers.constant("no"),
  bashGuard: treeSitterGuard,
  journal: options.journal === "memory" ? MemoryJournal.layer() : sqliteJournal,
  extensions: extensions(options),
  sql: sqlGuard(options.sql)
})
