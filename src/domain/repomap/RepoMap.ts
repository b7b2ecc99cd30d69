/**
 * The repo map: a compact outline of the workspace's important symbols. Files are ranked by how many other files
 * import them (then by a PageRank over the import graph, then by path); each shows its declarations with 1-based
 * line numbers, within a character budget. Extraction here is the regex fallback (any language); a tree-sitter
 * outline, where a grammar is installed, produces the same `Outline`. Pure.
 */

export interface SymbolLine {
  /** 1-based. */
  readonly line: number
  /** The declaration's first line, trimmed and shortened. */
  readonly text: string
}

export interface Outline {
  readonly symbols: ReadonlyArray<SymbolLine>
  /** Import specifiers as written (`./math.js`, `.models`, `app.geometry`). */
  readonly imports: ReadonlyArray<string>
}

export type Language = "ts" | "py" | "go" | "rs" | "sh" | "generic"

const byExtension: Readonly<Record<string, Language>> = {
  ".ts": "ts", ".tsx": "ts", ".mts": "ts", ".cts": "ts", ".js": "ts", ".jsx": "ts", ".mjs": "ts", ".cjs": "ts",
  ".py": "py", ".pyi": "py", ".go": "go", ".rs": "rs", ".sh": "sh", ".bash": "sh",
  ".java": "generic", ".kt": "generic", ".kts": "generic", ".scala": "generic", ".cs": "generic", ".rb": "generic",
  ".php": "generic", ".swift": "generic", ".c": "generic", ".h": "generic", ".cc": "generic", ".cpp": "generic",
  ".hpp": "generic", ".lua": "generic", ".ex": "generic", ".exs": "generic", ".dart": "generic", ".zig": "generic"
}

const extensionOf = (path: string) => {
  const base = path.slice(path.lastIndexOf("/") + 1)
  const dot = base.lastIndexOf(".")
  return dot <= 0 ? "" : base.slice(dot).toLowerCase()
}

/** The language of a source file, or undefined for anything the map does not outline. */
export const languageOf = (path: string): Language | undefined =>
  /\.d\.ts$|\.min\.js$/.test(path) ? undefined : byExtension[extensionOf(path)]

