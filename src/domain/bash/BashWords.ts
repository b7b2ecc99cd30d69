/**
 * Shell word expansion, statically: turns one word of a `BashAst` into the fields bash would pass to a command,
 * as far as they can be known before running it. Quotes and backslashes are resolved, `$'…'` decoded, literal
 * variables substituted (with field splitting when unquoted), `~` expanded and braces expanded. What cannot be
 * known (`$(…)`, unassigned variables, `$@`) becomes an `unknown` character, so callers fail closed on it.
 */
import type { BashNode } from "./BashAst.js"

/**
 * One character of an expanded field. `src`: unquoted source text (brace and glob active); `q`: quoted or escaped
 * (inert); `var`: from an unquoted expansion (glob active, not brace); `unk`: unknown content (anything, including
 * `/` and `..`); `sub`: a path below a known folder, without `..` (what `find` passes for `{}`).
 */
export type Kind = "src" | "q" | "var" | "unk" | "sub"
export interface Ch {
  readonly c: string
  readonly k: Kind
}
export type Field = ReadonlyArray<Ch>

export type VarValue = { readonly value: string; readonly tainted: boolean } | "unknown"

export interface Scope {
  readonly vars: ReadonlyMap<string, VarValue>
  readonly home: string | undefined
  readonly cwd: string
  /** IFS was assigned somewhere: field splitting of unquoted values is no longer predictable. */
  readonly ifsChanged: boolean
}

export interface Expanded {
  readonly fields: ReadonlyArray<Field>
  /** A `$(…)`, backtick or arithmetic expansion took part. */
  readonly commandSubstitution: boolean
  readonly processSubstitution: boolean
  /** A construct that can run code from data (`${x@P}`), or a node this expander does not know. */
  readonly problem?: string
  /** Brace expansion produced more fields than the guard is willing to judge. */
  readonly overflow: boolean
}

export const unknownCh: Ch = { c: "\uE000", k: "unk" }

/**
 * The output of a substitution whose whole program is `echo` or `printf %s`/`printf '%s\n'` of plain words (letters,
 * digits and `._/~*?-`, no quotes, no expansions), else undefined: nothing that could depend on state is guessed.
 */
