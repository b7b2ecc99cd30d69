/** MySQL wire details for MysqlEngine: column type names as SQL spells them, and parameters as mysql2 binds them. */
import type * as Mysql from "mysql2"
import { jsonNull } from "../../domain/sql/SqlTable.js"
import { positional, type SqlParams } from "../../ports/SqlEngine.js"

const names: ReadonlyMap<number, string> = new Map([
  [0x00, "decimal"], [0x01, "tinyint"], [0x02, "smallint"], [0x03, "int"], [0x04, "float"], [0x05, "double"],
  [0x06, "null"], [0x07, "timestamp"], [0x08, "bigint"], [0x09, "mediumint"], [0x0a, "date"], [0x0b, "time"],
  [0x0c, "datetime"], [0x0d, "year"], [0x0e, "date"], [0x0f, "varchar"], [0x10, "bit"], [0xf5, "json"],
  [0xf6, "decimal"], [0xf7, "enum"], [0xf8, "set"], [0xf9, "tinyblob"], [0xfa, "mediumblob"], [0xfb, "longblob"],
  [0xfc, "blob"], [0xfd, "varchar"], [0xfe, "char"], [0xff, "geometry"]
])

/** Character set 63 is `binary`: a BLOB/VARCHAR column in it holds bytes, else text. */
const binary = 63

/** A JSON column: MySQL's JSON type, or MariaDB's LONGTEXT marked `json` in its extended metadata. */
export const isJson = (field: Mysql.FieldPacket): boolean =>
  (field.columnType ?? field.type) === 0xf5 || Reflect.get(field, "extendedFormat") === "json"

/**
 * A JSON column's cell (the driver hands it over as text: `jsonStrings`) parsed, JSON's `null` kept apart from SQL's
 * NULL (SqlTable.jsonNull): mysql2's own parse made both `null`. Text that does not parse stays text.
 */
export const jsonCell = (cell: unknown): unknown => {
  if (typeof cell !== "string") return cell
  try {
    const value: unknown = JSON.parse(cell)
    return value === null ? jsonNull : value
  } catch {
    return cell
  }
}

export const mysqlTypeName = (field: Mysql.FieldPacket): string => {
  if (isJson(field)) return "json"
  const code = field.columnType ?? field.type ?? -1
  const name = names.get(code) ?? "unknown"
  const isBinary = field.characterSet === binary
  if (name.endsWith("blob") && !isBinary) return name.replace("blob", "text")
  if (name === "varchar" && isBinary) return "varbinary"
  if (name === "char" && isBinary) return "binary"
  return name
}

/** Positional parameters as they are; named ones (MySQL has none) are refused before they get here. */
export const bindValues = (params: SqlParams): Array<string | number | null> =>
  positional(params) ? params.map((p) => (typeof p === "boolean" ? (p ? 1 : 0) : p)) : []
