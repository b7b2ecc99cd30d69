/** Shared pieces of the SQL guard: verdicts, statement splitting and token helpers. Pure. */
import type { SqlDialect, Token } from "../SqlLexer.js"

export type SqlVerdict =
  | { readonly _tag: "Allow"; readonly statements: ReadonlyArray<string> }
  | { readonly _tag: "Deny"; readonly rule: string; readonly reason: string }

export type Denial = Extract<SqlVerdict, { readonly _tag: "Deny" }>

/** Largest SQL text the guard will judge, in UTF-8 bytes. */
export const maxBytes = 100_000
/** How deep the guard follows SQL nested in strings (PREPARE … FROM '…', DO bodies, function bodies). */
export const maxNesting = 4

export const deny = (rule: string, reason: string): Denial => ({ _tag: "Deny", rule, reason })
export const allow = (statements: ReadonlyArray<string>): SqlVerdict => ({ _tag: "Allow", statements })

export const utf8Length = (text: string): number => {
  let bytes = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c < 0x80) bytes += 1
    else if (c < 0x800) bytes += 2
    else if (c >= 0xd800 && c <= 0xdbff) {
      bytes += 4
      i++
    } else bytes += 3
  }
  return bytes
}

// ---------------------------------------------------------------------------------------------------------------
// Statements

export interface Statement {
  readonly tokens: ReadonlyArray<Token>
  /** The statement's source text without its terminating `;`, trimmed. */
  readonly text: string
}

export const blockOpeners: ReadonlySet<string> = new Set(["TRIGGER", "PROCEDURE", "FUNCTION", "EVENT"])
export const endNotClosing: ReadonlySet<string> = new Set(["IF", "LOOP", "WHILE", "REPEAT", "FOR"])

/**
 * Split on top-level `;`. Inside `CREATE TRIGGER/PROCEDURE/FUNCTION/EVENT … BEGIN … END` the `;` belong to the
 * body (SQLite triggers, MySQL routines): merging never hides a token from inspection.
 */
export const splitStatements = (sql: string, tokens: ReadonlyArray<Token>): ReadonlyArray<Statement> => {
  const statements: Array<Statement> = []
  let current: Array<Token> = []
  let regionStart = 0
  let depth = 0
  let block = false
  tokens.forEach((token, k) => {
    if (token.kind === "semicolon" && depth === 0) {
      if (current.length > 0) statements.push({ tokens: current, text: sql.slice(regionStart, token.start).trim() })
      current = []
      regionStart = token.end
      block = false
      return
    }
    if (token.kind === "word") {
      const first = current[0]
      if (!block && first !== undefined && first.kind === "word" && first.value === "CREATE") {
        block = blockOpeners.has(token.value)
      }
      if (block) {
        const following = tokens[k + 1]
        if (token.value === "BEGIN" || token.value === "CASE") depth++
        else if (token.value === "END" && !(following?.kind === "word" && endNotClosing.has(following.value))) {
          depth = Math.max(0, depth - 1)
        }
      }
    }
    current.push(token)
  })
  if (current.length > 0) statements.push({ tokens: current, text: sql.slice(regionStart).trim() })
  return statements
}

// ---------------------------------------------------------------------------------------------------------------
// Token helpers

export const wordAt = (ts: ReadonlyArray<Token>, k: number): string | undefined => {
  const t = ts[k]
  return t !== undefined && t.kind === "word" ? t.value : undefined
}
export const isWord = (ts: ReadonlyArray<Token>, k: number, ...names: ReadonlyArray<string>): boolean => {
  const w = wordAt(ts, k)
  return w !== undefined && names.includes(w)
}
export const kindAt = (ts: ReadonlyArray<Token>, k: number): Token["kind"] | undefined => ts[k]?.kind
export const isOp = (ts: ReadonlyArray<Token>, k: number, op: string): boolean => {
  const t = ts[k]
  return t !== undefined && t.kind === "op" && t.text === op
}
export const isNameToken = (t: Token | undefined): boolean => t !== undefined && (t.kind === "word" || t.kind === "quoted")

/** The name of a function called at `k` (`name(`, `"name"(`, `schema.name(`), if any. */
export const calledName = (ts: ReadonlyArray<Token>, k: number, dialect: SqlDialect): string | undefined => {
  const t = ts[k]
  if (t === undefined || kindAt(ts, k + 1) !== "lparen") return undefined
  if (t.kind === "word") return t.text
  if (t.kind === "quoted") return t.value
  if (t.kind === "string" && t.quote === "\"" && dialect === "mysql") return t.value // ANSI_QUOTES identifier
  return undefined
}

/** Positions where a (sub)statement can start: the beginning, after `(` or `;`, and in routine bodies. */
export const subStatementOpeners: ReadonlySet<string> = new Set(["BEGIN", "THEN", "ELSE", "DO", "LOOP", "REPEAT", "ATOMIC"])
export const isSubHead = (ts: ReadonlyArray<Token>, k: number): boolean => {
  if (k === 0) return true
  const prev = ts[k - 1]
  if (prev === undefined) return true
  if (prev.kind === "lparen" || prev.kind === "semicolon") return true
  if (prev.kind === "op" && prev.text === ":") return true // MySQL label
  return prev.kind === "word" && subStatementOpeners.has(prev.value)
}

/** Whether the word at `k` is followed like a statement verb (not like a column: `avg(load)`, `(flush, 1)`). */
export const looksLikeStatement = (ts: ReadonlyArray<Token>, k: number): boolean => {
  const following = kindAt(ts, k + 1)
  return k === 0 || following === undefined || following === "semicolon" || following === "word" ||
    following === "string" || following === "quoted" || following === "number" || following === "param"
}

/** Index of the end of the (sub)statement starting at `k`: the next `;` or the end. */
export const pieceEnd = (ts: ReadonlyArray<Token>, k: number): number => {
  let j = k
  while (j < ts.length && kindAt(ts, j) !== "semicolon") j++
  return j
}

