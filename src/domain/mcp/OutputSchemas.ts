/**
 * The `outputSchema` of the tools whose results have structure, and the data they give as `structuredContent`
 * (`ToolOutput.structured`). A tool listed here gives it on every successful result (MCP requires it once a schema
 * is declared); a tool that wants one adds its schema here and its data in its handler. Pure.
 */
import type { ToolName } from "../core/Tools.js"

type ObjectSchema = { readonly type: "object" } & Readonly<Record<string, unknown>>

const object = (properties: Readonly<Record<string, unknown>>, required: ReadonlyArray<string>): ObjectSchema => ({
  type: "object",
  properties,
  required: [...required]
})

const listDir = object(
  {
    entries: {
      type: "array",
      description: "The directory's entries, folders first, by name",
      items: object({ name: { type: "string" }, kind: { type: "string", enum: ["file", "directory", "symlink", "other"] } }, ["name", "kind"])
    },
    truncated: { type: "boolean", description: "More entries exist than are listed" }
  },
  ["entries", "truncated"]
)

const gitStatus = object(
  {
    branch: { anyOf: [{ type: "string" }, { type: "null" }], description: "The branch line of git status (null when there is none)" },
    entries: {
      type: "array",
      description: "Changed paths: the two status letters of git status --short (index, worktree) and the path as shown",
      items: object({ status: { type: "string" }, path: { type: "string" } }, ["status", "path"])
    },
    truncated: { type: "boolean" }
  },
  ["branch", "entries", "truncated"]
)

const grep = object(
  {
    matches: {
      type: "array",
      description: "The matching lines shown, sorted by path then line (a long line cut, as in the text)",
      items: object({ path: { type: "string" }, line: { type: "integer", minimum: 1 }, text: { type: "string" } }, ["path", "line", "text"])
    },
    total: { type: "integer", minimum: 0, description: "Matching lines found, shown or not" },
    binaryFiles: { type: "array", items: { type: "string" }, description: "Binary files that match (not shown as lines)" },
    truncated: { type: "boolean", description: "Not everything is listed: more matches, a cut walk or a line searched in part" }
  },
  ["matches", "total", "binaryFiles", "truncated"]
)

const diagnostic = object(
  {
    line: { type: "integer", minimum: 1 },
    column: { type: "integer", minimum: 1, description: "In code points" },
    endLine: { type: "integer", minimum: 1 },
    endColumn: { type: "integer", minimum: 1 },
    severity: { type: "string", enum: ["error", "warning", "info", "hint"] },
    code: { anyOf: [{ type: "string" }, { type: "number" }, { type: "null" }] },
    source: { anyOf: [{ type: "string" }, { type: "null" }] },
    message: { type: "string" }
  },
  ["line", "column", "endLine", "endColumn", "severity", "code", "source", "message"]
)

const diagnostics = object(
  {
    path: { type: "string", description: "The file, as the text shows it" },
    diagnostics: { type: "array", items: diagnostic, description: "Errors first, then warnings, info, hints; by position" },
    complete: { type: "boolean", description: "False when the server was still loading at the deadline (the list may be partial)" },
    related: {
      type: "array",
      description: "Errors the server reported in files that depend on this one",
      items: object({ path: { type: "string" }, diagnostics: { type: "array", items: diagnostic } }, ["path", "diagnostics"])
    },
    truncated: { type: "boolean" }
  },
  ["path", "diagnostics", "complete", "related", "truncated"]
)

const sqlQuery = object(
  {
    results: {
      type: "array",
      description: "One per statement, in order",
      items: object(
        {
          columns: { type: "array", items: { type: "string" } },
          types: {
            anyOf: [{ type: "array", items: { type: "string" } }, { type: "null" }],
            description: "The database's type name of each column (null when the driver does not say)"
          },
          rows: {
            type: "array",
            description: "Rows as arrays of cells: integers past 2^53 as their exact text, bytes as \\x hex, JSON values as they are",
            items: { type: "array" }
          },
          truncated: { type: "boolean", description: "More rows exist than are given (max_rows, or the output limit)" },
          changes: { type: "integer", minimum: 0, description: "Rows changed by a write" }
        },
        ["columns", "types", "rows", "truncated"]
      )
    }
  },
  ["results"]
)

const schemas: Partial<Record<ToolName, ObjectSchema>> = {
  list_dir: listDir,
  git_status: gitStatus,
  grep,
  lsp_diagnostics: diagnostics,
  sql_query: sqlQuery
}

export const outputSchemaOf = (name: ToolName): ObjectSchema | undefined => schemas[name]

/** Entries kept in a structured result (the text says how many more there are). */
export const maxEntries = 1_000

export type EntryKind = "file" | "directory" | "symlink" | "other"

export const listDirContent = (entries: ReadonlyArray<{ readonly name: string; readonly kind: EntryKind }>, truncated: boolean) => ({
  entries: entries.slice(0, maxEntries).map((e) => ({ name: e.name, kind: e.kind })),
  truncated: truncated || entries.length > maxEntries
})

/** `git status --short --branch` output (plus minicode's own lines in the same form) as data. */
export const gitStatusContent = (text: string) => {
  const lines = text.split("\n").filter((l) => l !== "")
  const head = lines[0]?.startsWith("## ") === true ? lines[0].slice(3) : null
  const changes = lines
    .filter((l) => /^[ MADRCUT?!]{2} ./.test(l))
    .map((l) => ({ status: l.slice(0, 2), path: l.slice(3) }))
  return { branch: head, entries: changes.slice(0, maxEntries), truncated: changes.length > maxEntries || text.includes("[truncated: ") }
}

export interface GrepHit {
  readonly file: string
  readonly line: number
  readonly text: string
}

export const grepContent = (hits: ReadonlyArray<GrepHit>, total: number, binaryFiles: ReadonlyArray<string>, truncated: boolean) => ({
  matches: hits.map((h) => ({ path: h.file, line: h.line, text: h.text })),
  total,
  binaryFiles: binaryFiles.slice(0, maxEntries),
  truncated: truncated || binaryFiles.length > maxEntries
})

/** A diagnostic as data: 1-based positions (columns as the text shows them), the severity by name. */
export interface DiagnosticData {
  readonly line: number
  readonly column: number
  readonly endLine: number
  readonly endColumn: number
  readonly severity: "error" | "warning" | "info" | "hint"
  readonly code: string | number | null
  readonly source: string | null
  readonly message: string
}

export const diagnosticsContent = (
  path: string,
  own: ReadonlyArray<DiagnosticData>,
  complete: boolean,
  related: ReadonlyArray<{ readonly path: string; readonly diagnostics: ReadonlyArray<DiagnosticData> }>
) => ({
  path,
  diagnostics: own.slice(0, maxEntries),
  complete,
  related: related.slice(0, maxEntries).map((r) => ({ path: r.path, diagnostics: r.diagnostics.slice(0, maxEntries) })),
  truncated: own.length > maxEntries || related.length > maxEntries || related.some((r) => r.diagnostics.length > maxEntries)
})