const echoedSubstitution = (node: BashNode): string | undefined => {
  const inner = /^(?:\$\(|`)([\s\S]*?)(?:\)|`)$/.exec(node.text)?.[1]?.trim()
  return inner === undefined ? undefined : echoedWords(inner)
}

/** The words a program prints when its whole text is `echo`/`printf %s` of plain words, else undefined. */
export const echoedWords = (program: string): string | undefined => {
  const inner = program.trim()
  const m = /^(?:echo(?:\s+-n)?|printf\s+(?:%s|'%s'|"%s"|'%s\\n'|"%s\\n"))\s+([A-Za-z0-9._\/~*?-]+(?:\s+[A-Za-z0-9._\/~*?-]+)*)$/.exec(inner)
  return m?.[1]?.replace(/\s+/g, " ")
}
export const subCh: Ch = { c: "\uE001", k: "sub" }

const maxFields = 512

/** Shared, frozen characters for ASCII text of the kinds words are made of: expansion allocates none for them. */
const asciiChs = (k: Kind): ReadonlyArray<Ch> => Array.from({ length: 128 }, (_, code) => Object.freeze({ c: String.fromCharCode(code), k }))
const asciiSrc = asciiChs("src")
const asciiQ = asciiChs("q")
const asciiVar = asciiChs("var")

/** The character `c` (one code point) of kind `k`. */
export const ch = (c: string, k: Kind): Ch => {
  const table = k === "src" ? asciiSrc : k === "q" ? asciiQ : k === "var" ? asciiVar : undefined
  return (c.length === 1 ? table?.[c.charCodeAt(0)] : undefined) ?? { c, k }
}

/** One `Ch` per code point (a surrogate pair stays one character). */
const lit = (text: string, k: Kind): Array<Ch> => {
  const out: Array<Ch> = []
  for (const c of text) out.push(ch(c, k))
  return out
}

export const text = (field: Field): string => {
  let s = ""
  for (const ch of field) s += ch.c
  return s
}

const isGlobChar = (c: string): boolean => c === "*" || c === "?" || c === "["

const isLiteralCh = (ch: Ch): boolean => ch.k === "q" || ((ch.k === "src" || ch.k === "var") && !isGlobChar(ch.c))

export const isLiteral = (field: Field): boolean => {
  for (const ch of field) if (!isLiteralCh(ch)) return false
  return true
}

export const hasUnknown = (field: Field): boolean => field.some((ch) => ch.k === "unk")
export const hasSub = (field: Field): boolean => field.some((ch) => ch.k === "sub")

export const globChars: ReadonlySet<string> = new Set(["*", "?", "["])
export const isGlobActive = (ch: Ch): boolean => (ch.k === "src" || ch.k === "var") && isGlobChar(ch.c)
export const hasGlob = (field: Field): boolean => field.some(isGlobActive)

/** The literal value of a field, or undefined when any part is unknown or a glob. */
export const literal = (field: Field): string | undefined => {
  let s = ""
  for (const ch of field) {
    if (!isLiteralCh(ch)) return undefined
    s += ch.c
  }
  return s
}

/** Builds a literal field (for words the guard synthesises). */
export const fromString = (s: string): Field => lit(s, "q")

const ansiSimple: Record<string, string> = {
  n: "\n", t: "\t", r: "\r", a: "\x07", b: "\b", f: "\f", v: "\v", e: "\x1b", E: "\x1b",
  "\\": "\\", "'": "'", '"': '"', "?": "?"
}

/** Decodes the body of `$'…'` the way bash does. */
export const decodeAnsiC = (body: string): string => {
  let out = ""
  for (let i = 0; i < body.length; i++) {
    const c = body[i] ?? ""
    if (c !== "\\" || i + 1 >= body.length) {
      out += c
      continue
    }
    const n = body[i + 1] ?? ""
    const simple = Object.hasOwn(ansiSimple, n) ? ansiSimple[n] : undefined
    if (simple !== undefined) {
      out += simple
      i++
    } else if (n === "x" || n === "u" || n === "U") {
      const max = n === "x" ? 2 : n === "u" ? 4 : 8
      const m = new RegExp(`^[0-9a-fA-F]{1,${max}}`).exec(body.slice(i + 2))
      if (m === null) out += "\\" + n
      else out += String.fromCodePoint(Math.min(parseInt(m[0], 16), 0x10ffff))
      i += 1 + (m === null ? 0 : m[0].length)
    } else if (/[0-7]/.test(n)) {
      const m = /^[0-7]{1,3}/.exec(body.slice(i + 1))
      const digits = m?.[0] ?? n
      out += String.fromCharCode(parseInt(digits, 8) & 0xff)
      i += digits.length
    } else if (n === "c" && i + 2 < body.length) {
      out += String.fromCharCode((body.charCodeAt(i + 2) & 0x1f))
      i += 2
    } else {
      out += "\\" + n
      i++
    }
  }
  return out
}

/** Unquoted word text: a backslash quotes the next character, backslash-newline disappears. */
const unquotedChars = (raw: string, out: Array<Ch>) => {
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i] ?? ""
    if (c === "\\" && i + 1 < raw.length) {
      const n = raw[i + 1] ?? ""
      i++
      if (n !== "\n") out.push(ch(n, "q"))
    } else out.push(ch(c, "src"))
  }
}

/** Double-quoted text: only `\$ \` \" \\` and backslash-newline are escapes. */
const doubleQuotedChars = (raw: string, out: Array<Ch>) => {
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i] ?? ""
    const n = raw[i + 1]
    if (c === "\\" && n !== undefined && "$`\"\\\n".includes(n)) {
      i++
      if (n !== "\n") out.push(ch(n, "q"))
    } else out.push(ch(c, "q"))
  }
}

const plainExpansion = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$/

class Builder {
  fields: Array<Array<Ch>> = []
  cur: Array<Ch> = []
  /** The current field exists even if empty (a quoted empty string took part). */
  forced = false
  commandSubstitution = false
  processSubstitution = false
  problem: string | undefined = undefined
  constructor(readonly scope: Scope) {}

  finish() {
    if (this.cur.length > 0 || this.forced) this.fields.push(this.cur)
    this.cur = []
    this.forced = false
  }

  value(name: string, quoted: boolean) {
    const v = this.scope.vars.get(name)
    if (v === undefined || v === "unknown") {
      this.cur.push(unknownCh)
      return
    }
    this.known(v.value, quoted)
  }

