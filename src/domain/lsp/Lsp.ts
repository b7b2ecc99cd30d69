/**
 * Language servers as minicode sees them: which configured server owns a file, the language id it is opened with,
 * the subset of LSP results the tools use (Schemas: every reply is decoded at the adapter edge), and the compact,
 * capped text the assistant reads (workspace-relative paths, 1-based lines and columns). Pure.
 */
import { Either, Schema } from "effect"
import type { ServerEntry } from "../core/Config.js"

// ---------------------------------------------------------------------------------------------------------------
// Configuration keys: one extension per entry (".ts"); identical entries share one server process.

export const extensionPattern = /^\.[A-Za-z0-9_+-]{1,16}$/

/** `ts`, `.ts`, `.TS` → `.ts`; anything else is refused with a readable reason. */
export const normaliseExtension = (raw: string): Either.Either<string, string> => {
  const ext = (raw.startsWith(".") ? raw : `.${raw}`).toLowerCase()
  return extensionPattern.test(ext)
    ? Either.right(ext)
    : Either.left(`"${raw}" is not a file extension: use the form .ts (letters, digits, _ + -; at most 16 characters)`)
}

export const extensionOf = (path: string): string => {
  const base = path.slice(path.lastIndexOf("/") + 1)
  const dot = base.lastIndexOf(".")
  return dot <= 0 ? "" : base.slice(dot).toLowerCase()
}

/** The identity of a server process: entries with the same command, arguments and environment share one. */
export const serverKey = (entry: ServerEntry): string =>
  JSON.stringify([entry.command ?? "", entry.args ?? [], Object.entries(entry.env ?? {}).sort(([a], [b]) => (a < b ? -1 : 1))])

export interface ServerGroup {
  readonly key: string
  /** The extensions it serves, sorted: the name shown to people (`.ts,.tsx`). */
  readonly extensions: ReadonlyArray<string>
  readonly entry: ServerEntry
}

/** Groups configured extensions by server identity; entries without a command are reported, not grouped. */
export const groups = (
  servers: Readonly<Record<string, ServerEntry>>
): { readonly groups: ReadonlyArray<ServerGroup>; readonly invalid: ReadonlyArray<string> } => {
  const byKey = new Map<string, { extensions: Array<string>; entry: ServerEntry }>()
  const invalid: Array<string> = []
  for (const [raw, entry] of Object.entries(servers)) {
    const ext = normaliseExtension(raw)
    if (Either.isLeft(ext) || entry.command === undefined || entry.command.trim() === "") {
      invalid.push(raw)
      continue
    }
    const key = serverKey(entry)
    const found = byKey.get(key)
    if (found === undefined) byKey.set(key, { extensions: [ext.right], entry })
    else found.extensions.push(ext.right)
  }
  return {
    groups: [...byKey.entries()].map(([key, g]) => ({ key, extensions: [...g.extensions].sort(), entry: g.entry })),
    invalid
  }
}

/** `typescript-language-server (.ts,.tsx)`: the command's base name and the extensions it serves. */
export const groupName = (g: Pick<ServerGroup, "extensions" | "entry">): string => {
  const command = g.entry.command ?? "?"
  return `${command.slice(command.lastIndexOf("/") + 1)} (${g.extensions.join(",")})`
}

const languageIds: Readonly<Record<string, string>> = {
  ".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "typescriptreact",
  ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascriptreact",
  ".py": "python", ".pyi": "python", ".go": "go", ".rs": "rust", ".java": "java", ".kt": "kotlin", ".kts": "kotlin",
  ".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".hpp": "cpp", ".hh": "cpp", ".cs": "csharp",
  ".rb": "ruby", ".php": "php", ".swift": "swift", ".scala": "scala", ".lua": "lua", ".sh": "shellscript",
  ".bash": "shellscript", ".json": "json", ".jsonc": "jsonc", ".yaml": "yaml", ".yml": "yaml", ".toml": "toml",
  ".md": "markdown", ".html": "html", ".css": "css", ".scss": "scss", ".vue": "vue", ".svelte": "svelte",
  ".zig": "zig", ".ex": "elixir", ".exs": "elixir", ".erl": "erlang", ".hs": "haskell", ".ml": "ocaml",
  ".dart": "dart", ".sql": "sql", ".tf": "terraform", ".nix": "nix"
}

/** The language id LSP expects in `didOpen` (the extension without its dot when the table does not know it). */
export const languageId = (path: string): string => {
  const ext = extensionOf(path)
  return languageIds[ext] ?? ext.slice(1)
}

// ---------------------------------------------------------------------------------------------------------------
// URIs (file:// only; percent-encoding of the characters that need it).

