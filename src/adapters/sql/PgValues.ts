/**
 * PostgreSQL values as the database has them (issue 24), for PostgresEngine: the text the server sent, except where
 * a JavaScript value is faithful. Dates, timestamps and intervals stay the server's text (a `Date` would shift them
 * by the client's time zone); `timestamptz` becomes ISO 8601 with its offset; int8 an exact bigint; arrays their
 * PostgreSQL literal (`{a,b}`, so a text[] never looks like a jsonb array); json/jsonb, booleans, int2/int4/oid,
 * floats and bytea as pg parses them, a JSON `null` document as SqlTable.jsonNull (pg's parse made it SQL's NULL).
 */
import type * as Pg from "pg"
import { jsonNull } from "../../domain/sql/SqlTable.js"

/** OIDs whose pg parser is faithful. */
const parsed: ReadonlySet<number> = new Set([16, 17, 21, 23, 26, 114, 700, 701, 3802])
const int8 = 20
/** json and jsonb: parsed, JSON's null kept apart from SQL's NULL (SqlTable.jsonNull). */
const jsonTypes: ReadonlySet<number> = new Set([114, 3802])
const timestamptz = 1184

/** `2023-03-01 10:00:00.5+09` → `2023-03-01T10:00:00.5+09:00`; infinity and BC dates stay as they are. */
export const isoTimestamptz = (text: string): string => {
  const m = /^(\d{4,}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2}(?:\.\d+)?)([+-]\d{2})(?::?(\d{2}))?(?::?(\d{2}))?$/.exec(text)
  if (m === null) return text
  return `${m[1]}T${m[2]}${m[3]}:${m[4] ?? "00"}${m[5] === undefined ? "" : `:${m[5]}`}`
}

export const typeParsers = (types: typeof Pg.types): Pg.CustomTypesConfig => ({
  getTypeParser: ((oid: number, format?: "text" | "binary") => {
    if (format === "binary") return types.getTypeParser(oid, "binary")
    if (oid === int8) return (text: string) => BigInt(text)
    if (oid === timestamptz) return isoTimestamptz
    if (jsonTypes.has(oid)) {
      const parse = types.getTypeParser(oid, "text")
      return (text: string) => {
        const value: unknown = parse(text)
        return value === null ? jsonNull : value
      }
    }
    if (parsed.has(oid)) return types.getTypeParser(oid, "text")
    return (text: string) => text
  }) as Pg.CustomTypesConfig["getTypeParser"]
})

/** Built-in type names by OID (format_type's spelling); others are looked up on the connection. */
export const builtinTypeNames: ReadonlyMap<number, string> = new Map([
  [16, "boolean"], [17, "bytea"], [18, "char"], [19, "name"], [20, "bigint"], [21, "smallint"], [23, "integer"],
  [25, "text"], [26, "oid"], [114, "json"], [142, "xml"], [700, "real"], [701, "double precision"], [1042, "character"],
  [1043, "character varying"], [1082, "date"], [1083, "time without time zone"], [1114, "timestamp without time zone"],
  [1184, "timestamp with time zone"], [1186, "interval"], [1266, "time with time zone"], [1700, "numeric"],
  [2950, "uuid"], [3802, "jsonb"], [1000, "boolean[]"], [1005, "smallint[]"], [1007, "integer[]"], [1009, "text[]"],
  [1016, "bigint[]"], [1015, "character varying[]"], [1182, "date[]"], [3807, "jsonb[]"], [869, "inet"], [650, "cidr"],
  [2249, "record"], [705, "unknown"], [2278, "void"], [1231, "numeric[]"], [1021, "real[]"], [1022, "double precision[]"]
])