  /** A value known before the command runs (a literal variable, the output of `$(echo …)`), expanded as bash would. */
  known(value: string, quoted: boolean) {
    if (quoted) {
      this.forced = true
      this.cur.push(...lit(value, "q"))
      return
    }
    if (this.scope.ifsChanged) {
      this.cur.push(unknownCh)
      return
    }
    // Unquoted: split on IFS whitespace; the pieces stay glob active.
    const parts = value.split(/[ \t\n]+/)
    parts.forEach((part, i) => {
      if (i > 0) this.finish()
      this.cur.push(...lit(part, "var"))
    })
  }

  node(node: BashNode, quoted: boolean) {
    switch (node.type) {
      case "word":
      case "number":
      case "brace_expression":
      case "extglob_pattern":
      case "regex":
      case "variable_name":
      case "special_variable_name":
      case "file_descriptor":
      case "test_operator": {
        if (quoted) doubleQuotedChars(node.text, this.cur)
        else {
          const start = this.cur.length
          this.tilde(node.text, start === 0)
        }
        return
      }
      case "raw_string":
        this.forced = true
        this.cur.push(...lit(node.text.slice(1, -1), "q"))
        return
      case "ansi_c_string":
        this.forced = true
        this.cur.push(...lit(decodeAnsiC(node.text.slice(2, -1)), "q"))
        return
      case "string":
        this.forced = true
        this.gaps(node, node.start + 1, node.end - 1, true)
        return
      case "translated_string": {
        const inner = node.children.find((c) => c.type === "string")
        if (inner === undefined) this.cur.push(unknownCh)
        else this.node(inner, quoted)
        return
      }
      case "concatenation":
        this.gaps(node, node.start, node.end, quoted)
        return
      case "string_content":
      case "heredoc_content":
        if (quoted) doubleQuotedChars(node.text, this.cur)
        else unquotedChars(node.text, this.cur)
        return
      case "simple_expansion": {
        const name = node.children.find((c) => c.named)
        if (name?.type === "variable_name") this.value(name.text, quoted)
        else this.cur.push(unknownCh)
        return
      }
      case "expansion": {
        if (/@[A-Za-z]?P/.test(node.text) || node.text.includes("@P")) this.problem = "${…@P} runs prompt expansion, which can run commands"
        const m = plainExpansion.exec(node.text)
        if (m !== null) this.value(m[1] ?? "", quoted)
        else this.cur.push(unknownCh)
        if (node.children.some(hasSubstitution)) this.commandSubstitution = true
        return
      }
      case "command_substitution": {
        // `$(echo .env)` and `` `printf %s .env` `` print words known now: the substitution is still judged on its
        // own, and the words it yields are judged here like any other (so `cat $(echo .env)` reads a secret).
        this.commandSubstitution = true
        const echoed = echoedSubstitution(node)
        if (echoed !== undefined) this.known(echoed, quoted)
        else this.cur.push(unknownCh)
        return
      }
      case "arithmetic_expansion":
        this.commandSubstitution = this.commandSubstitution || node.children.some(hasSubstitution)
        this.cur.push(unknownCh)
        return
      case "process_substitution":
        this.processSubstitution = true
        this.cur.push(unknownCh)
        return
      case "array":
        this.cur.push(unknownCh)
        return
      case "comment":
        return
      default:
        this.problem = `a ${node.type} node where a word was expected`
        this.cur.push(unknownCh)
    }
  }

  /** Walks a node's range: children where they are, the text between them as literal text. */
  gaps(node: BashNode, from: number, to: number, quoted: boolean) {
    let pos = from
    const source = node.text
    const base = node.start
    for (const child of node.children) {
      if (child.start < from || child.end > to) continue
      if (child.start > pos) this.rawText(source.slice(pos - base, child.start - base), quoted)
      if (child.named) this.node(child, quoted)
      else this.rawText(child.text, quoted)
      pos = child.end
    }
    if (to > pos) this.rawText(source.slice(pos - base, to - base), quoted)
  }

  rawText(raw: string, quoted: boolean) {
    if (raw === "") return
    if (quoted) doubleQuotedChars(raw, this.cur)
    else this.tilde(raw, this.cur.length === 0 && this.fields.length === 0)
  }

