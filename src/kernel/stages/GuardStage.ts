import { Effect, Either, Option } from "effect"
import * as D from "../../domain/core/Decision.js"
import * as PgTreePolicy from "../../domain/sql/PgTreePolicy.js"
import * as SqlPolicy from "../../domain/sql/SqlPolicy.js"
import { Allowlist as AllowlistStore } from "../../ports/Allowlist.js"
import { BashGuard } from "../../ports/BashGuard.js"
import { NetGuard } from "../../ports/NetGuard.js"
import { PostgresParser } from "../../ports/PostgresParser.js"
import { SqlConnections } from "../../ports/SqlConnections.js"
import { Session, type SessionShape } from "../../ports/Session.js"
import { ToolExecutor } from "../../ports/ToolExecutor.js"
import { denied, jailContext, loadAllowlist, wrap } from "./Stage.js"

/**
 * sql_query's guard decision: connection and dialect (a configured connection, a workspace file → SQLite, else the
 * session's hint, else SQLite), the write permission, the static lexer guard, and for PostgreSQL also the walk of
 * PostgreSQL's own parse tree; both guards must allow. Without the parser installed PostgreSQL is denied.
 */
const judgeSql = (
  session: SessionShape,
  connections: Option.Option<typeof SqlConnections.Service>,
  parser: Option.Option<typeof PostgresParser.Service>,
  call: { readonly sql: string; readonly connection?: string | undefined; readonly write?: boolean | undefined }
): Effect.Effect<D.Decision> =>
  Effect.gen(function* () {
    const judged = SqlPolicy.judgeCall(call, Option.getOrElse(connections, () => ({})), session.sqlDialect)
    if (Either.isLeft(judged)) return judged.left
    if (!SqlPolicy.needsTree(judged.right)) return judged.right.decision
    if (Option.isNone(parser)) return D.deny("guard", "sql.pg.parser-unavailable", "PostgreSQL's parser is not installed in this build")
    const tree = yield* Effect.either(parser.value.parse(call.sql))
    if (Either.isLeft(tree)) return SqlPolicy.unparsable(tree.left.reason)
    const combined = SqlPolicy.withTree(judged.right, PgTreePolicy.judge(tree.right, { write: call.write === true, deferFunctions: SqlPolicy.defersFunctions(judged.right) }))
    return Either.isLeft(combined) ? combined.left : combined.right.decision
  })

/**
 * Guard: bash commands judged on their syntax tree (the BashGuard port); allowlist matches can turn an ask into
 * allow. sql_query judged by `judgeSql` (in every policy: read-only is about the database, not the jail).
 * `web_fetch` URLs judged by the SSRF guard (the NetGuard port), resolving names as the real call will (the
 * connection itself is pinned and checked again by the fetch).
 */
const guarded: ReadonlySet<string> = new Set(["bash", "sql_query", "web_fetch"])

export const GuardStage = wrap((next) =>
  Effect.gen(function* () {
    const session = yield* Session
    const guard = yield* BashGuard
    const net = yield* NetGuard
    const store = yield* AllowlistStore
    const connections = yield* Effect.serviceOption(SqlConnections)
    const parser = yield* Effect.serviceOption(PostgresParser)
    const ctx = jailContext(session)
    return ToolExecutor.of({
      run: (inv) =>
        // Only bash, sql_query and web_fetch have a guard; everything else passes straight on.
        !guarded.has(inv.facts.call.tool)
          ? next(inv)
          : Effect.gen(function* () {
              const call = inv.facts.call
              if (call.tool === "web_fetch") {
                const checked = yield* net.check(call.args.url)
                if (D.isDeny(checked.decision)) return yield* denied(inv, checked.decision)
                return yield* next({ ...inv, decisions: [...inv.decisions, checked.decision] })
              }
              if (call.tool === "sql_query") {
                const decision = yield* judgeSql(session, connections, parser, call.args)
                if (D.isDeny(decision)) return yield* denied(inv, decision)
                return yield* next({ ...inv, decisions: [...inv.decisions, decision] })
              }
              if (call.tool !== "bash" || session.policy === "unrestricted") return yield* next(inv)
              const allowlist = yield* loadAllowlist(store)
              const cwd = inv.resolved["cwd"]?.real ?? session.root
              const judged = yield* guard.judge({
                command: call.args.command,
                cwd,
                jail: ctx,
                allowlist,
                requireAllowlist: session.policy === "allowlist",
                network: call.args.network === true
              })
              if (D.isDeny(judged.decision)) return yield* denied(inv, judged.decision)
              const permission =
                inv.permission.decision === "ask" && judged.allowlisted
                  ? D.allow("permission", "allowlist.saved", "every command matches a saved approval")
                  : inv.permission
              return yield* next({ ...inv, permission, decisions: [...inv.decisions, judged.decision] })
            })
    })
  })
)
