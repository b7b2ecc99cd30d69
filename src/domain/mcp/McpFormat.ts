/**
 * Compact text for MCP results and listings. Resource text is untrusted data (a prompt-injection path): it is fenced
 * and labelled with its origin. Binaries are a marker, never bytes. Every string a server sent is shown with its
 * control characters made visible (McpText.visible). A listing keeps what a model needs: whole descriptions (cut
 * visibly past a cap), full input and output schemas (McpSchemaText), annotations, resource templates, and whether a
 * tool needs task augmentation. Pure.
 */
import { Either } from "effect"
import * as McpSchemaText from "./McpSchemaText.js"
import { capped, visible } from "./McpText.js"

/** Who a block is meant for (MCP annotations.audience): "user", "assistant". */
export type Audience = ReadonlyArray<string>

/** One piece of a tool result, resource or prompt message; binaries never travel as bytes. */
export type McpBlock =
  | { readonly _tag: "Text"; readonly text: string; readonly audience?: Audience }
  | { readonly _tag: "Binary"; readonly kind: string; readonly mimeType: string; readonly bytes: number; readonly audience?: Audience }
  /** Text that came from a resource: untrusted data, shown with its origin. */
  | { readonly _tag: "Resource"; readonly uri: string; readonly text: string; readonly audience?: Audience }
  | { readonly _tag: "Link"; readonly uri: string; readonly name: string; readonly description?: string; readonly mimeType?: string; readonly audience?: Audience }
  /** A tool's structuredContent, kept beside its content. */
  | { readonly _tag: "Structured"; readonly value: unknown }

export interface McpContent {
  readonly blocks: ReadonlyArray<McpBlock>
  readonly isError: boolean
}

export interface McpToolInfo {
  readonly name: string
  readonly title?: string
  readonly description: string
  readonly inputSchema: unknown
  readonly outputSchema?: unknown
  /** The hints (readOnlyHint, destructiveHint, idempotentHint, openWorldHint, title) as the server sent them. */
  readonly annotations?: Readonly<Record<string, unknown>>
  /** execution.taskSupport: "required" means the tool can only be called as a task. */
  readonly taskSupport?: string
}

export interface McpServerListing {
  readonly server: string
  /** Set when the server could not be reached: the others are still listed. */
  readonly error?: string
  /** Optional lists (resources, templates, prompts) that failed: the tools are still listed. */
  readonly notes?: ReadonlyArray<string>
  readonly tools: ReadonlyArray<McpToolInfo>
  readonly resources: ReadonlyArray<{ readonly uri: string; readonly name: string; readonly mimeType?: string; readonly description?: string }>
  readonly templates?: ReadonlyArray<{ readonly uriTemplate: string; readonly name: string; readonly mimeType?: string; readonly description?: string }>
  readonly prompts: ReadonlyArray<{ readonly name: string; readonly description: string; readonly arguments: ReadonlyArray<string> }>
}

/** A progress notification of a running call (notifications/progress). */
export interface McpProgress {
  readonly server: string
  readonly tool: string
  readonly progress: number
  readonly total?: number
  readonly message?: string
}

/** One progress line for a terminal: `server.tool: 3/5 step 3`. */
export const progressLine = (p: McpProgress): string =>
  `${p.server}.${visible(p.tool)}: ${p.progress}${p.total === undefined ? "" : `/${p.total}`}${p.message === undefined || p.message === "" ? "" : ` ${visible(p.message)}`}`

/** Tool and prompt descriptions are shown whole up to this many characters, then cut visibly. */
export const descriptionChars = 2000

const isRecord = (v: unknown): v is Readonly<Record<string, unknown>> => typeof v === "object" && v !== null && !Array.isArray(v)

/** A description as listing text: whole (capped visibly), later lines indented under the first. */
const describe = (text: string, indent: string): string => {
  const t = visible(capped(text.trim(), descriptionChars, "description"))
  return t === "" ? "" : ` ${t.split("\n").join(`\n${indent}`)}`
}

/** `a*, b`: the top-level parameters of an input schema, required ones starred. */
export const parameters = (schema: unknown): string => {
  if (!isRecord(schema)) return ""
  const props = isRecord(schema["properties"]) ? Object.keys(schema["properties"]) : []
  const required = new Set(Array.isArray(schema["required"]) ? schema["required"].filter((r): r is string => typeof r === "string") : [])
  return visible(props.map((p) => (required.has(p) ? `${p}*` : p)).join(", "))
}

const hints = (annotations: Readonly<Record<string, unknown>> | undefined): string =>
  Object.entries(annotations ?? {})
    .filter(([k]) => k !== "title")
    .map(([k, v]) => `${visible(k.replace(/Hint$/, ""))}=${visible(JSON.stringify(v) ?? "")}`)
    .join(" ")

