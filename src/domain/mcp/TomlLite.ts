/**
 * TOML as far as `mcp config --for codex` needs it: writing strings and arrays of strings, and reading a whole
 * file's statements (table headers and key assignments, each with its absolute dotted path and where it starts)
 * without evaluating values, so a table can be added or replaced while every other byte of the file stays as it
 * was. Values are skipped by their syntax (strings of all four kinds, arrays and inline tables over several lines,
 * scalars); text this reader does not understand is an error, never a guess.
 */
import { Either } from "effect"

const escapes: Readonly<Record<string, string>> = { '"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r" }

/** A TOML basic string: `"`, `\` and every control character escaped. */
export const string = (s: string): string =>
  `"${s.replace(/["\\\u0000-\u001f\u007f]/g, (c) => escapes[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)}"`

export const stringArray = (items: ReadonlyArray<string>): string => `[${items.map(string).join(", ")}]`

/** A key: bare when it can be, else quoted. */
export const key = (k: string): string => (/^[A-Za-z0-9_-]+$/.test(k) ? k : string(k))

export const dottedKey = (path: ReadonlyArray<string>): string => path.map(key).join(".")

export interface Statement {
  readonly kind: "table" | "array-table" | "key"
  /** Absolute: a header's own path, or a key's path under the table it is in. */
  readonly path: ReadonlyArray<string>
  /** Offset of the start of the line the statement begins on. */
  readonly lineStart: number
}

class Bad {
  constructor(readonly reason: string) {}
}

const basicEscapes: Readonly<Record<string, string>> = { b: "\b", t: "\t", n: "\n", f: "\f", r: "\r", e: "\u001b", '"': '"', "\\": "\\" }

/** Reads every statement of a TOML document, or says where it stopped understanding it. */
export const statements = (text: string): Either.Either<ReadonlyArray<Statement>, string> => {
  let i = 0
  const n = text.length
  const fail = (what: string): never => {
    const line = text.slice(0, i).split("\n").length
    throw new Bad(`line ${line}: ${what}`)
  }
  const at = (s: string) => text.startsWith(s, i)
  const blanks = () => {
    while (i < n && (text[i] === " " || text[i] === "\t")) i++
  }
  const comment = () => {
    if (text[i] !== "#") return
    while (i < n && text[i] !== "\n") i++
  }
  /** Blanks, comments and newlines (inside arrays and inline tables, and between statements). */
  const space = () => {
    for (;;) {
      blanks()
      comment()
      if (at("\r\n")) i += 2
      else if (text[i] === "\n") i++
      else return
    }
  }
  const endOfLine = () => {
    blanks()
    comment()
    if (at("\r\n")) i += 2
    else if (text[i] === "\n") i++
    else if (i < n) fail("expected the end of the line")
  }
  const basic = (): string => {
    i++
    let out = ""
    while (i < n && text[i] !== '"') {
      const c = text[i] ?? ""
      if (c === "\n") fail("newline in a string")
      if (c === "\\") {
        const e = text[i + 1] ?? ""
        const simple = basicEscapes[e]
        if (simple !== undefined) {
          out += simple
          i += 2
        } else if (e === "u" || e === "U" || e === "x") {
          const len = e === "u" ? 4 : e === "U" ? 8 : 2
          const hex = text.slice(i + 2, i + 2 + len)
          if (!new RegExp(`^[0-9A-Fa-f]{${len}}$`).test(hex)) fail("bad escape")
          const cp = parseInt(hex, 16)
          if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) fail("bad escape")
          out += String.fromCodePoint(cp)
          i += 2 + len
        } else fail("bad escape")
      } else {
        out += c
        i++
      }
    }
    if (i >= n) fail("unterminated string")
    i++
    return out
  }
  const literal = (): string => {
    const end = text.indexOf("'", i + 1)
    const nl = text.indexOf("\n", i + 1)
    if (end < 0 || (nl >= 0 && nl < end)) fail("unterminated string")
    const out = text.slice(i + 1, end)
    i = end + 1
    return out
  }
  const multiline = (quote: '"""' | "'''") => {
    i += 3
    for (;;) {
      if (i >= n) fail("unterminated string")
      if (quote === '"""' && text[i] === "\\") i += 2
      else if (at(quote)) {
        i += 3
        // Up to two quotes may end the content right before the closing three.
        for (let k = 0; k < 2 && text[i] === quote[0]; k++) i++
        return
      } else i++
    }
  }
  const simpleKey = (): string => {
    if (text[i] === '"') return basic()
    if (text[i] === "'") return literal()
    const start = i
    while (i < n && /[A-Za-z0-9_-]/.test(text[i] ?? "")) i++
    if (i === start) fail("expected a key")
    return text.slice(start, i)
  }
  const dotted = (): ReadonlyArray<string> => {
    const parts = [simpleKey()]
    for (;;) {
      blanks()
      if (text[i] !== ".") return parts
      i++
      blanks()
      parts.push(simpleKey())
    }
  }
  const value = (): void => {
    const c = text[i]
    if (at('"""')) return multiline('"""')
    if (at("'''")) return multiline("'''")
    if (c === '"') return void basic()
    if (c === "'") return void literal()
    if (c === "[") {
      i++
      for (;;) {
        space()
        if (text[i] === "]") return void i++
        value()
        space()
        if (text[i] === ",") i++
        else if (text[i] === "]") return void i++
        else fail("expected , or ] in an array")
      }
    }
    if (c === "{") {
      i++
      for (;;) {
        space()
        if (text[i] === "}") return void i++
        dotted()
        blanks()
        if (text[i] !== "=") fail("expected = in an inline table")
        i++
        blanks()
        value()
        space()
        if (text[i] === ",") i++
        else if (text[i] === "}") return void i++
        else fail("expected , or } in an inline table")
      }
    }
    const start = i
    while (i < n && !/[\s,\]}#]/.test(text[i] ?? "")) i++
    // A date and a time may be separated by one space.
    if (/^\d{4}-\d{2}-\d{2}$/.test(text.slice(start, i)) && text[i] === " " && /\d/.test(text[i + 1] ?? "")) {
      i++
      while (i < n && !/[\s,\]}#]/.test(text[i] ?? "")) i++
    }
    if (i === start) fail("expected a value")
  }

  const out: Array<Statement> = []
  let table: ReadonlyArray<string> = []
  try {
    if (text.charCodeAt(0) === 0xfeff) i = 1
    for (;;) {
      space()
      if (i >= n) break
      const lineStart = text.lastIndexOf("\n", i - 1) + 1
      if (text[i] === "[") {
        const array = at("[[")
        i += array ? 2 : 1
        blanks()
        table = dotted()
        blanks()
        if (!at(array ? "]]" : "]")) fail("expected ] after a table name")
        i += array ? 2 : 1
        out.push({ kind: array ? "array-table" : "table", path: table, lineStart })
      } else {
        const k = dotted()
        blanks()
        if (text[i] !== "=") fail("expected =")
        i++
        blanks()
        value()
        out.push({ kind: "key", path: [...table, ...k], lineStart })
      }
      endOfLine()
    }
  } catch (e) {
    if (e instanceof Bad) return Either.left(e.reason)
    throw e
  }
  return Either.right(out)
}
