/**
 * Positions as people give them and as servers count them. People count lines and columns from 1 and columns in
 * characters (Unicode code points); LSP counts from 0 and columns in UTF-16 code units (the encoding minicode
 * negotiates). A symbol given by name is looked for in code only: comments and string literals are masked first.
 * Pure.
 */
import { Either } from "effect"

export interface ZeroPosition {
  readonly line: number
  readonly character: number
}

/** The UTF-16 offset of the 0-based code-point column `column` in `line`, clamped to the line's end. */
export const utf16Of = (line: string, column: number): number => {
  let units = 0
  let points = 0
  for (const ch of line) {
    if (points >= column) break
    units += ch.length
    points++
  }
  return units
}

/** The 0-based code-point column of UTF-16 offset `units` in `line` (as given when the line is unknown). */
export const codePointsOf = (line: string | undefined, units: number): number => {
  if (line === undefined) return units
  let u = 0
  let points = 0
  for (const ch of line) {
    if (u >= units) break
    u += ch.length
    points++
  }
  return u < units ? points + (units - u) : points
}

const hashComments = new Set([".py", ".pyi", ".rb", ".sh", ".bash", ".zsh", ".yaml", ".yml", ".toml", ".pl", ".r", ".ex", ".exs", ".nix", ".tf"])
const noComments = new Set([".json", ".md", ".txt", ".html", ".xml"])

/**
 * The text with comments and string literals replaced by spaces (same length, newlines kept), so a word search
 * finds code only. Line comments are `//` or `#` by extension; block comments `/* *\/`; strings '…', "…" and `…`
 * (a quote with no partner on its line, like a Rust lifetime, is not a string; backquotes may span lines).
 */
export const maskNonCode = (text: string, extension: string): string => {
  if (noComments.has(extension)) return text
  const hash = hashComments.has(extension)
  const slash = !hash || extension === ".tf"
  const out = text.split("")
  const blank = (from: number, to: number) => {
    for (let k = from; k < to && k < out.length; k++) if (out[k] !== "\n") out[k] = " "
  }
  let i = 0
  while (i < text.length) {
    const c = text[i]
    const lineEnd = text.indexOf("\n", i) === -1 ? text.length : text.indexOf("\n", i)
    if ((slash && c === "/" && text[i + 1] === "/") || (hash && c === "#")) {
      blank(i, lineEnd)
      i = lineEnd
    } else if (slash && c === "/" && text[i + 1] === "*") {
      const end = text.indexOf("*/", i + 2)
      const stop = end === -1 ? text.length : end + 2
      blank(i, stop)
      i = stop
    } else if (c === '"' || c === "'" || c === "`") {
      let j = i + 1
      const limit = c === "`" ? text.length : lineEnd
      while (j < limit && text[j] !== c) j += text[j] === "\\" ? 2 : 1
      if (j >= limit) {
        i++
        continue
      }
      blank(i, j + 1)
      i = j + 1
    } else i++
  }
  return out.join("")
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
const declaration = /\b(?:function|class|interface|type|enum|const|let|var|def|fn|func|struct|trait|module|namespace|record|object|val)\s+$/

/**
 * Where to ask: `line`/`character` (1-based, the column in code points, clamped to the line) as given; `symbol` alone
 * finds its declaration in the code (a line that declares it, else its first whole-word occurrence); `symbol` with
 * `line` finds it on that line. Comments and strings never match.
 */
export const locate = (
  text: string,
  where: { readonly line?: number | undefined; readonly character?: number | undefined; readonly symbol?: string | undefined },
  extension = ""
): Either.Either<ZeroPosition, string> => {
  const lines = text.split("\n")
  const code = maskNonCode(text, extension).split("\n")
  const word = (symbol: string) => new RegExp(`(?<![\\w$])${escapeRegExp(symbol)}(?![\\w$])`, "g")
  if (where.line !== undefined) {
    const content = lines[where.line - 1]
    if (content === undefined) return Either.left(`line ${where.line} is past the end (the file has ${lines.length} lines)`)
    if (where.character !== undefined) return Either.right({ line: where.line - 1, character: utf16Of(content, where.character - 1) })
    if (where.symbol !== undefined && where.symbol !== "") {
      const m = word(where.symbol).exec(code[where.line - 1] ?? "")
      if (m === null) {
        return Either.left(
          word(where.symbol).test(content) ? `"${where.symbol}" occurs on line ${where.line} only in a comment or string` : `"${where.symbol}" does not occur on line ${where.line}`
        )
      }
      return Either.right({ line: where.line - 1, character: m.index })
    }
    return Either.right({ line: where.line - 1, character: Math.max(0, content.search(/\S/)) })
  }
  if (where.symbol === undefined || where.symbol === "") return Either.left("give line (and character) or symbol")
  const re = word(where.symbol)
  let first: ZeroPosition | undefined
  for (let i = 0; i < code.length; i++) {
    const content = code[i] ?? ""
    re.lastIndex = 0
    for (let m = re.exec(content); m !== null; m = re.exec(content)) {
      if (declaration.test(content.slice(0, m.index))) return Either.right({ line: i, character: m.index })
      first ??= { line: i, character: m.index }
    }
  }
  if (first !== undefined) return Either.right(first)
  return Either.left(
    word(where.symbol).test(text)
      ? `"${where.symbol}" occurs in this file only in comments or strings; give line and character, or lsp_workspace_symbols finds where it is declared`
      : `"${where.symbol}" does not occur in this file; lsp_workspace_symbols finds where it is declared`
  )
}