  /** Unquoted text; a leading `~` (at the start of the word) is the home folder. */
  tilde(raw: string, atStart: boolean) {
    if (atStart && raw.startsWith("~")) {
      const slash = raw.indexOf("/")
      const user = slash < 0 ? raw.slice(1) : raw.slice(1, slash)
      const rest = slash < 0 ? "" : raw.slice(slash)
      const homeVar = this.scope.vars.get("HOME")
      const home = homeVar !== undefined && homeVar !== "unknown" ? homeVar.value : this.scope.home
      if (user === "" && home !== undefined) this.cur.push(...lit(home, "q"))
      else if (user === "+") this.cur.push(...lit(this.scope.cwd, "q"))
      else this.cur.push(unknownCh)
      unquotedChars(rest, this.cur)
      return
    }
    unquotedChars(raw, this.cur)
  }
}

const hasSubstitution = (node: BashNode): boolean =>
  node.type === "command_substitution" || node.type === "process_substitution" || node.children.some(hasSubstitution)

/** Expands brace expressions (`{a,b}`, `{1..3}`) in unquoted source text, depth first. */
const braces = (field: Field, out: Array<Field>): boolean => {
  for (let i = 0; i < field.length; i++) {
    if (field[i]?.c !== "{" || field[i]?.k !== "src") continue
    let depth = 0
    const commas: Array<number> = []
    let close = -1
    for (let j = i + 1; j < field.length; j++) {
      const ch = field[j]
      if (ch === undefined || ch.k !== "src") continue
      if (ch.c === "{") depth++
      else if (ch.c === "}") {
        if (depth === 0) {
          close = j
          break
        }
        depth--
      } else if (ch.c === "," && depth === 0) commas.push(j)
    }
    if (close < 0) continue
    const before = field.slice(0, i)
    const after = field.slice(close + 1)
    let alternatives: Array<Field> = []
    if (commas.length > 0) {
      let from = i + 1
      for (const comma of [...commas, close]) {
        alternatives.push(field.slice(from, comma))
        from = comma + 1
      }
    } else {
      const inner = field.slice(i + 1, close)
      const seq = sequence(inner)
      if (seq === undefined) continue
      if (seq === "overflow") return false
      alternatives = seq
    }
    for (const alt of alternatives) {
      if (!braces([...before, ...alt, ...after], out)) return false
      if (out.length > maxFields) return false
    }
    return true
  }
  out.push(field)
  return out.length <= maxFields
}

const sequence = (inner: Field): Array<Field> | undefined | "overflow" => {
  if (inner.some((ch) => ch.k !== "src")) return undefined
  const m = /^(-?\d+|[A-Za-z])\.\.(-?\d+|[A-Za-z])(?:\.\.(-?\d+))?$/.exec(text(inner))
  if (m === null) return undefined
  const [a = "", b = ""] = [m[1], m[2]]
  const numeric = /\d/.test(a) && /\d/.test(b)
  if (!numeric && (/\d/.test(a) || /\d/.test(b))) return undefined
  const from = numeric ? parseInt(a, 10) : a.charCodeAt(0)
  const to = numeric ? parseInt(b, 10) : b.charCodeAt(0)
  const step = Math.max(1, Math.abs(parseInt(m[3] ?? "1", 10)))
  if (Math.abs(to - from) / step > maxFields) return "overflow"
  const out: Array<Field> = []
  const dir = to >= from ? 1 : -1
  for (let v = from; dir > 0 ? v <= to : v >= to; v += dir * step) out.push(lit(numeric ? String(v) : String.fromCharCode(v), "q"))
  return out
}

/** Expands one word node into fields. */
export const expand = (node: BashNode, scope: Scope): Expanded => {
  const b = new Builder(scope)
  b.node(node, false)
  b.finish()
  const fields: Array<Field> = []
  let overflow = false
  for (const f of b.fields) {
    if (!braces(f, fields)) {
      overflow = true
      break
    }
  }
  return {
    fields,
    commandSubstitution: b.commandSubstitution,
    processSubstitution: b.processSubstitution,
    overflow,
    ...(b.problem === undefined ? {} : { problem: b.problem })
  }
}

/** Expands an assignment value (no field splitting, no brace expansion, `~` after `=` and `:`). */
export const expandValue = (node: BashNode | undefined, scope: Scope): { readonly field: Field; readonly commandSubstitution: boolean; readonly problem?: string } => {
  if (node === undefined) return { field: [], commandSubstitution: false }
  const b = new Builder(scope)
  b.node(node, false)
  b.finish()
  const field = b.fields.flat().map((x) => (x.k === "src" || x.k === "var" ? ch(x.c, "q") : x))
  return {
    field,
    commandSubstitution: b.commandSubstitution || b.processSubstitution,
    ...(b.problem === undefined ? {} : { problem: b.problem })
  }
}
