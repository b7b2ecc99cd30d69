/**
 * The `sql_query` tool: runs an admitted call on the SqlEngine port and renders the rows as a compact table.
 *
 * The guard stage already decided; this executor re-derives the connection and the statements from the same pure
 * functions (so what runs is exactly what was judged, one statement per prepare) and re-checks the write
 * permission. The engine then enforces read-only on its own (layer 2); its refusals come back as denials.
 */
import { Effect, Either } from "effect"
import { ToolDenied, ToolFailed, ToolTimeout, Unavailable } from "../domain/core/Errors.js"
import { redact } from "../domain/core/Redact.js"
import * as SqlConnection from "../domain/sql/SqlConnection.js"
import type { SqlDialect } from "../domain/sql/SqlLexer.js"
import * as PgTreePolicy from "../domain/sql/PgTreePolicy.js"
import * as SqlPolicy from "../domain/sql/SqlPolicy.js"
import * as SqlTable from "../domain/sql/SqlTable.js"
import { PostgresParser } from "../ports/PostgresParser.js"
import * as Progress from "../ports/Progress.js"
import { Session } from "../ports/Session.js"
import { SqlConnections } from "../ports/SqlConnections.js"
import { connectTimeoutRule, SqlEngine, type SqlEngineError, type SqlTarget } from "../ports/SqlEngine.js"
import type { Extension } from "../kernel/Executor.js"
import type { Invocation } from "../ports/ToolExecutor.js"

export const defaultMaxRows = 200
/** No call gets more rows than this, whatever max_rows says. */
export const hardMaxRows = 10_000
export const defaultTimeoutMs = SqlConnection.defaultTimeoutMs

/** An engine's error as the tool's: `tool` is the one that ran (sql_query, sql_schema). */
const fromEngine = (error: SqlEngineError, limit: SqlConnection.TimeLimit, tool: "sql_query" | "sql_schema" = "sql_query") => {
  switch (error.kind) {
    case "refused":
      return new ToolDenied({ tool, stage: "guard", rule: error.rule, reason: `the database engine refused: ${error.reason}` })
    case "timeout":
      return new ToolTimeout({ tool, millis: limit.millis, reason: error.rule === connectTimeoutRule ? SqlConnection.connectOverTime(limit) : SqlConnection.overTime(limit) })
    case "unavailable":
      return new Unavailable({ port: tool, reason: error.reason })
    case "failed":
      return new ToolFailed({ tool, reason: redact(error.reason) })
  }
}

/** What a progress note calls the place a call's statements run: a connection's name, or the database file. */
export const placeOf = (target: SqlConnection.Target): string =>
  target._tag === "Named" ? target.name : target._tag === "WorkspaceFile" ? target.path : "the database"

/** Where a call's statements run: the file the jail judged, or the configured connection. */
export const locate = (target: SqlConnection.Target, inv: Invocation, tool: string): Effect.Effect<SqlTarget, ToolFailed> => {
  switch (target._tag) {
    case "WorkspaceFile": {
      const resolved = inv.resolved["connection"]
      if (resolved === undefined) return Effect.fail(new ToolFailed({ tool, reason: `${target.path} was not resolved by the jail` }))
      if (resolved.kind !== "file") return Effect.fail(new ToolFailed({ tool, reason: `${target.path} is not an existing database file` }))
      return Effect.succeed({ dialect: "sqlite", file: resolved.real, expect: { dev: resolved.dev, ino: resolved.ino } })
    }
    case "Named":
      return Effect.succeed(targetOf(target.entry, target.dialect))
    case "Unbound":
      return Effect.fail(new ToolFailed({ tool, reason: target.reason }))
  }
}

/** Where a configured connection's statements run. */
export const targetOf = (entry: SqlConnection.ConnectionEntry, dialect: SqlDialect): SqlTarget =>
  entry.sqlite !== undefined || dialect === "sqlite"
    ? { dialect: "sqlite", file: entry.sqlite ?? "" }
    : { dialect, url: entry.url ?? "" }

export { fromEngine }

export const make = Effect.gen(function* () {
  const engine = yield* SqlEngine
  const session = yield* Session
  const connections = yield* SqlConnections
  const parser = yield* PostgresParser
  /** The functions the guard left to the connection (the same parse and walk the guard stage did). */
  const deferredFunctions = (admitted: SqlPolicy.Admitted, sql: string, write: boolean) =>
    !SqlPolicy.defersFunctions(admitted)
      ? Effect.succeed(undefined)
      : parser.parse(sql).pipe(
        Effect.map((tree) => {
          const verdict = PgTreePolicy.judge(tree, { write, deferFunctions: true })
          return verdict._tag === "Allow" ? verdict.deferred : undefined
        }),
        // Fail closed: the guard left these functions to the connection, so they must reach it.
        Effect.mapError((error) => new ToolDenied({ tool: "sql_query", stage: "guard", rule: "sql.pg.syntax", reason: error.message }))
      )
  const extension: Extension = (inv) => {
    const call = inv.facts.call
    if (call.tool !== "sql_query") return undefined
    return Effect.gen(function* () {
      const judged = SqlPolicy.judgeCall(call.args, connections, session.sqlDialect)
      if (Either.isLeft(judged)) {
        const d = judged.left
        return yield* new ToolDenied({ tool: "sql_query", stage: d.stage, rule: d.rule, reason: d.reason })
      }
      const { target, statements } = judged.right
      const where = yield* locate(target, inv, "sql_query")
      const maxRows = Math.min(call.args.max_rows ?? defaultMaxRows, hardMaxRows)
      const limit = SqlConnection.timeLimit(call.args.timeout_ms, target)
      const functions = yield* deferredFunctions(judged.right, call.args.sql, call.args.write === true)
      const progress = yield* Progress.current
      const count = statements.length === 1 ? "1 statement" : `${statements.length} statements`
      if (progress.watched) progress.note(`sql_query: running ${count} on ${placeOf(target)}`)
      const result = yield* engine
        .run(where, { statements, params: call.args.params ?? [], maxRows, write: call.args.write === true, timeoutMs: limit.millis, functions })
        .pipe(Effect.mapError((error) => fromEngine(error, limit)))
      // The footer must survive the executor's output cap: the table is fitted below it (headroom for the marker).
      const budget = Math.max(256, session.maxOutputBytes - 200)
      return {
        text: SqlTable.renderAll(result.results, maxRows, { maxCell: call.args.max_cell, budget }),
        truncated: result.results.some((r) => r.truncated),
        structured: SqlTable.structured(result.results, budget)
      }
    })
  }
  return extension
})
