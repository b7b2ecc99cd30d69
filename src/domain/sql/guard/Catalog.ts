/**
 * The SQL guard's catalog family (issue 24): what a call may never touch, whatever its flags. Pure.
 *
 * - a write (any statement with a data-modifying or DDL word, in write mode) never names a system catalog:
 *   PostgreSQL's `pg_*` relations and the `pg_catalog`/`information_schema`/`pg_toast` schemas, MySQL's `mysql`,
 *   `information_schema`, `performance_schema` and `sys` schemas, SQLite's `sqlite_master`/`sqlite_schema`;
 *   `USE mysql` (which would make an unqualified `user` the accounts table) is refused in write mode;
 * - ownership and authorization never change: `OWNER TO`, `AUTHORIZATION` (CREATE SCHEMA … AUTHORIZATION,
 *   SET SESSION AUTHORIZATION), row-level security policies;
 * - no mode reads the server's secrets: configuration-file views, password hashes and user mappings
 *   (`pg_authid`, `pg_shadow`, `pg_file_settings`, `pg_hba_file_rules`, `pg_ident_file_mappings`, `pg_user_mappings`,
 *   `mysql.user`, `mysql.global_priv`, …). (`SHOW CREATE USER` stays a read: the server itself requires SELECT on
 *   the `mysql` schema to show another account's.)
 */
import type { Token } from "../SqlLexer.js"
import type { Context } from "./Reach.js"
import { deny, type Denial, isNameToken, kindAt, wordAt } from "./Tokens.js"

/** Relations that hold the server's configuration files, password hashes or foreign credentials. */
export const secretRelations: ReadonlySet<string> = new Set([
  "pg_authid", "pg_shadow", "pg_file_settings", "pg_hba_file_rules", "pg_ident_file_mappings", "pg_user_mappings",
  "pg_user_mapping", "pg_largeobject", "pg_statistic", "pg_subscription"
])

/** MySQL/MariaDB system tables that hold password hashes or replication/federation credentials. */
export const secretMysqlTables: ReadonlySet<string> = new Set([
  "user", "global_priv", "password_history", "servers", "slave_master_info", "slave_relay_log_info", "slave_worker_info"
])

const systemSchemas: ReadonlySet<string> = new Set(["pg_catalog", "information_schema", "pg_toast", "mysql", "performance_schema", "sys"])
const sqliteCatalogs: ReadonlySet<string> = new Set(["sqlite_master", "sqlite_schema", "sqlite_temp_master", "sqlite_temp_schema"])

/** Words that make a statement a write or a schema change. */
const writingWords: ReadonlySet<string> = new Set([
  "INSERT", "UPDATE", "DELETE", "MERGE", "UPSERT", "REPLACE", "TRUNCATE", "CREATE", "ALTER", "DROP", "RENAME", "COMMENT",
  "COPY", "LOAD", "IMPORT", "REINDEX", "CLUSTER", "VACUUM", "REFRESH", "SECURITY", "CALL", "DO", "INTO"
])

const lower = (t: Token | undefined): string | undefined => (t !== undefined && isNameToken(t) ? t.value.toLowerCase() : undefined)

interface NameUse {
  readonly name: string
  readonly schema: string | undefined
  readonly call: boolean
}

/** The name at `k` with its schema qualifier, if the token is a name. */
const nameAt = (ts: ReadonlyArray<Token>, k: number): NameUse | undefined => {
  const name = lower(ts[k])
  if (name === undefined) return undefined
  const schema = kindAt(ts, k - 1) === "dot" ? lower(ts[k - 2]) : undefined
  return { name, schema, call: kindAt(ts, k + 1) === "lparen" }
}

const isSecret = (use: NameUse, ctx: Context): boolean => {
  if (use.call) return false
  if (secretRelations.has(use.name) && (use.schema === undefined || use.schema === "pg_catalog")) return ctx.dialect !== "sqlite"
  return use.schema === "mysql" && secretMysqlTables.has(use.name)
}

const isCatalog = (use: NameUse, ctx: Context): boolean => {
  if (use.call) return false
  if (use.schema !== undefined && systemSchemas.has(use.schema)) return true
  if (systemSchemas.has(use.name) && use.schema === undefined) return false // the qualifier itself is judged with its name
  if (ctx.dialect === "sqlite") return sqliteCatalogs.has(use.name)
  return ctx.dialect === "postgres" && use.schema === undefined && use.name.startsWith("pg_")
}

export const catalogDenial = (ts: ReadonlyArray<Token>, ctx: Context): Denial | undefined => {
  const writes = ctx.write && ts.some((t, k) => t.kind === "word" && writingWords.has(t.value) && kindAt(ts, k - 1) !== "dot")
  for (let k = 0; k < ts.length; k++) {
    const w = wordAt(ts, k)
    const next = wordAt(ts, k + 1)
    if (w === "OWNER" && next === "TO") return deny("sql.privilege", "OWNER TO changes who owns an object (ownership is a privilege)")
    if (w === "AUTHORIZATION" && kindAt(ts, k - 1) !== "dot") return deny("sql.privilege", "AUTHORIZATION changes who owns or who runs as (a privilege change)")
    if ((w === "CREATE" || w === "ALTER" || w === "DROP") && next === "POLICY") return deny("sql.privilege", `${w} POLICY changes who may see which rows`)
    if (w === "ROW" && next === "LEVEL" && wordAt(ts, k + 2) === "SECURITY") return deny("sql.privilege", "ROW LEVEL SECURITY changes who may see which rows")
    if (ctx.write && w === "USE" && k === 0) {
      const schema = lower(ts[1])
      if (schema !== undefined && systemSchemas.has(schema)) return deny("sql.catalog.write", `USE ${schema}: writes never touch the system schemas`)
    }
    const use = nameAt(ts, k)
    if (use === undefined) continue
    if (isSecret(use, ctx)) {
      return deny("sql.catalog.secret", `${use.schema === undefined ? "" : `${use.schema}.`}${use.name} holds the server's configuration files, password hashes or credentials`)
    }
    if (writes && isCatalog(use, ctx)) {
      return deny("sql.catalog.write", `${use.schema === undefined ? "" : `${use.schema}.`}${use.name} is a system catalog: writes never touch catalogs, roles, ownership or privileges`)
    }
  }
  return undefined
}
