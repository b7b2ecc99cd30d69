/**
 * A small, conservative SQL lexer for three dialects (SQLite, PostgreSQL, MySQL). It exists so the SQL guard can
 * see exactly the tokens a server would see: string literals, quoted identifiers and comments are recognised with
 * each dialect's own rules, so a keyword hidden in a string is data and a keyword hidden in a MySQL executable
 * comment (`/*! … *\/`) is code.
 *
 * Where servers differ by configuration (PostgreSQL `standard_conforming_strings`, MySQL `NO_BACKSLASH_ESCAPES` and
 * `ANSI_QUOTES`), the caller chooses through `LexOptions`; the guard lexes every plausible configuration.
 * Pure: no I/O, no module state.
 */
import { Either } from "effect"

export type SqlDialect = "sqlite" | "postgres" | "mysql"

export type TokenKind =
  | "word" // unquoted identifier or keyword; value is upper-cased
  | "quoted" // quoted identifier: "x", `x`, [x]; value is the unquoted name
  | "string" // string literal (also dollar-quoted); value is the decoded content
  | "number"
  | "param" // ?, ?1, $1, :name, @name, @@system_var
  | "op" // any other single character
  | "lparen"
  | "rparen"
  | "comma"
  | "dot"
  | "semicolon"

export interface Token {
  readonly kind: TokenKind
  /** Raw source text of the token. */
  readonly text: string
  /** Upper-cased for words, decoded content for strings and quoted identifiers, raw text otherwise. */
  readonly value: string
  /** Opening delimiter of strings and quoted identifiers (`'`, `"`, `` ` ``, `[`, `E'`, `$tag$`), else "". */
  readonly quote: string
  readonly start: number
  readonly end: number
  /** True when the token sits inside a MySQL executable comment `/*! … *\/`. */
  readonly executable: boolean
}

export interface LexOptions {
  readonly dialect: SqlDialect
  /** Backslash escapes inside '…' strings: PostgreSQL with standard_conforming_strings off, MySQL by default. */
  readonly backslashInSingle: boolean
  /** Backslash escapes inside MySQL "…" strings (off under NO_BACKSLASH_ESCAPES and for ANSI_QUOTES identifiers). */
  readonly backslashInDouble: boolean
}

export interface Lexed {
  readonly tokens: ReadonlyArray<Token>
  /** A backslash occurred inside a '…' or "…" literal whose meaning depends on server configuration. */
  readonly configDependent: boolean
}

export interface LexError {
  readonly _tag: "LexError"
  readonly message: string
  readonly offset: number
  /** Tokens lexed before the error: servers that run statements one by one execute the complete ones. */
  readonly partial: ReadonlyArray<Token>
}

/** The configuration each dialect runs with by default. */
export const defaultOptions = (dialect: SqlDialect): LexOptions => ({
  dialect,
  backslashInSingle: dialect === "mysql",
  backslashInDouble: dialect === "mysql"
})

/** Other server configurations that lex backslashes differently, tried when a literal holds a backslash. */
export const alternativeOptions = (dialect: SqlDialect): ReadonlyArray<LexOptions> => {
  switch (dialect) {
    case "postgres":
      return [{ dialect, backslashInSingle: true, backslashInDouble: false }]
    case "mysql":
      return [
        { dialect, backslashInSingle: false, backslashInDouble: false },
        { dialect, backslashInSingle: true, backslashInDouble: false }
      ]
    case "sqlite":
      return []
  }
}

