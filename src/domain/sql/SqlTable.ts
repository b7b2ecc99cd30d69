/**
 * Query results as a compact text table for a model: a header, aligned `|`-separated rows, long cells cut with a
 * marker, and a footer with the row count and, when the row cap cut the result, a truncation marker. Pure.
 */

export interface ResultSet {
  readonly columns: ReadonlyArray<string>
  readonly rows: ReadonlyArray<ReadonlyArray<unknown>>
  readonly truncated: boolean
  readonly changes?: number | undefined
}

export const maxCellChars = 120

const hex = (bytes: Uint8Array, limit: number): string => {
  let out = ""
  for (let i = 0; i < Math.min(bytes.length, limit); i++) out += (bytes[i] ?? 0).toString(16).padStart(2, "0")
  return out
}

/** One cell as text: NULL, numbers and bigints as written, blobs as hex, dates as ISO, objects as JSON. */
export const cell = (value: unknown): string => {
  let text: string
  if (value === null || value === undefined) text = "NULL"
  else if (typeof value === "string") text = value
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
  const flat = text.replace(/\\/g, "\\\\").replace(/\r/g, "\\r").replace(/\n/g, "\\n").replace(/\t/g, "\\t").replace(/\|/g, "\\|")
  return flat.length > maxCellChars ? `${flat.slice(0, maxCellChars - 1)}…` : flat
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`

/** Renders one result set. `maxRows` is only named in the truncation marker. */
export const render = (result: ResultSet, maxRows: number): string => {
  if (result.columns.length === 0) {
    return result.changes === undefined ? "(statement ran; no rows)" : `(${plural(result.changes, "row", "rows")} changed)`
  }
  const header = result.columns.map((c) => cell(c))
  const body = result.rows.map((row) => result.columns.map((_, i) => cell(row[i])))
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => (r[i] ?? "").length)))
  const line = (cells: ReadonlyArray<string>) => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(" | ").trimEnd()
  const lines = [line(header), widths.map((w) => "-".repeat(Math.max(1, w))).join("-+-"), ...body.map(line)]
  const count = plural(result.rows.length, "row", "rows")
  lines.push(result.truncated ? `[${count} shown; more rows not shown: truncated at max_rows=${maxRows}]` : `(${count})`)
  return lines.join("\n")
}

/** Several statements' results, each after a `-- statement i of n` line when there is more than one. */
export const renderAll = (results: ReadonlyArray<ResultSet>, maxRows: number): string =>
  results.length === 1 && results[0] !== undefined
    ? render(results[0], maxRows)
    : results.map((r, i) => `-- statement ${i + 1} of ${results.length}\n${render(r, maxRows)}`).join("\n\n")
