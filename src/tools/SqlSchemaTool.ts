/**
 * `sql_schema` and `sql_connections` (issue 24): what a database holds and which connections exist, so the agent
 * never guesses. `sql_schema` runs fixed introspection statements (SqlSchema.ts) through the same engine, always
 * read-only (layer 2 holds for them as for any read); `sql_connections` lists names, engines and modes without
 * touching a database and never prints a password.
 */
import { Effect, Either } from "effect"
import { ToolDenied } from "../domain/core/Errors.js"
import * as SqlConnection from "../domain/sql/SqlConnection.js"
import * as SqlSchema from "../domain/sql/SqlSchema.js"
import type { Extension } from "../kernel/Executor.js"
import { Session } from "../ports/Session.js"
import { SqlConnections } from "../ports/SqlConnections.js"
import { SqlEngine } from "../ports/SqlEngine.js"
import * as Progress from "../ports/Progress.js"
import { fromEngine, locate, placeOf } from "./SqlTool.js"

/** One line per configured connection: name, engine, mode, time limit (credentials masked). */
export const listing = (connections: SqlConnection.Connections): string => {
  const names = Object.keys(connections)
  if (names.length === 0) return "no SQL connections configured (minicode config sql add NAME --sqlite FILE | --url postgres://… | mysql://…); a workspace .db/.sqlite file may be named directly"
  return names.map((name) => SqlConnection.describe(name, connections[name] ?? {})).join("\n")
}

export const make = Effect.gen(function* () {
  const engine = yield* SqlEngine
  const session = yield* Session
  const connections = yield* SqlConnections
  const extension: Extension = (inv) => {
    const call = inv.facts.call
    if (call.tool === "sql_connections") return Effect.succeed({ text: listing(connections), truncated: false })
    if (call.tool !== "sql_schema") return undefined
    return Effect.gen(function* () {
      const resolved = SqlConnection.resolve(call.args.connection, connections, session.sqlDialect)
      if (Either.isLeft(resolved)) return yield* new ToolDenied({ tool: "sql_schema", stage: "guard", rule: resolved.left.rule, reason: resolved.left.reason })
      const target = resolved.right
      const where = yield* locate(target, inv, "sql_schema")
      const { statements, params } = SqlSchema.queries(target.dialect, call.args.table)
      const limit = SqlConnection.timeLimit(undefined, target)
      const progress = yield* Progress.current
      if (progress.watched) progress.note(`sql_schema: reading the schema of ${placeOf(target)}`)
      const result = yield* engine
        .run(where, { statements, params, maxRows: 20_000, write: false, timeoutMs: limit.millis })
        .pipe(Effect.mapError((error) => fromEngine(error, limit, "sql_schema")))
      const [columns, foreign, indexes, facts] = result.results
      return { text: SqlSchema.render(columns?.rows ?? [], foreign?.rows ?? [], indexes?.rows ?? [], call.args.table, facts?.rows ?? []), truncated: false }
    })
  }
  return extension
})
