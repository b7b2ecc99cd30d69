/**
 * PostgreSQL functions decided by what the server says of them (issue 24), for PostgresEngine: a function the
 * static allowlist does not know runs only if every overload it may resolve to (by its schema, else the search path)
 * is IMMUTABLE or STABLE and not SECURITY DEFINER, and an SQL-language body passes the read-only guard. VOLATILE ones
 * stay refused unless the allowlist names them (then they never get here); file, program, network and large-object
 * functions were denied by name before. Verdicts are cached per connection URL.
 */
import type * as Pg from "pg"
import { judge } from "../../domain/sql/SqlGuard.js"
import { SqlEngineError } from "../../ports/SqlEngine.js"

const lookup = `SELECT p.provolatile::text, p.prosecdef, l.lanname::text, p.prosrc, n.nspname::text
FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace JOIN pg_catalog.pg_language l ON l.oid = p.prolang
WHERE p.proname = $1 AND (CASE WHEN $2::text IS NULL THEN n.nspname = ANY (pg_catalog.current_schemas(true)) ELSE n.nspname = $2 END)`

const volatility: Readonly<Record<string, string>> = { i: "IMMUTABLE", s: "STABLE", v: "VOLATILE" }

/** Why `row` (one overload) may not run in a read, or undefined. */
const refusal = (name: string, row: ReadonlyArray<unknown>): string | undefined => {
  const [vol, secdef, language, source] = row
  if (vol !== "i" && vol !== "s") return `${name}() is ${volatility[String(vol)] ?? String(vol)} on this server: only IMMUTABLE and STABLE functions (or allowlisted ones) may run`
  if (secdef === true) return `${name}() is SECURITY DEFINER: it runs with its owner's rights`
  if (language === "sql" && typeof source === "string") {
    const body = judge(source, { dialect: "postgres" })
    if (body._tag === "Deny") return `${name}()'s body: ${body.reason}`
  }
  return undefined
}

export type FunctionCheck = (client: Pg.PoolClient, functions: ReadonlyArray<ReadonlyArray<string>>) => Promise<void>

export const functionCheck = (): FunctionCheck => {
  const cache = new Map<string, string | undefined>()
  return async (client, functions) => {
    for (const qualified of functions) {
      const name = qualified[qualified.length - 1] ?? ""
      const schema = qualified.length === 2 ? qualified[0] ?? null : null
      const key = `${schema ?? ""}.${name}`
      if (!cache.has(key)) {
        const found = await client.query({ text: lookup, values: [name, schema], rowMode: "array" })
        const reasons = found.rows.map((row: unknown) => (Array.isArray(row) ? refusal(qualified.join("."), row) : "unexpected pg_proc row"))
        // Not found: PostgreSQL itself will say the function does not exist (with its HINT).
        cache.set(key, reasons.find((r) => r !== undefined))
      }
      const reason = cache.get(key)
      if (reason !== undefined) throw new SqlEngineError({ kind: "refused", rule: "sql.pg.function", reason })
    }
  }
}
