/**
 * The real adapters a session runs on, in one place: the CLI, `mcp serve` and the runTool API all start here and
 * replace what they need (the approver, the allowlist store, a fake for tests).
 */
import { Effect, Layer } from "effect"
import * as Approvers from "../adapters/Approvers.js"
import * as MemoryAllowlist from "../adapters/MemoryAllowlist.js"
import * as MemoryJournal from "../adapters/MemoryJournal.js"
import * as NodeFileSystem from "../adapters/NodeFileSystem.js"
import * as LibpgQueryParser from "../adapters/LibpgQueryParser.js"
import * as NodeShell from "../adapters/NodeShell.js"
import * as NodeSqlEngine from "../adapters/NodeSqlEngine.js"
import * as Unavailable from "../adapters/Unavailable.js"
import type { AllowEntry } from "../domain/Allowlist.js"
import type { Connections } from "../domain/SqlConnection.js"
import { SqlConnections } from "../ports/SqlConnections.js"
import * as BashTool from "./BashTool.js"
import { Extensions } from "./Executor.js"
import * as GitTools from "./GitTools.js"
import type { Adapters } from "./Kernel.js"
import * as SqlTool from "./SqlTool.js"

/** What the guard stage needs to judge sql_query: the configured connections and PostgreSQL's parser. */
export const sqlGuard = (connections: Connections = {}) =>
  Layer.merge(Layer.succeed(SqlConnections, connections), LibpgQueryParser.layer)

/** bash and the git tools over the Node shell; sql_query over SQLite and PostgreSQL. */
export const extensions = (options: { readonly unrestricted: boolean; readonly sql?: Connections }) =>
  Layer.effect(Extensions, Effect.all([BashTool.make, GitTools.make, SqlTool.make])).pipe(
    Layer.provide(Layer.mergeAll(NodeShell.layer(options), NodeSqlEngine.layer, Layer.succeed(SqlConnections, options.sql ?? {})))
  )

export const adapters = (options: {
  readonly unrestricted: boolean
  readonly allowlist?: ReadonlyArray<AllowEntry>
  /** The config file's `sql` entries, decoded (`SqlConnection.parseConnections`). */
  readonly sql?: Connections
}): Adapters => ({
  fileSystem: NodeFileSystem.layer,
  allowlist: MemoryAllowlist.layer(options.allowlist ?? []),
  approver: Approvers.constant("no"),
  bashGuard: Unavailable.bashGuard,
  journal: MemoryJournal.layer(),
  extensions: extensions(options),
  sql: sqlGuard(options.sql)
})