const isDigit = (c: number): boolean => c >= 48 && c <= 57
const isHexDigit = (c: number): boolean => isDigit(c) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102)
const isIdentStart = (c: number): boolean => (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c >= 128
const isIdentPart = (c: number): boolean => isIdentStart(c) || isDigit(c) || c === 36
const isSpace = (c: number): boolean => c === 32 || c === 9 || c === 10 || c === 13 || c === 12 || c === 11

const mysqlEscape = (c: string): string => {
  switch (c) {
    case "0":
      return "\u0000"
    case "b":
      return "\b"
    case "n":
      return "\n"
    case "r":
      return "\r"
    case "t":
      return "\t"
    case "Z":
      return "\u001a"
    case "%":
      return "\\%"
    case "_":
      return "\\_"
    default:
      return c
  }
}

const hexValue = (hex: string): string | undefined => {
  const code = Number.parseInt(hex, 16)
  return Number.isNaN(code) || code > 0x10ffff ? undefined : String.fromCodePoint(code)
}

/** PostgreSQL E'' escape at `at`: \b \f \n \r \t, octal, \xHH, \uXXXX, \UXXXXXXXX, else the character itself. */
const postgresEscape = (sql: string, at: number): readonly [number, string] => {
  const c = sql.charAt(at + 1)
  const simple: Record<string, string> = { b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" }
  const mapped = simple[c]
  if (mapped !== undefined) return [2, mapped]
  const octal = /^[0-7]{1,3}/.exec(sql.slice(at + 1, at + 4))
  if (octal !== null) return [1 + octal[0].length, String.fromCharCode(Number.parseInt(octal[0], 8) & 0xff)]
  const hex = c === "x" ? /^[0-9a-fA-F]{1,2}/.exec(sql.slice(at + 2, at + 4)) : null
  if (hex !== null) return [2 + hex[0].length, String.fromCharCode(Number.parseInt(hex[0], 16))]
  const width = c === "u" ? 4 : c === "U" ? 8 : 0
  if (width > 0 && /^[0-9a-fA-F]+$/.test(sql.slice(at + 2, at + 2 + width)) && sql.length >= at + 2 + width) {
    const decoded = hexValue(sql.slice(at + 2, at + 2 + width))
    if (decoded !== undefined) return [2 + width, decoded]
  }
  return [2, c]
}

/** Decode PostgreSQL U&'' escapes (\XXXX, \+XXXXXX, \\); undefined when malformed. */
const decodeUnicodeEscapes = (raw: string): string | undefined => {
  let out = ""
  for (let j = 0; j < raw.length; j++) {
    const ch = raw.charAt(j)
    if (ch !== "\\") {
      out += ch
      continue
    }
    if (raw.charAt(j + 1) === "\\") {
      out += "\\"
      j++
      continue
    }
    const plus = raw.charAt(j + 1) === "+"
    const hex = plus ? raw.slice(j + 2, j + 8) : raw.slice(j + 1, j + 5)
    if (!/^[0-9a-fA-F]+$/.test(hex) || hex.length !== (plus ? 6 : 4)) return undefined
    const decoded = hexValue(hex)
    if (decoded === undefined) return undefined
    out += decoded
    j += plus ? 7 : 4
  }
  return out
}

/** Lex `sql` under `options`. Fails on anything the dialect would reject or that the guard cannot see through. */
export const lex = (sql: string, options: LexOptions): Either.Either<Lexed, LexError> => {
  const { dialect } = options
  const n = sql.length
  const tokens: Array<Token> = []
  let i = 0
  let executable = false
  let executableStart = 0
  let configDependent = false

  const fail = (message: string, offset: number): Either.Either<Lexed, LexError> =>
    Either.left({ _tag: "LexError", message, offset, partial: tokens.slice() })
  const push = (kind: TokenKind, start: number, end: number, value: string, quote = ""): void => {
    tokens.push({ kind, text: sql.slice(start, end), value, quote, start, end, executable })
  }
  const code = (at: number): number => (at < n ? sql.charCodeAt(at) : -1)
  /** End of a line comment starting at `from`: PostgreSQL stops at \n or \r, SQLite and MySQL only at \n. */
  const lineEnd = (from: number): number => {
    let j = from
    while (j < n) {
      const c = sql.charCodeAt(j)
      if (c === 10 || (c === 13 && dialect === "postgres")) break
      j++
    }
    return j
  }
  /** Decode one backslash escape at `at` (the backslash); returns [length, decoded]. */
  const escape = (at: number): readonly [number, string] => {
    const c = sql.charAt(at + 1)
    if (dialect === "mysql") return [2, mysqlEscape(c)]
    return postgresEscape(sql, at)
  }
  /** Scan a quoted literal from `start` (the opening quote); returns [end, decoded] or undefined if unterminated. */
  const quotedBody = (start: number, quote: string, backslash: boolean): readonly [number, string] | undefined => {
    let j = start + 1
    let value = ""
    while (j < n) {
      const ch = sql.charAt(j)
      if (backslash && ch === "\\") {
        if (j + 1 >= n) return undefined
        const [length, decoded] = escape(j)
        value += decoded
        j += length
        continue
      }
      if (ch === quote) {
        if (sql.charAt(j + 1) === quote) {
          value += quote
          j += 2
          continue
        }
        return [j + 1, value]
      }
      value += ch
      j++
    }
    return undefined
  }

  if (sql.includes("\u0000")) return fail("NUL character in SQL text", sql.indexOf("\u0000"))

  while (i < n) {
    const c = sql.charCodeAt(i)
    const ch = sql.charAt(i)
    const next = code(i + 1)

    if (isSpace(c)) {
      i++
      continue
    }
    if (c < 32 || c === 127) return fail(`control character U+${c.toString(16).padStart(4, "0")} in SQL text`, i)

    // Line comments.
    const dashComment = ch === "-" && next === 45 &&
      (dialect !== "mysql" || i + 2 >= n || code(i + 2) <= 32 || code(i + 2) === 127)
    if (dashComment || (ch === "#" && dialect === "mysql")) {
      if (executable) return fail("comment inside a MySQL executable comment", i)
      i = lineEnd(i)
      continue
    }

    // Block comments; MySQL executable comments are code.
    if (ch === "/" && next === 42) {
      if (dialect === "mysql") {
        if (executable) return fail("comment inside a MySQL executable comment", i)
        const bang = sql.charAt(i + 2) === "!" ? i + 3 : sql.startsWith("M!", i + 2) ? i + 4 : -1
        if (bang >= 0) {
          let j = bang
          while (j < n && isDigit(sql.charCodeAt(j))) j++
          executable = true
          executableStart = i
          i = j
          continue
        }
        const close = sql.indexOf("*/", i + 2)
        if (close < 0) return fail("unterminated block comment", i)
        i = close + 2
        continue
      }
      if (dialect === "postgres") {
        let depth = 1
        let j = i + 2
        while (j < n && depth > 0) {
          if (sql.startsWith("/*", j)) {
            depth++
            j += 2
          } else if (sql.startsWith("*/", j)) {
            depth--
            j += 2
          } else {
            j++
          }
        }
        if (depth > 0) return fail("unterminated block comment", i)
        i = j
        continue
      }
      const close = sql.indexOf("*/", i + 2)
      if (close < 0) return fail("unterminated block comment", i)
      i = close + 2
      continue
    }
    if (executable && ch === "*" && next === 47) {
      executable = false
      i += 2
      continue
    }

    // String literals.
    if (ch === "'" || (ch === "\"" && dialect === "mysql")) {
      const backslash = ch === "'" ? options.backslashInSingle : options.backslashInDouble
      const body = quotedBody(i, ch, backslash)
      if (body === undefined) return fail("unterminated string literal", i)
      const [end, value] = body
      if (dialect !== "sqlite" && sql.slice(i, end).includes("\\")) configDependent = true
      if (executable && sql.slice(i, end).includes("*/")) {
        return fail("'*/' inside a literal in a MySQL executable comment", i)
      }
      push("string", i, end, value, ch)
      i = end
      continue
    }

    // Quoted identifiers.
    if (ch === "\"" || (ch === "`" && dialect !== "postgres")) {
      const body = quotedBody(i, ch, false)
      if (body === undefined) return fail("unterminated quoted identifier", i)
      const [end, value] = body
      if (executable && sql.slice(i, end).includes("*/")) {
        return fail("'*/' inside an identifier in a MySQL executable comment", i)
      }
      push("quoted", i, end, value, ch)
      i = end
      continue
    }
    if (ch === "`") return fail("backtick is not valid in PostgreSQL", i)
    if (ch === "[" && dialect === "sqlite") {
      const close = sql.indexOf("]", i + 1)
      if (close < 0) return fail("unterminated [identifier]", i)
      push("quoted", i, close + 1, sql.slice(i + 1, close), "[")
      i = close + 1
      continue
    }

    // Dollar: PostgreSQL parameters and dollar quoting, SQLite parameters, MySQL identifier character.
    if (ch === "$" && dialect === "postgres") {
      if (isDigit(next)) {
        let j = i + 1
        while (j < n && isDigit(sql.charCodeAt(j))) j++
        push("param", i, j, sql.slice(i, j))
        i = j
        continue
      }
      let j = i + 1
      if (isIdentStart(code(j))) {
        j++
        while (j < n && isIdentPart(sql.charCodeAt(j)) && sql.charCodeAt(j) !== 36) j++
      }
      if (sql.charAt(j) !== "$") return fail("stray '$'", i)
      const delimiter = sql.slice(i, j + 1)
      const close = sql.indexOf(delimiter, j + 1)
      if (close < 0) return fail(`unterminated dollar-quoted string ${delimiter}`, i)
      push("string", i, close + delimiter.length, sql.slice(j + 1, close), delimiter)
      i = close + delimiter.length
      continue
    }

    // Parameters and variables.
    if (
      (ch === "$" && dialect === "sqlite") ||
      (ch === ":" && dialect === "sqlite" && isIdentPart(next)) ||
      (ch === "#" && dialect === "sqlite" && isIdentPart(next)) ||
      (ch === "@" && dialect !== "postgres") ||
      (ch === "?" && dialect !== "postgres")
    ) {
      let j = i + 1
      if (ch === "@" && sql.charAt(j) === "@") j++
      while (j < n && isIdentPart(sql.charCodeAt(j))) j++
      push("param", i, j, sql.slice(i, j))
      i = j
      continue
    }

    // Numbers (a trailing identifier becomes a separate word: more words visible, never fewer).
    if (isDigit(c) || (ch === "." && isDigit(next))) {
      let j = i
      if (ch === "0" && (next === 120 || next === 88) && isHexDigit(code(i + 2))) {
        j = i + 2
        while (j < n && (isHexDigit(sql.charCodeAt(j)) || sql.charAt(j) === "_")) j++
      } else {
        while (j < n && (isDigit(sql.charCodeAt(j)) || sql.charAt(j) === "_")) j++
        if (sql.charAt(j) === "." && isDigit(code(j + 1))) {
          j++
          while (j < n && (isDigit(sql.charCodeAt(j)) || sql.charAt(j) === "_")) j++
        } else if (sql.charAt(j) === "." && j > i && !isIdentStart(code(j + 1))) {
          j++
        }
        if ((sql.charAt(j) === "e" || sql.charAt(j) === "E")) {
          const sign = sql.charAt(j + 1) === "+" || sql.charAt(j + 1) === "-" ? 1 : 0
          if (isDigit(code(j + 1 + sign))) {
            j += 1 + sign
            while (j < n && isDigit(sql.charCodeAt(j))) j++
          }
        }
      }
      push("number", i, j, sql.slice(i, j))
      i = j
      continue
    }

    // Words.
    if (isIdentStart(c) || (ch === "$" && dialect === "mysql")) {
      let j = i + 1
      while (j < n && isIdentPart(sql.charCodeAt(j))) j++
      const text = sql.slice(i, j)
      if (dialect === "postgres" && text.toUpperCase() === "UESCAPE") {
        return fail("UESCAPE is not supported: the guard cannot decode custom Unicode escapes", i)
      }
      const quote = sql.charAt(j + 1)
      if (dialect === "postgres" && (text === "U" || text === "u") && sql.charAt(j) === "&" &&
        (quote === "'" || quote === "\"")) {
        const body = quotedBody(j + 1, quote, false)
        if (body === undefined) return fail("unterminated U& literal", i)
        const [end, raw] = body
        const value = decodeUnicodeEscapes(raw)
        if (value === undefined) return fail("invalid Unicode escape in U& literal", i)
        push(quote === "'" ? "string" : "quoted", i, end, value, `U&${quote}`)
        i = end
        continue
      }
      if (dialect === "postgres" && (text === "E" || text === "e") && sql.charAt(j) === "'") {
        const body = quotedBody(j, "'", true)
        if (body === undefined) return fail("unterminated E'' string literal", i)
        const [end, value] = body
        push("string", i, end, value, "E'")
        i = end
        continue
      }
      push("word", i, j, text.toUpperCase())
      i = j
      continue
    }

    switch (ch) {
      case "(":
        push("lparen", i, i + 1, ch)
        break
      case ")":
        push("rparen", i, i + 1, ch)
        break
      case ",":
        push("comma", i, i + 1, ch)
        break
      case ".":
        push("dot", i, i + 1, ch)
        break
      case ";":
        if (executable) return fail("';' inside a MySQL executable comment", i)
        push("semicolon", i, i + 1, ch)
        break
      default:
        push("op", i, i + 1, ch)
    }
    i++
  }

  if (executable) return fail("unterminated MySQL executable comment", executableStart)
  return Either.right({ tokens, configDependent })
}
