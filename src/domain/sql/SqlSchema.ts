/**
 * `sql_schema` (issue 24): the introspection each engine answers (tables and views, columns with types,
 * nullability, defaults and primary keys; foreign keys; indexes), as three fixed read-only statements per dialect,
 * and their rows rendered as a compact outline, so the agent never guesses a column name. Pure.
 */
import type { SqlDialect } from "./SqlLexer.js"

export interface SchemaQueries {
  readonly statements: ReadonlyArray<string>
  readonly params: ReadonlyArray<string | null>
}

const sqliteLiteral = (text: string | undefined): string => (text === undefined ? "NULL" : `'${text.replace(/'/g, "''")}'`)

/** Columns, then foreign keys, then indexes; the table filter bound as a parameter (SQLite: a quoted literal). */
export const queries = (dialect: SqlDialect, table: string | undefined): SchemaQueries => {
  switch (dialect) {
    case "postgres": {
      const visible = "pg_catalog.pg_table_is_visible(c.oid) AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg_toast%'"
      return {
        params: [table ?? null],
        statements: [
          `SELECT c.relname::text, CASE c.relkind WHEN 'v' THEN 'view' WHEN 'm' THEN 'materialized view' WHEN 'f' THEN 'foreign table' ELSE 'table' END, a.attname::text, pg_catalog.format_type(a.atttypid, a.atttypmod), a.attnotnull, pg_catalog.pg_get_expr(d.adbin, d.adrelid), COALESCE(a.attnum = ANY (i.indkey), false) FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped LEFT JOIN pg_catalog.pg_attrdef d ON d.adrelid = c.oid AND d.adnum = a.attnum LEFT JOIN pg_catalog.pg_index i ON i.indrelid = c.oid AND i.indisprimary WHERE c.relkind IN ('r', 'v', 'm', 'p', 'f') AND ${visible} AND ($1::text IS NULL OR c.relname = $1) ORDER BY 1, a.attnum`,
          `SELECT c.relname::text, a.attname::text, f.relname::text, af.attname::text FROM pg_catalog.pg_constraint k JOIN pg_catalog.pg_class c ON c.oid = k.conrelid JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace JOIN pg_catalog.pg_class f ON f.oid = k.confrelid CROSS JOIN LATERAL unnest(k.conkey, k.confkey) AS u(a1, a2) JOIN pg_catalog.pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = u.a1 JOIN pg_catalog.pg_attribute af ON af.attrelid = k.confrelid AND af.attnum = u.a2 WHERE k.contype = 'f' AND ${visible} AND ($1::text IS NULL OR c.relname = $1) ORDER BY 1, 2`,
          `SELECT c.relname::text, ic.relname::text, x.indisunique, pg_catalog.pg_get_indexdef(x.indexrelid) FROM pg_catalog.pg_index x JOIN pg_catalog.pg_class c ON c.oid = x.indrelid JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace JOIN pg_catalog.pg_class ic ON ic.oid = x.indexrelid WHERE ${visible} AND ($1::text IS NULL OR c.relname = $1) ORDER BY 1, 2`
        ]
      }
    }
    case "mysql":
      return {
        params: [table ?? null, table ?? null],
        statements: [
          "SELECT c.TABLE_NAME, IF(t.TABLE_TYPE = 'VIEW', 'view', 'table'), c.COLUMN_NAME, c.COLUMN_TYPE, c.IS_NULLABLE = 'NO', c.COLUMN_DEFAULT, c.COLUMN_KEY = 'PRI' FROM information_schema.COLUMNS c JOIN information_schema.TABLES t ON t.TABLE_SCHEMA = c.TABLE_SCHEMA AND t.TABLE_NAME = c.TABLE_NAME WHERE c.TABLE_SCHEMA = DATABASE() AND (? IS NULL OR c.TABLE_NAME = ?) ORDER BY c.TABLE_NAME, c.ORDINAL_POSITION",
          "SELECT TABLE_NAME, COLUMN_NAME, REFERENCED_TABLE_NAME, REFERENCED_COLUMN_NAME FROM information_schema.KEY_COLUMN_USAGE WHERE TABLE_SCHEMA = DATABASE() AND REFERENCED_TABLE_NAME IS NOT NULL AND (? IS NULL OR TABLE_NAME = ?) ORDER BY 1, 2",
          "SELECT TABLE_NAME, INDEX_NAME, NON_UNIQUE = 0, GROUP_CONCAT(COLUMN_NAME ORDER BY SEQ_IN_INDEX SEPARATOR ', ') FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND (? IS NULL OR TABLE_NAME = ?) GROUP BY TABLE_NAME, INDEX_NAME, NON_UNIQUE ORDER BY 1, 2"
        ]
      }
    case "sqlite": {
      const t = sqliteLiteral(table)
      const which = `m.name NOT LIKE 'sqlite_%' AND (${t} IS NULL OR m.name = ${t})`
      return {
        params: [],
        statements: [
          `SELECT m.name, m.type, p.name, p.type, p."notnull", p.dflt_value, p.pk > 0 FROM sqlite_schema m JOIN pragma_table_info(m.name) p WHERE m.type IN ('table', 'view') AND ${which} ORDER BY m.name, p.cid`,
          `SELECT m.name, f."from", f."table", f."to" FROM sqlite_schema m JOIN pragma_foreign_key_list(m.name) f WHERE m.type = 'table' AND ${which} ORDER BY 1, 2`,
          `SELECT m.name, il.name, il."unique", (SELECT group_concat(ii.name, ', ') FROM pragma_index_info(il.name) ii) FROM sqlite_schema m JOIN pragma_index_list(m.name) il WHERE m.type = 'table' AND ${which} ORDER BY 1, 2`
        ]
      }
    }
  }
}

type Rows = ReadonlyArray<ReadonlyArray<unknown>>

const text = (v: unknown): string => (v === null || v === undefined ? "" : String(v))
const truthy = (v: unknown): boolean => v === true || v === 1 || v === 1n || v === "1" || v === "t"

/** The outline: one block per table or view; foreign keys and indexes under their table. */
export const render = (columns: Rows, foreign: Rows, indexes: Rows, table: string | undefined): string => {
  if (columns.length === 0) return table === undefined ? "(no tables or views)" : `no table or view named ${table}`
  const blocks = new Map<string, Array<string>>()
  for (const [t, kind, name, type, notnull, dflt, pk] of columns) {
    const key = text(t)
    const lines = blocks.get(key) ?? [`${key} (${text(kind)})`]
    const extras = [truthy(pk) ? "PRIMARY KEY" : "", truthy(notnull) && !truthy(pk) ? "NOT NULL" : "", text(dflt) === "" ? "" : `DEFAULT ${text(dflt)}`]
    lines.push(`  ${text(name)} ${text(type) === "" ? "(no type)" : text(type)}${extras.filter((e) => e !== "").map((e) => ` ${e}`).join("")}`)
    blocks.set(key, lines)
  }
  for (const [t, column, target, targetColumn] of foreign) blocks.get(text(t))?.push(`  FOREIGN KEY ${text(column)} → ${text(target)}(${text(targetColumn)})`)
  for (const [t, name, unique, definition] of indexes) {
    blocks.get(text(t))?.push(`  ${truthy(unique) ? "UNIQUE INDEX" : "INDEX"} ${text(name)}${text(definition) === "" ? "" : `: ${text(definition)}`}`)
  }
  return [...blocks.values()].map((lines) => lines.join("\n")).join("\n\n")
}