export const fileUri = (absolute: string): string =>
  "file://" + absolute.split("/").map((seg) => encodeURIComponent(seg).replace(/%40/g, "@").replace(/%2B/g, "+")).join("/")

/** The absolute path of a file:// URI, or undefined for any other scheme. */
export const uriPath = (uri: string): string | undefined => {
  if (!uri.startsWith("file://")) return undefined
  const rest = uri.slice("file://".length)
  const path = rest.startsWith("/") ? rest : rest.slice(rest.indexOf("/"))
  try {
    return decodeURIComponent(path)
  } catch {
    return undefined
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The LSP results the tools read. Extra fields are ignored; a reply that does not fit is a typed failure.

export const Position = Schema.Struct({ line: Schema.Number, character: Schema.Number })
export const Range = Schema.Struct({ start: Position, end: Position })
export type Range = typeof Range.Type
export const Location = Schema.Struct({ uri: Schema.String, range: Range })
export type Location = typeof Location.Type
export const LocationLink = Schema.Struct({
  targetUri: Schema.String,
  targetRange: Range,
  targetSelectionRange: Schema.optional(Range)
})

/** `Location | Location[] | LocationLink[] | null`, normalised to locations (a link's selection range). */
export const Locations = Schema.transform(
  Schema.NullOr(Schema.Union(Location, Schema.Array(Schema.Union(Location, LocationLink)))),
  Schema.Array(Location),
  {
    strict: true,
    decode: (reply) => {
      if (reply === null) return []
      const items = Array.isArray(reply) ? reply : [reply]
      return items.map((l) => ("targetUri" in l ? { uri: l.targetUri, range: l.targetSelectionRange ?? l.targetRange } : l))
    },
    encode: (locations) => locations
  }
)

export const Diagnostic = Schema.Struct({
  range: Range,
  severity: Schema.optional(Schema.Number),
  code: Schema.optional(Schema.NullOr(Schema.Union(Schema.String, Schema.Number))),
  source: Schema.optional(Schema.String),
  message: Schema.String
})
export type Diagnostic = typeof Diagnostic.Type

export const PublishDiagnostics = Schema.Struct({
  uri: Schema.String,
  version: Schema.optional(Schema.NullOr(Schema.Number)),
  diagnostics: Schema.Array(Diagnostic)
})
export type PublishDiagnostics = typeof PublishDiagnostics.Type

const isArray = <A>(x: A | ReadonlyArray<A>): x is ReadonlyArray<A> => Array.isArray(x)
const MarkedString = Schema.Union(Schema.String, Schema.Struct({ language: Schema.String, value: Schema.String }))
const MarkupContent = Schema.Struct({ kind: Schema.String, value: Schema.String })

/** A hover's contents as one text (code blocks kept as fenced markdown), or none. */
export const Hover = Schema.transform(
  Schema.NullOr(Schema.Struct({ contents: Schema.Union(MarkupContent, MarkedString, Schema.Array(MarkedString)) })),
  Schema.String,
  {
    strict: true,
    decode: (reply) => {
      if (reply === null) return ""
      const one = (m: typeof MarkedString.Type | typeof MarkupContent.Type): string =>
        typeof m === "string" ? m : "language" in m ? "```" + m.language + "\n" + m.value + "\n```" : m.value
      const c = reply.contents
      const parts: ReadonlyArray<typeof MarkedString.Type | typeof MarkupContent.Type> = isArray(c) ? c : [c]
      return parts.map(one).filter((s) => s.trim() !== "").join("\n\n")
    },
    encode: (text) => (text === "" ? null : { contents: text })
  }
)

export interface DocumentSymbol {
  readonly name: string
  readonly kind: number
  readonly detail?: string | null | undefined
  readonly range: Range
  readonly selectionRange: Range
  readonly children?: ReadonlyArray<DocumentSymbol> | undefined
}
export const DocumentSymbol: Schema.Schema<DocumentSymbol> = Schema.Struct({
  name: Schema.String,
  kind: Schema.Number,
  detail: Schema.optional(Schema.NullOr(Schema.String)),
  range: Range,
  selectionRange: Range,
  children: Schema.optional(Schema.Array(Schema.suspend((): Schema.Schema<DocumentSymbol> => DocumentSymbol)))
})

export const SymbolInformation = Schema.Struct({
  name: Schema.String,
  kind: Schema.Number,
  containerName: Schema.optional(Schema.NullOr(Schema.String)),
  location: Schema.Union(Location, Schema.Struct({ uri: Schema.String }))
})
export type SymbolInformation = typeof SymbolInformation.Type

export const DocumentSymbols = Schema.NullOr(Schema.Union(Schema.Array(DocumentSymbol), Schema.Array(SymbolInformation)))
export const WorkspaceSymbols = Schema.NullOr(Schema.Array(SymbolInformation))

const symbolKinds = [
  "", "file", "module", "namespace", "package", "class", "method", "property", "field", "constructor", "enum",
  "interface", "function", "variable", "constant", "string", "number", "boolean", "array", "object", "key", "null",
  "enum member", "struct", "event", "operator", "type parameter"
]
export const symbolKind = (kind: number): string => symbolKinds[kind] ?? `kind ${kind}`

// ---------------------------------------------------------------------------------------------------------------
// Positions (Positions.ts): people count from 1 in code points; LSP counts from 0 in UTF-16 code units.

export { codePointsOf, locate, maskNonCode, utf16Of, type ZeroPosition } from "./Positions.js"

// ---------------------------------------------------------------------------------------------------------------
// Text for people and assistants.

export const limits = { diagnostics: 50, locations: 100, references: 200, symbols: 400, workspaceSymbols: 100, hoverChars: 4000, messageChars: 400, snippetChars: 160 }

export interface Where {
  /** Workspace root (canonical). */
  readonly root: string
}

const isInside = (root: string, path: string) => path === root || path.startsWith(root.endsWith("/") ? root : root + "/")

/** `src/a.ts` inside the workspace, the absolute path outside it (marked), the URI for other schemes. */
export const shownPath = (where: Where, uri: string): { readonly text: string; readonly inside: boolean; readonly path?: string } => {
  const path = uriPath(uri)
  if (path === undefined) return { text: uri, inside: false }
  return isInside(where.root, path)
    ? { text: path.slice(where.root.length + 1) || ".", inside: true, path }
    : { text: path, inside: false, path }
}

const severities = ["", "error", "warning", "info", "hint"] as const
/** A diagnostic's severity by name (an unknown number is info). */
export const severityOf = (d: Diagnostic): "error" | "warning" | "info" | "hint" => {
  const name = severities[d.severity ?? 1]
  return name === undefined || name === "" ? "info" : name
}
export const oneLine = (s: string, max: number) => {
  const flat = s.replace(/\s*\n\s*/g, " ").trim()
  return flat.length > max ? `${flat.slice(0, max)}…` : flat
}

/** Errors first, then warnings, info, hints; by position within a severity. */
export const sortDiagnostics = (ds: ReadonlyArray<Diagnostic>): ReadonlyArray<Diagnostic> =>
  [...ds].sort((a, b) => (a.severity ?? 1) - (b.severity ?? 1) || a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character)

const count = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`

export const diagnosticsSummary = (ds: ReadonlyArray<Diagnostic>): string => {
  if (ds.length === 0) return "no problems"
  const by = (s: number) => ds.filter((d) => (d.severity ?? 1) === s).length
  return [count(by(1), "error"), count(by(2), "warning"), by(3) + by(4) > 0 ? `${by(3) + by(4)} info` : ""]
    .filter((p) => p !== "" && !p.startsWith("0 "))
    .join(", ")
}

export const formatDiagnostics = (
  shown: string,
  ds: ReadonlyArray<Diagnostic>,
  max: number = limits.diagnostics
): { readonly text: string; readonly truncated: boolean } => {
  const sorted = sortDiagnostics(ds)
  const lines = sorted.slice(0, max).map((d) => {
    const code = d.code === undefined || d.code === null ? "" : ` ${d.source === "typescript" || d.source === "ts" ? "TS" : ""}${d.code}`
    const source = d.source === undefined ? "" : ` (${d.source})`
    return `${shown}:${d.range.start.line + 1}:${d.range.start.character + 1} ${severityOf(d)}${code}: ${oneLine(d.message, limits.messageChars)}${source}`
  })
  const more = sorted.length > max ? [`[truncated: ${sorted.length - max} more diagnostics]`] : []
  return { text: [`${shown}: ${diagnosticsSummary(ds)}`, ...lines, ...more].join("\n"), truncated: more.length > 0 }
}

export interface ShownLocation {
  readonly text: string
  readonly line: number
  readonly character: number
  /** The source line, when the jail let us read it. */
  readonly snippet?: string | undefined
  readonly inside: boolean
}

export const formatLocations = (
  title: string,
  locations: ReadonlyArray<ShownLocation>,
  max: number
): { readonly text: string; readonly truncated: boolean } => {
  if (locations.length === 0) return { text: `${title}: none found`, truncated: false }
  const files = new Set(locations.map((l) => l.text)).size
  const lines = locations.slice(0, max).map((l) => {
    const where = `${l.text}:${l.line + 1}:${l.character + 1}`
    const note = l.inside ? "" : " (outside the workspace)"
    return l.snippet === undefined ? `${where}${note}` : `${where}${note}  ${oneLine(l.snippet, limits.snippetChars)}`
  })
  const more = locations.length > max ? [`[truncated: ${locations.length - max} more]`] : []
  return {
    text: [`${title}: ${count(locations.length, "location")}${files > 1 ? ` in ${files} files` : ""}`, ...lines, ...more].join("\n"),
    truncated: more.length > 0
  }
}

/** Inline images (`![](data:image/png;base64,…)`, `<img src="data:…">`, as CSS servers show colours and images): dropped. */
export const dropInlineImages = (text: string): string =>
  text
    .replace(/!\[[^\]\n]*\]\(\s*<?data:[^)\s]*>?(?:\s+"[^"]*")?\s*\)/g, "")
    .replace(/<img\b[^>]*\bsrc\s*=\s*["']?data:[^>]*>/gi, "")
    .replace(/\n{3,}/g, "\n\n")
    .trim()

export const formatHover = (title: string, raw: string): { readonly text: string; readonly truncated: boolean } => {
  const text = dropInlineImages(raw)
  if (text.trim() === "") return { text: `${title}: no hover information`, truncated: false }
  const cut = text.length > limits.hoverChars
  return { text: `${title}:\n${cut ? `${text.slice(0, limits.hoverChars)}\n[truncated: ${text.length - limits.hoverChars} more characters]` : text}`, truncated: cut }
}

/** A hierarchical outline (DocumentSymbol[]) rather than a flat SymbolInformation[]. */
const isHierarchical = (x: ReadonlyArray<DocumentSymbol> | ReadonlyArray<SymbolInformation>): x is ReadonlyArray<DocumentSymbol> =>
  x.length === 0 || "selectionRange" in (x[0] ?? {})

const bodies = new Set([6, 9, 12])
const isCallback = (name: string) => /\bcallback$|^<[^>]*>$|^\(anonymous( function)?\)$/.test(name)

/**
 * The outline without locals and callbacks: nothing inside a function, method or constructor body, no anonymous
 * function (`describe() callback`, `<function>`), in the server's order. Flat symbol lists lose what lives in a
 * function (by container name) and callbacks.
 */
export const outline = (symbols: ReadonlyArray<DocumentSymbol> | ReadonlyArray<SymbolInformation>): ReadonlyArray<DocumentSymbol> | ReadonlyArray<SymbolInformation> => {
  if (!isHierarchical(symbols)) {
    const functions = new Set(symbols.filter((s) => bodies.has(s.kind)).map((s) => s.name))
    return symbols.filter((s) => !isCallback(s.name) && !(s.containerName !== undefined && s.containerName !== null && functions.has(s.containerName)))
  }
  const keep = (ss: ReadonlyArray<DocumentSymbol>): ReadonlyArray<DocumentSymbol> =>
    ss
      .filter((s) => !isCallback(s.name))
      .map((s) => {
        const { children, ...rest } = s
        return bodies.has(s.kind) || children === undefined ? rest : { ...rest, children: keep(children) }
      })
  return keep(symbols)
}

/** An outline: one symbol per line, indented by nesting, with its 1-based line (or line range). */
export const formatDocumentSymbols = (
  shown: string,
  symbols: ReadonlyArray<DocumentSymbol> | ReadonlyArray<SymbolInformation>,
  max: number = limits.symbols
): { readonly text: string; readonly truncated: boolean } => {
  const lines: Array<string> = []
  let total = 0
  const walk = (ss: ReadonlyArray<DocumentSymbol>, depth: number) => {
    for (const s of ss) {
      total++
      if (lines.length < max) {
        const start = s.range.start.line + 1
        const end = s.range.end.line + 1
        const detail = s.detail === undefined || s.detail === null || s.detail === "" ? "" : ` ${oneLine(s.detail, 80)}`
        lines.push(`${"  ".repeat(depth)}${symbolKind(s.kind)} ${s.name}${detail}  ${end > start ? `${start}-${end}` : `${start}`}`)
      }
      walk(s.children ?? [], depth + 1)
    }
  }
  if (isHierarchical(symbols)) walk(symbols, 0)
  else {
    for (const s of symbols) {
      total++
      if (lines.length >= max) continue
      const line = "range" in s.location ? `  ${s.location.range.start.line + 1}` : ""
      lines.push(`${s.containerName ? "  " : ""}${symbolKind(s.kind)} ${s.name}${line}`)
    }
  }
  if (total === 0) return { text: `${shown}: no symbols`, truncated: false }
  const more = total > max ? [`[truncated: ${total - max} more symbols]`] : []
  return { text: [`${shown}: ${count(total, "symbol")}`, ...lines, ...more].join("\n"), truncated: more.length > 0 }
}

export const formatWorkspaceSymbols = (
  where: Where,
  query: string,
  symbols: ReadonlyArray<SymbolInformation>,
  max: number = limits.workspaceSymbols
): { readonly text: string; readonly truncated: boolean } => {
  if (symbols.length === 0) return { text: `no symbols match "${query}"`, truncated: false }
  // Workspace symbols first, then exact names, then the rest.
  const ranked = symbols
    .map((s) => ({ s, p: shownPath(where, s.location.uri) }))
    .sort((a, b) => Number(b.p.inside) - Number(a.p.inside) || Number(b.s.name === query) - Number(a.s.name === query) || (a.p.text < b.p.text ? -1 : a.p.text > b.p.text ? 1 : 0))
  const lines = ranked.slice(0, max).map(({ s, p }) => {
    const line = "range" in s.location ? `:${s.location.range.start.line + 1}` : ""
    const container = s.containerName ? ` in ${s.containerName}` : ""
    return `${symbolKind(s.kind)} ${s.name}${container}  ${p.text}${line}${p.inside ? "" : " (outside the workspace)"}`
  })
  const more = symbols.length > max ? [`[truncated: ${symbols.length - max} more]`] : []
  return { text: [`${count(symbols.length, "symbol")} match "${query}"`, ...lines, ...more].join("\n"), truncated: more.length > 0 }
}

// ---------------------------------------------------------------------------------------------------------------
// Anchors: the file a server is asked with when it only knows the projects of open files (workspace symbols).

/** JSON with comments and trailing commas (tsconfig.json), comments removed outside strings. */
export const stripJsonComments = (text: string): string => {
  let out = ""
  let i = 0
  while (i < text.length) {
    const c = text[i] ?? ""
    if (c === '"') {
      let j = i + 1
      while (j < text.length && text[j] !== '"') j += text[j] === "\\" ? 2 : 1
      out += text.slice(i, j + 1)
      i = j + 1
    } else if (c === "/" && text[i + 1] === "/") {
      while (i < text.length && text[i] !== "\n") i++
    } else if (c === "/" && text[i + 1] === "*") {
      const end = text.indexOf("*/", i + 2)
      i = end === -1 ? text.length : end + 2
    } else {
      out += c
      i++
    }
  }
  return out.replace(/,(\s*[}\]])/g, "$1")
}

const ProjectConfig = Schema.Struct({ include: Schema.optional(Schema.Array(Schema.String)) })

/**
 * The folders a project configuration (tsconfig.json, jsconfig.json, pyrightconfig.json) includes, as
 * workspace-relative prefixes ("" for everything); none when the text is not such a configuration.
 */
export const includedPrefixes = (configText: string): ReadonlyArray<string> => {
  const parsed = Either.try((): unknown => JSON.parse(stripJsonComments(configText)))
  if (Either.isLeft(parsed)) return []
  const config = Schema.decodeUnknownEither(ProjectConfig)(parsed.right)
  if (Either.isLeft(config)) return []
  const include = config.right.include ?? ["**/*"]
  return include.map((pattern) => {
    const segments = pattern.replace(/^\.\//, "").split("/")
    const fixed = segments.findIndex((s) => /[*?[{]/.test(s))
    const kept = fixed === -1 ? segments : segments.slice(0, fixed)
    return kept.join("/")
  })
}

/**
 * The best anchor among workspace-relative files: one a project includes (by `prefixes`, when any are known), not a
 * tool's configuration file (`vitest.config.ts`), the shallowest, then the first by name.
 */
export const pickAnchor = (files: ReadonlyArray<string>, prefixes: ReadonlyArray<string>): string | undefined => {
  const included = (f: string) => prefixes.length === 0 || prefixes.some((p) => p === "" || f === p || f.startsWith(`${p}/`))
  const isConfig = (f: string) => /\.config\.[^/]+$|(^|\/)\.[^/]+$/.test(f)
  const depth = (f: string) => f.split("/").length
  const rank = (f: string) => [included(f) ? 0 : 1, isConfig(f) ? 1 : 0, depth(f)] as const
  return [...files].sort((a, b) => {
    const ra = rank(a)
    const rb = rank(b)
    return ra[0] - rb[0] || ra[1] - rb[1] || ra[2] - rb[2] || (a < b ? -1 : a > b ? 1 : 0)
  })[0]
}