const maxSignature = 120
/** A declaration's first line as the map shows it: trimmed, without a trailing `{`, `:` or `=`, shortened. */
export const signature = (line: string): string => {
  const s = line.trim().replace(/\s*\{\s*$/, "").replace(/\s*[:=]\s*$/, "")
  return s.length > maxSignature ? `${s.slice(0, maxSignature)}…` : s
}

const rules: Readonly<Record<Language, ReadonlyArray<RegExp>>> = {
  ts: [
    /^(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:async\s+)?function\*?\s+[\w$]+/,
    /^(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:abstract\s+)?class\s+[\w$]+/,
    /^(?:export\s+)?(?:declare\s+)?(?:interface|type|enum|namespace)\s+[\w$]+/,
    /^export\s+(?:declare\s+)?(?:const|let|var)\s+[\w$]+/,
    /^export\s+default\s+/
  ],
  py: [/^(?:async\s+)?def\s+\w+/, /^class\s+\w+/, /^ {4}(?:async\s+)?def\s+(?:__init__|[A-Za-z]\w*)\s*\(/],
  go: [/^func\s+(?:\([^)]*\)\s*)?[A-Z]\w*/, /^type\s+[A-Z]\w*/],
  rs: [/^\s*pub(?:\([\w:]+\))?\s+(?:async\s+)?(?:unsafe\s+)?(?:fn|struct|enum|trait|type|const|static|mod|union)\s+\w+/, /^(?:impl|trait)\b/],
  sh: [/^(?:function\s+)?[\w-]+\s*\(\s*\)\s*\{?/, /^function\s+[\w-]+/],
  generic: [
    /^\s*(?:(?:public|private|protected|internal|export|open|abstract|final|sealed|static|data|pub)\s+)*(?:class|interface|enum|struct|record|trait|object|module|protocol|extension|def|fun|func|function|fn|defmodule|defp?)\s+[\w.$]+/
  ]
}

const importRules: Readonly<Record<Language, ReadonlyArray<RegExp>>> = {
  ts: [/\bfrom\s+["']([^"']+)["']/g, /\bimport\s*\(\s*["']([^"']+)["']\s*\)/g, /^\s*import\s+["']([^"']+)["']/gm, /\brequire\s*\(\s*["']([^"']+)["']\s*\)/g],
  py: [/^\s*from\s+(\.*[\w.]*)\s+import\s+([\w, ]+)/gm, /^\s*import\s+([\w.]+)/gm],
  go: [],
  rs: [/^\s*(?:pub\s+)?mod\s+(\w+)\s*;/gm],
  sh: [/^\s*(?:source|\.)\s+["']?([\w./-]+)["']?/gm],
  generic: []
}

/** Declarations and imports by regular expressions: the fallback for every language. */
export const extractRegex = (path: string, text: string): Outline => {
  const language = languageOf(path) ?? "generic"
  const symbols: Array<SymbolLine> = []
  const lines = text.split("\n")
  let inBlockComment = false
  lines.forEach((line, i) => {
    if (language === "ts" || language === "generic" || language === "go" || language === "rs") {
      if (inBlockComment) {
        if (line.includes("*/")) inBlockComment = false
        return
      }
      if (/^\s*\/\*/.test(line) && !line.includes("*/")) {
        inBlockComment = true
        return
      }
    }
    if (line.length > 1000) return
    if (rules[language].some((r) => r.test(line))) symbols.push({ line: i + 1, text: signature(line) })
  })
  const imports: Array<string> = []
  for (const rule of importRules[language]) {
    for (const m of text.matchAll(rule)) {
      const spec = m[1]
      if (spec === undefined) continue
      // `from . import a, b` names modules; `from .m import a` names m.
      if (language === "py" && /^\.+$/.test(spec) && m[2] !== undefined) {
        for (const name of m[2].split(",")) if (name.trim() !== "") imports.push(`${spec}${name.trim()}`)
      } else imports.push(spec)
    }
  }
  return { symbols, imports }
}

const normalise = (parts: ReadonlyArray<string>): string | undefined => {
  const out: Array<string> = []
  for (const p of parts) {
    if (p === "" || p === ".") continue
    if (p === "..") {
      if (out.length === 0) return undefined
      out.pop()
    } else out.push(p)
  }
  return out.join("/")
}
const dirOf = (path: string) => (path.includes("/") ? path.slice(0, path.lastIndexOf("/")) : "")

/** The workspace file an import names, if it is one of `files` (workspace-relative paths). */
export const resolveImport = (from: string, spec: string, files: ReadonlySet<string>): string | undefined => {
  const language = languageOf(from)
  const first = (candidates: ReadonlyArray<string | undefined>) => candidates.find((c): c is string => c !== undefined && files.has(c))
  if (language === "ts") {
    if (!spec.startsWith(".")) return undefined
    const base = normalise([...dirOf(from).split("/"), ...spec.split("/")])
    if (base === undefined) return undefined
    const stem = base.replace(/\.(m|c)?jsx?$/, "")
    const exts = [".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"]
    return first([base, ...exts.map((e) => stem + e), ...exts.map((e) => `${base}/index${e}`)])
  }
  if (language === "py") {
    const dots = /^\.*/.exec(spec)?.[0].length ?? 0
    const rest = spec.slice(dots).split(".").filter((s) => s !== "")
    const bases: Array<ReadonlyArray<string>> = []
    if (dots > 0) {
      const up = dirOf(from).split("/").filter((s) => s !== "")
      if (dots - 1 > up.length) return undefined
      bases.push(up.slice(0, up.length - (dots - 1)))
    } else bases.push([], ["src"])
    for (const b of bases) {
      const mod = normalise([...b, ...rest])
      if (mod === undefined) continue
      const found = first([`${mod}.py`, `${mod}.pyi`, `${mod}/__init__.py`])
      if (found !== undefined) return found
    }
    return undefined
  }
  if (language === "rs") {
    const dir = dirOf(from)
    const own = from.endsWith("/mod.rs") || from.endsWith("/lib.rs") || from.endsWith("/main.rs") || !from.includes("/") ? dir : from.replace(/\.rs$/, "")
    return first([normalise([own, `${spec}.rs`]), normalise([own, spec, "mod.rs"])])
  }
  if (language === "sh") return first([normalise([dirOf(from), spec]), normalise([spec])])
  return undefined
}

export interface Ranked {
  readonly path: string
  /** How many other files import it. */
  readonly importedBy: number
  readonly score: number
}

/** Ranks files by importers, then PageRank over the import graph (20 iterations, damping 0.85), then path. */
export const rank = (outlines: ReadonlyMap<string, Outline>): ReadonlyArray<Ranked> => {
  const files = new Set(outlines.keys())
  const edges = new Map<string, Set<string>>()
  for (const [from, outline] of outlines) {
    const targets = new Set<string>()
    for (const spec of outline.imports) {
      const to = resolveImport(from, spec, files)
      if (to !== undefined && to !== from) targets.add(to)
    }
    edges.set(from, targets)
  }
  const importers = new Map<string, number>()
  for (const targets of edges.values()) for (const t of targets) importers.set(t, (importers.get(t) ?? 0) + 1)
  const n = files.size
  let pr = new Map([...files].map((f) => [f, 1 / Math.max(1, n)]))
  for (let i = 0; i < 20; i++) {
    const next = new Map([...files].map((f) => [f, 0.15 / Math.max(1, n)]))
    let dangling = 0
    for (const [from, targets] of edges) {
      const share = pr.get(from) ?? 0
      if (targets.size === 0) dangling += share
      else for (const t of targets) next.set(t, (next.get(t) ?? 0) + (0.85 * share) / targets.size)
    }
    for (const f of files) next.set(f, (next.get(f) ?? 0) + (0.85 * dangling) / Math.max(1, n))
    pr = next
  }
  return [...files]
    .map((path) => ({ path, importedBy: importers.get(path) ?? 0, score: pr.get(path) ?? 0 }))
    .sort((a, b) => b.importedBy - a.importedBy || b.score - a.score || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
}

export const defaultMaxChars = 8000
const maxSymbolsPerFile = 40

/** The map as text within `maxChars`: whole file blocks in rank order, then a note of what did not fit. */
export const format = (
  title: string,
  ranked: ReadonlyArray<Ranked>,
  outlines: ReadonlyMap<string, Outline>,
  maxChars: number = defaultMaxChars
): { readonly text: string; readonly truncated: boolean } => {
  const withSymbols = ranked.filter((r) => (outlines.get(r.path)?.symbols.length ?? 0) > 0)
  const total = withSymbols.reduce((sum, r) => sum + (outlines.get(r.path)?.symbols.length ?? 0), 0)
  const plural = (n: number, w: string) => `${n} ${w}${n === 1 ? "" : "s"}`
  const header = `repo map of ${title}: ${plural(withSymbols.length, "file")}, ${plural(total, "symbol")} (files most imported first)`
  const parts: Array<string> = [header]
  let used = header.length
  let shown = 0
  for (const r of withSymbols) {
    const symbols = outlines.get(r.path)?.symbols ?? []
    const head = `${r.path}${r.importedBy > 0 ? ` (imported by ${r.importedBy})` : ""}`
    const lines = symbols.slice(0, maxSymbolsPerFile).map((s) => `  ${s.line}: ${s.text}`)
    if (symbols.length > maxSymbolsPerFile) lines.push(`  [+${symbols.length - maxSymbolsPerFile} more]`)
    // Keep as many of its lines as fit; a file whose head alone does not fit ends the map.
    let block = head
    if (used + 1 + block.length > maxChars) break
    for (const l of lines) {
      if (used + 1 + block.length + 1 + l.length > maxChars) break
      block += `\n${l}`
    }
    parts.push(block)
    used += 1 + block.length
    shown++
  }
  const rest = withSymbols.length - shown
  const note = rest > 0 ? `[truncated: ${rest} more files; raise max_chars or map a subdirectory]` : ""
  return { text: note === "" ? parts.join("\n") : `${parts.join("\n")}\n${note}`, truncated: rest > 0 }
}

/** cyrb53: a fast 53-bit content hash (cache keys, not security), as hex plus the length. */
export const hash = (text: string): string => {
  let h1 = 0xdeadbeef
  let h2 = 0x41c6ce57
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i)
    h1 = Math.imul(h1 ^ ch, 2654435761)
    h2 = Math.imul(h2 ^ ch, 1597334677)
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909)
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909)
  return `${(4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(16)}-${text.length}`
}
