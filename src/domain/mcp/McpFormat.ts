/**
 * Compact text for MCP results. Resource text is untrusted data (a prompt-injection path): it is fenced and
 * labelled with its origin. Binaries are a marker, never bytes. Pure.
 */
/** One piece of a tool result, resource or prompt message; binaries never travel as bytes. */
export type McpBlock =
  | { readonly _tag: "Text"; readonly text: string }
  | { readonly _tag: "Binary"; readonly kind: string; readonly mimeType: string; readonly bytes: number }
  /** Text that came from a resource: untrusted data, shown with its origin. */
  | { readonly _tag: "Resource"; readonly uri: string; readonly text: string }
  | { readonly _tag: "Link"; readonly uri: string; readonly name: string }

export interface McpContent {
  readonly blocks: ReadonlyArray<McpBlock>
  readonly isError: boolean
}

export interface McpToolInfo {
  readonly name: string
  readonly description: string
  readonly inputSchema: unknown
}

export interface McpServerListing {
  readonly server: string
  /** Set when the server could not be reached: the others are still listed. */
  readonly error?: string
  readonly tools: ReadonlyArray<McpToolInfo>
  readonly resources: ReadonlyArray<{ readonly uri: string; readonly name: string; readonly mimeType?: string }>
  readonly prompts: ReadonlyArray<{ readonly name: string; readonly description: string; readonly arguments: ReadonlyArray<string> }>
}


const firstSentence = (text: string, max = 100) => {
  const line = text.trim().split(/\n/)[0] ?? ""
  const cut = /^(.*?[.!?])(\s|$)/.exec(line)?.[1] ?? line
  return cut.length > max ? `${cut.slice(0, max - 1)}…` : cut
}

const isRecord = (v: unknown): v is Readonly<Record<string, unknown>> => typeof v === "object" && v !== null && !Array.isArray(v)

/** `a*, b`: the top-level parameters of an input schema, required ones starred. */
export const parameters = (schema: unknown): string => {
  if (!isRecord(schema)) return ""
  const props = isRecord(schema["properties"]) ? Object.keys(schema["properties"]) : []
  const required = new Set(Array.isArray(schema["required"]) ? schema["required"].filter((r): r is string => typeof r === "string") : [])
  return props.map((p) => (required.has(p) ? `${p}*` : p)).join(", ")
}

export const listing = (servers: ReadonlyArray<McpServerListing>): string =>
  servers.length === 0
    ? "no MCP servers are configured"
    : servers
        .map((s) => {
          if (s.error !== undefined) return `${s.server}: unavailable (${s.error})`
          const lines = [`${s.server}: ${s.tools.length} tools, ${s.resources.length} resources, ${s.prompts.length} prompts`]
          for (const t of s.tools) lines.push(`  ${s.server}.${t.name}(${parameters(t.inputSchema)})${t.description === "" ? "" : ` ${firstSentence(t.description)}`}`)
          for (const r of s.resources) lines.push(`  resource ${r.uri}${r.name !== "" && r.name !== r.uri ? ` (${r.name})` : ""}${r.mimeType === undefined ? "" : ` ${r.mimeType}`}`)
          for (const p of s.prompts) lines.push(`  prompt ${p.name}(${p.arguments.join(", ")})${p.description === "" ? "" : ` ${firstSentence(p.description)}`}`)
          return lines.join("\n")
        })
        .join("\n")

export const block = (b: McpBlock): string => {
  switch (b._tag) {
    case "Text":
      return b.text
    case "Binary":
      return `[${b.kind === "blob" ? "binary" : b.kind} ${b.mimeType}, ${b.bytes} bytes]`
    case "Link":
      return `[resource link ${b.uri}${b.name !== "" ? ` (${b.name})` : ""}]`
    case "Resource":
      return `<untrusted-data source="${b.uri.replace(/"/g, "%22")}">\n${b.text.replace(/<\/untrusted-data>/gi, "</untrusted-data\u200b>")}\n</untrusted-data>`
  }
}

export const content = (c: McpContent): string => (c.blocks.length === 0 ? "(empty)" : c.blocks.map(block).join("\n"))

/** Decoded size of base64 data, without decoding it. */
export const base64Bytes = (data: string): number => {
  const clean = data.replace(/\s/g, "")
  const pad = clean.endsWith("==") ? 2 : clean.endsWith("=") ? 1 : 0
  return Math.max(0, Math.floor((clean.length * 3) / 4) - pad)
}
