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

const schemas: Partial<Record<ToolName, ObjectSchema>> = { list_dir: listDir, git_status: gitStatus }

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
