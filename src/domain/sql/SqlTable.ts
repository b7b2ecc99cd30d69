/**
 * Query results as a compact text table for a model: a header (names, then the database's type names when known),
 * aligned `|`-separated rows, long cells cut with a marker at `maxCell` characters, and a footer with the row count
 * and, when the row cap cut the result, a truncation marker. Text is shown as the database has it (a backslash is
 * one backslash); line breaks, tabs, `|` and the controls a terminal would obey (Visible.line: `\u001b`) are escaped so a
 * row stays one line and shows what it holds. Under an output budget rows
 * are dropped from the end, never the footer. Pure.
 */

import * as Visible from "../core/Visible.js"
import { utf8Length } from "./guard/Tokens.js"

export interface ResultSet {
  readonly columns: ReadonlyArray<string>
  readonly types?: ReadonlyArray<string> | undefined
  readonly rows: ReadonlyArray<ReadonlyArray<unknown>>
  readonly truncated: boolean
  readonly changes?: number | undefined
}

export const maxCellChars = 120
/** The largest `max_cell` a call may ask for. */
export const maxCellLimit = 20_000

export interface RenderOptions {
  /** Characters per cell (default 120). */
  readonly maxCell?: number | undefined
  /** UTF-8 bytes for all of the output; rows beyond it are dropped and the footer says how many were shown. */
  readonly budget?: number | undefined
}

const hex = (bytes: Uint8Array, limit: number): string => {
  let out = ""
  for (let i = 0; i < Math.min(bytes.length, limit); i++) out += (bytes[i] ?? 0).toString(16).padStart(2, "0")
  return out
}

/**
 * Text that would read as a NULL (`NULL`, `null`, or such a word in quotes) is shown in quotes, its own quotes
 * doubled: the text 'NULL' prints `'NULL'`, never like a real NULL, and the text `'NULL'` prints `'''NULL'''`.
 */
const nullLike = /^'*null'*$/i
const quoteIfNullLike = (text: string): string => (nullLike.test(text) ? `'${text.replace(/'/g, "''")}'` : text)

/**
 * A JSON document whose value is JSON's `null` (`'null'::jsonb`, a MariaDB JSON column holding `null`), as the engines
 * hand it over: a row cell that is `null` is SQL's NULL and nothing else. Shown as `null` (the JSON literal; SQL's
 * NULL prints `NULL`), and as `null` in structured rows, where the column's type (json, jsonb) says what it is.
 */
export const jsonNull: unique symbol = Symbol.for("minicode/sql/json-null")

