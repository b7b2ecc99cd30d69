/**
 * PostgreSQL functions decided by what the server says of them (issues 24, 43), for PostgresEngine: on a configured
 * connection every function a call names (allowlisted or not) runs only if every overload it may resolve to (by its
 * schema, else the search path) passes PgFunctionRule (IMMUTABLE or STABLE, or a built-in VOLATILE reader such as
 * random(); not SECURITY DEFINER; no reach family), and an SQL-language body passes the read-only guard. A user's
 * `public.lower()` shadowing a built-in is judged like any other overload. Verdicts are cached per connection URL.
 */
import type * as Pg from "pg"
import { type Overload, refusal } from "../../domain/sql/PgFunctionRule.js"
import { bodyRefusal } from "../../domain/sql/PgReadRule.js"
import { judge } from "../../domain/sql/SqlGuard.js"
import { SqlEngineError } from "../../ports/SqlEngine.js"

/** Every overload of each name in `$1` (lower-cased when unquoted by the parser already) in schema `$2`, else the search path. */
const lookup = `SELECT p.proname::text, n.nspname::text, p.provolatile::text, p.prosecdef, l.lanname::text, p.prosrc,
  CASE WHEN p.prosrc = '' AND n.nspname <> 'pg_catalog' THEN pg_catalog.pg_get_functiondef(p.oid) END
FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace JOIN pg_catalog.pg_language l ON l.oid = p.prolang
WHERE p.proname = ANY ($1::text[]) AND (CASE WHEN $2::text IS NULL THEN n.nspname = ANY (pg_catalog.current_schemas(true)) ELSE n.nspname = $2 END)`

/** Functions attribute notation can call (`t.f` runs `f(t)`): one argument, of a composite (row) type. */
const attributeLookup = `SELECT p.proname::text, n.nspname::text, p.provolatile::text, p.prosecdef, l.lanname::text, p.prosrc,
  CASE WHEN p.prosrc = '' AND n.nspname <> 'pg_catalog' THEN pg_catalog.pg_get_functiondef(p.oid) END
FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace JOIN pg_catalog.pg_language l ON l.oid = p.prolang
JOIN pg_catalog.pg_type t ON t.oid = p.proargtypes[0]
WHERE p.proname = ANY ($1::text[]) AND p.pronargs = 1 AND t.typtype = 'c' AND n.nspname = ANY (pg_catalog.current_schemas(true))`

/** Why the overload in `row` may not run in a read, or undefined. */
const judgeRow = (qualified: ReadonlyArray<string>, row: ReadonlyArray<unknown>): string | undefined => {
  const [, schema, volatility, securityDefiner, language, source, definition] = row
  const overload: Overload = { schema: String(schema), volatility: String(volatility), securityDefiner: securityDefiner === true, language: String(language) }
  const reason = refusal(qualified, overload)
  if (reason !== undefined) return reason
  // Built-ins are judged by PgFunctionRule alone (some are SQL-language: col_description, obj_description).
  if (typeof source !== "string" || overload.schema === "pg_catalog") return undefined
  if (source === "" && typeof definition === "string") {
    // A BEGIN ATOMIC body (PostgreSQL 14+) is kept parsed, not as text: its definition is read for reaching calls.
    const body = bodyRefusal(definition)
    if (body !== undefined) return `${qualified.join(".")}(): ${body}`
  } else if (overload.language === "sql") {
    const body = judge(source, { dialect: "postgres" })
    if (body._tag === "Deny") return `${qualified.join(".")}()'s body: ${body.reason}`
  } else if (overload.schema !== "pg_catalog" && !["internal", "c"].includes(overload.language)) {
    // A procedural body (PL/pgSQL…) declared STABLE may still call set_config('role', …) or dblink_exec.
    const body = bodyRefusal(source)
    if (body !== undefined) return `${qualified.join(".")}(): ${body}`
  }
  return undefined
}

export type FunctionCheck = (client: Pg.PoolClient, functions: ReadonlyArray<ReadonlyArray<string>>, attributes?: ReadonlyArray<string>) => Promise<void>

export const functionCheck = (): FunctionCheck => {
  const cache = new Map<string, string | undefined>()
  const keyOf = (qualified: ReadonlyArray<string>) => (qualified.length === 2 ? `${qualified[0]}.${qualified[1]}` : `.${qualified[0] ?? ""}`)
  return async (client, functions, attributes = []) => {
    const unjudged = attributes.filter((name) => !cache.has(`@${name}`))
    if (unjudged.length > 0) {
      const found = await client.query({ text: attributeLookup, values: [unjudged], rowMode: "array" })
      const rows = found.rows.filter((row: unknown): row is ReadonlyArray<unknown> => Array.isArray(row))
      for (const name of unjudged) cache.set(`@${name}`, rows.filter((row) => row[0] === name).map((row) => judgeRow([name], row)).find((r) => r !== undefined))
    }
    for (const name of attributes) {
      const reason = cache.get(`@${name}`)
      if (reason !== undefined) throw new SqlEngineError({ kind: "refused", rule: "sql.pg.function", reason: `.${name} may call a function (attribute notation): ${reason}` })
    }
    const missing = functions.filter((f) => !cache.has(keyOf(f)))
    // One round trip for the unqualified names, one per schema named.
    const bySchema = new Map<string | null, Array<ReadonlyArray<string>>>()
    for (const f of missing) {
      const schema = f.length === 2 ? f[0] ?? null : null
      bySchema.set(schema, [...(bySchema.get(schema) ?? []), f])
    }
    for (const [schema, group] of bySchema) {
      const names = [...new Set(group.map((f) => f[f.length - 1] ?? ""))]
      const found = await client.query({ text: lookup, values: [names, schema], rowMode: "array" })
      const rows = found.rows.filter((row: unknown): row is ReadonlyArray<unknown> => Array.isArray(row))
      for (const f of group) {
        const name = f[f.length - 1] ?? ""
        // Not found: PostgreSQL itself will say the function does not exist (with its HINT).
        const reasons = rows.filter((row) => row[0] === name).map((row) => judgeRow(f, row))
        cache.set(keyOf(f), reasons.find((r) => r !== undefined))
      }
    }
    for (const f of functions) {
      const reason = cache.get(keyOf(f))
      if (reason !== undefined) throw new SqlEngineError({ kind: "refused", rule: "sql.pg.function", reason })
    }
  }
}
