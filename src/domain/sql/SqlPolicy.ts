/**
 * The guard-stage decision for `sql_query` (issue 7), pure: which connection and dialect, whether a write is
 * permitted there (layer 3), and the static guard's verdict (layer 1, lexer); for PostgreSQL the parse-tree walk's
 * verdict is combined in by `withTree` (both must allow).
 */
import { Either } from "effect"
import * as D from "../core/Decision.js"
import type { PgVerdict } from "./PgTreePolicy.js"
import { type Connections, resolve, type Target, writePermission } from "./SqlConnection.js"
import { judge } from "./SqlGuard.js"
import type { SqlDialect } from "./SqlLexer.js"

export interface SqlCall {
  readonly sql: string
  readonly connection?: string | undefined
  readonly write?: boolean | undefined
}

export interface Admitted {
  readonly target: Target
  readonly statements: ReadonlyArray<string>
  readonly decision: D.Decision
}

/** Connection, write permission and the lexer guard, in that order; the first refusal is the decision. */
export const judgeCall = (call: SqlCall, connections: Connections, hint: SqlDialect | undefined): Either.Either<Admitted, D.Decision> => {
  const write = call.write === true
  const resolved = resolve(call.connection, connections, hint)
  if (Either.isLeft(resolved)) return Either.left(D.deny("guard", resolved.left.rule, resolved.left.reason))
  const target = resolved.right
  const refusal = writePermission(target, write)
  if (refusal !== undefined) return Either.left(D.deny("guard", refusal.rule, refusal.reason))
  const verdict = judge(call.sql, { dialect: target.dialect, write })
  if (verdict._tag === "Deny") return Either.left(D.deny("guard", verdict.rule, verdict.reason))
  const where = target._tag === "Named" ? `connection "${target.name}"` : target._tag === "WorkspaceFile" ? target.path : "no named connection"
  return Either.right({
    target,
    statements: verdict.statements,
    decision: write
      ? D.allow("guard", "sql.write", `a permitted write on ${where}: clear of files, network, processes, server settings and privileges`)
      : D.allow("guard", "sql.read-only", `read-only ${target.dialect} on ${where}`)
  })
}

/** Whether the PostgreSQL parser must also judge this call. */
export const needsTree = (admitted: Admitted): boolean => admitted.target.dialect === "postgres"

/**
 * Whether functions off the static allowlist are left to the connection (pg_proc, looked up by the engine): only
 * on a configured PostgreSQL connection. Without one (`policy explain`, conformance) the static allowlist decides.
 */
export const defersFunctions = (admitted: Admitted): boolean => admitted.target._tag === "Named" && admitted.target.dialect === "postgres"

/** Combines the parse-tree walk's verdict: a deny there denies the call. */
export const withTree = (admitted: Admitted, tree: PgVerdict): Either.Either<Admitted, D.Decision> =>
  tree._tag === "Deny"
    ? Either.left(D.deny("guard", tree.rule, tree.reason))
    : tree.statements !== admitted.statements.length
    ? Either.left(D.deny("guard", "sql.pg.split-mismatch", `the lexer sees ${admitted.statements.length} statement(s), PostgreSQL's parser ${tree.statements}`))
    : Either.right({
      ...admitted,
      decision: {
        ...admitted.decision,
        reason: `${admitted.decision.reason}; PostgreSQL's parser agrees${tree.deferred === undefined ? "" : `; ${tree.deferred.map((f) => f.join(".")).join(", ")} judged on the connection by pg_proc (IMMUTABLE/STABLE, not SECURITY DEFINER)`}`
      }
    })

/** The parser could not read the text: PostgreSQL would not run it either, and nothing unread is allowed. */
export const unparsable = (reason: string): D.Decision => D.deny("guard", "sql.pg.syntax", `PostgreSQL's parser rejects this: ${reason}`)