const toolLines = (server: string, t: McpToolInfo): Array<string> => {
  const lines = [`  ${server}.${visible(t.name)}(${parameters(t.inputSchema)})${describe(t.description, "    ")}`]
  const title = t.title ?? (typeof t.annotations?.["title"] === "string" ? t.annotations["title"] : undefined)
  if (title !== undefined && title !== t.name) lines.push(`    title: ${visible(title)}`)
  if (isRecord(t.inputSchema) && isRecord(t.inputSchema["properties"]) && Object.keys(t.inputSchema["properties"]).length > 0) {
    lines.push(`    in: ${McpSchemaText.compact(t.inputSchema)}`)
  }
  if (t.outputSchema !== undefined) lines.push(`    out: ${McpSchemaText.compact(t.outputSchema)}`)
  const h = hints(t.annotations)
  if (h !== "") lines.push(`    hints: ${h}`)
  if (t.taskSupport === "required") lines.push("    task-only: needs task augmentation, which minicode's client does not do; calling it fails")
  else if (t.taskSupport === "optional") lines.push("    tasks: optional (called directly)")
  return lines
}

export const listing = (servers: ReadonlyArray<McpServerListing>): string =>
  servers.length === 0
    ? "no MCP servers are configured"
    : servers
        .map((s) => {
          if (s.error !== undefined) return `${s.server}: unavailable (${visible(s.error)})`
          const templates = s.templates ?? []
          const counts = [`${s.tools.length} tools`, `${s.resources.length} resources`, ...(templates.length > 0 ? [`${templates.length} resource templates`] : []), `${s.prompts.length} prompts`]
          const lines = [`${s.server}: ${counts.join(", ")}`]
          for (const t of s.tools) lines.push(...toolLines(s.server, t))
          for (const r of s.resources) {
            lines.push(`  resource ${visible(r.uri)}${r.name !== "" && r.name !== r.uri ? ` (${visible(r.name)})` : ""}${r.mimeType === undefined ? "" : ` ${visible(r.mimeType)}`}${describe(r.description ?? "", "    ")}`)
          }
          for (const r of templates) {
            lines.push(`  template ${visible(r.uriTemplate)}${r.name !== "" ? ` (${visible(r.name)})` : ""}${r.mimeType === undefined ? "" : ` ${visible(r.mimeType)}`}${describe(r.description ?? "", "    ")}`)
          }
          for (const p of s.prompts) lines.push(`  prompt ${visible(p.name)}(${visible(p.arguments.join(", "))})${describe(p.description, "    ")}`)
          for (const n of s.notes ?? []) lines.push(`  note: ${visible(n)}`)
          return lines.join("\n")
        })
        .join("\n")

const audienceOf = (b: McpBlock): string => ("audience" in b && b.audience !== undefined && b.audience.length > 0 ? `[for ${visible(b.audience.join(", "))}] ` : "")

export const block = (b: McpBlock): string => {
  const who = audienceOf(b)
  switch (b._tag) {
    case "Text":
      return `${who}${visible(b.text)}`
    case "Binary":
      return `${who}[${b.kind === "blob" ? "binary" : visible(b.kind)} ${visible(b.mimeType)}, ${b.bytes} bytes]`
    case "Link": {
      const extra = [...(b.mimeType === undefined ? [] : [visible(b.mimeType)]), ...(b.description === undefined || b.description === "" ? [] : [visible(b.description)])]
      return `${who}[resource link ${visible(b.uri)}${b.name !== "" ? ` (${visible(b.name)})` : ""}${extra.length > 0 ? `: ${extra.join(" — ")}` : ""}]`
    }
    case "Resource":
      return `${who}<untrusted-data source="${visible(b.uri).replace(/"/g, "%22")}">\n${visible(b.text).replace(/<\/untrusted-data>/gi, "</untrusted-data\u200b>")}\n</untrusted-data>`
    case "Structured":
      return `structured content: ${visible(JSON.stringify(b.value) ?? "null")}`
  }
}

const sameJson = (text: string, value: unknown): boolean =>
  Either.match(Either.try((): unknown => JSON.parse(text)), { onLeft: () => false, onRight: (parsed) => JSON.stringify(parsed) === JSON.stringify(value) })

/** The blocks as text; structured content that a text block already carries as the same JSON is not repeated. */
export const content = (c: McpContent): string => {
  const texts = c.blocks.flatMap((b) => (b._tag === "Text" ? [b.text] : []))
  const shown = c.blocks.filter((b) => b._tag !== "Structured" || !texts.some((t) => sameJson(t, b.value)))
  return shown.length === 0 ? "(empty)" : shown.map(block).join("\n")
}

/** Decoded size of base64 data, without decoding it. */
export const base64Bytes = (data: string): number => {
  const clean = data.replace(/\s/g, "")
  const pad = clean.endsWith("==") ? 2 : clean.endsWith("=") ? 1 : 0
  return Math.max(0, Math.floor((clean.length * 3) / 4) - pad)
}