/** One cell as text: NULL, numbers and bigints as written, blobs as hex, dates as ISO, objects as JSON. */
export const cell = (value: unknown, maxCell: number = maxCellChars): string => {
  let text: string
  if (value === null || value === undefined) text = "NULL"
  else if (value === jsonNull) text = "null"
  else if (typeof value === "string") text = quoteIfNullLike(value)
  else if (typeof value === "number" || typeof value === "bigint" || typeof value === "boolean") text = String(value)
  else if (value instanceof Uint8Array) text = `x'${hex(value, 32)}'${value.length > 32 ? `… (${value.length} bytes)` : ""}`
  else if (value instanceof Date) text = Number.isNaN(value.getTime()) ? "Invalid Date" : value.toISOString()
  else {
    try {
      text = JSON.stringify(value, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v)) ?? String(value)
    } catch {
      text = String(value)
    }
  }
  // Every control a terminal would obey (ESC sequences, C1, bidi overrides) shown as its escape, line breaks and tabs
  // too, so a row stays one line and a cell cannot clear a screen or write a clipboard (issue 43).
  const flat = Visible.line(text).replace(/\|/g, "\\|")
  const limit = Math.max(2, Math.min(maxCell, maxCellLimit))
  return flat.length > limit ? `${flat.slice(0, limit - 1)}…` : flat
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`

/** Renders one result set. `maxRows` is only named in the truncation marker. */
export const render = (result: ResultSet, maxRows: number, options: RenderOptions = {}): string => {
  if (result.columns.length === 0) {
    return result.changes === undefined ? "(statement ran; no rows)" : `(${plural(result.changes, "row", "rows")} changed)`
  }
  const maxCell = options.maxCell ?? maxCellChars
  const header = result.columns.map((c) => cell(c, maxCell))
  const types = result.types !== undefined && result.types.length === result.columns.length ? result.types.map((t) => cell(t, maxCell)) : undefined
  const body = result.rows.map((row) => result.columns.map((_, i) => cell(row[i], maxCell)))
  const widths = header.map((h, i) => Math.max(h.length, (types?.[i] ?? "").length, ...body.map((r) => (r[i] ?? "").length)))
  const line = (cells: ReadonlyArray<string>) => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(" | ").trimEnd()
  const head = [line(header), ...(types === undefined ? [] : [line(types)]), widths.map((w) => "-".repeat(Math.max(1, w))).join("-+-")]
  const footer = (shown: number, cut: boolean) => {
    const count = plural(shown, "row", "rows")
    if (cut) return `[${count} shown of ${result.rows.length}${result.truncated ? "+" : ""}; the rest cut to fit the output limit: ask for fewer columns or rows]`
    return result.truncated ? `[${count} shown; more rows not shown: truncated at max_rows=${maxRows}]` : `(${count})`
  }
  const rows = body.map(line)
  const budget = options.budget
  let shown = rows.length
  if (budget !== undefined) {
    let used = utf8Length(head.join("\n")) + utf8Length(footer(rows.length, true)) + 2
    shown = 0
    for (const r of rows) {
      const size = utf8Length(r) + 1
      if (used + size > budget) break
      used += size
      shown++
    }
  }
  return [...head, ...rows.slice(0, shown), footer(shown, shown < rows.length)].join("\n")
}

/** Several statements' results, each after a `-- statement i of n` line when there is more than one. */
export const renderAll = (results: ReadonlyArray<ResultSet>, maxRows: number, options: RenderOptions = {}): string => {
  if (results.length === 1 && results[0] !== undefined) return render(results[0], maxRows, options)
  const share = options.budget === undefined ? undefined : Math.floor(options.budget / Math.max(1, results.length)) - 30
  return results.map((r, i) => `-- statement ${i + 1} of ${results.length}\n${render(r, maxRows, { ...options, budget: share })}`).join("\n\n")
}

/** A JSON-safe cell: integers as numbers (past 2^53 as their exact text), bytes as `\x…` hex, dates as ISO; JSON values as they are. */
const jsonCell = (value: unknown): unknown => {
  if (value === jsonNull) return null
  if (typeof value === "bigint") return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString()
  if (value instanceof Uint8Array) return `\\x${hex(value, value.length)}`
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString()
  if (typeof value === "object" && value !== null) {
    // An array or JSON value: bigints inside as their exact text, so the whole stays JSON.
    try {
      return JSON.parse(JSON.stringify(value, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v)) ?? "null")
    } catch {
      return String(value)
    }
  }
  return value === undefined ? null : value
}

/**
 * The structured row model of a call's results (columns, the database's type names, rows): `mcp serve`'s
 * `structuredContent`. Under a budget (UTF-8 bytes of JSON for all of it, shared by the statements) rows are dropped
 * from the end and the result set is marked truncated, as the text table is.
 */
export const structured = (results: ReadonlyArray<ResultSet>, budget?: number) => {
  const share = budget === undefined ? undefined : Math.floor(budget / Math.max(1, results.length))
  return {
    results: results.map((r) => {
      const rows: Array<ReadonlyArray<unknown>> = []
      let used = 0
      let cut = false
      for (const row of r.rows) {
        const cells = row.map(jsonCell)
        if (share !== undefined) {
          used += utf8Length(JSON.stringify(cells) ?? "") + 1
          if (used > share) {
            cut = true
            break
          }
        }
        rows.push(cells)
      }
      return {
        columns: r.columns,
        types: r.types ?? null,
        rows,
        truncated: r.truncated || cut,
        ...(r.changes === undefined ? {} : { changes: r.changes })
      }
    })
  }
}
