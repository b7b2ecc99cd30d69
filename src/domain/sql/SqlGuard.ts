/**
 * The static SQL guard (issue 7): decides, without a database, whether an SQL text may run.
 *
 * The naive guard reads the first word; this one lexes the whole text with the dialect's own rules (strings,
 * quoted identifiers, comments, dollar quoting, MySQL executable comments), splits it into statements on
 * top-level `;`, and inspects every token of every statement:
 *
 * - always denied: functions and forms that reach the server's files, the network, other processes, server-wide
 *   configuration, native code, dynamic SQL, sleeping, and privilege changes;
 * - read-only mode (the default) also denies data-modifying and DDL keywords anywhere (CTE bodies included),
 *   `SELECT … INTO`, locking clauses, `EXPLAIN ANALYZE`, session and transaction statements, state-changing
 *   functions, and any statement that does not start with a known read-only form.
 *
 * Where the lexing depends on server configuration (backslashes in PostgreSQL and MySQL strings), every plausible
 * configuration must pass. Pure: no I/O, no module state; the lexer and catalog beside it are pure too.
 */
import { Either } from "effect"
import { alternativeOptions, defaultOptions, lex, type LexOptions, type SqlDialect, type Token } from "./SqlLexer.js"
import { type Context, reaching } from "./guard/Reach.js"
import { planOnlyExplain, readOnlyHead, readOnlyTokens, stackable } from "./guard/ReadOnly.js"
import { allow, deny, type Denial, maxBytes, type SqlVerdict, type Statement, splitStatements, utf8Length } from "./guard/Tokens.js"

export type { SqlDialect } from "./SqlLexer.js"
export { maxBytes, type SqlVerdict } from "./guard/Tokens.js"

export interface JudgeOptions {
  readonly dialect: SqlDialect
  readonly write?: boolean
}

// ---------------------------------------------------------------------------------------------------------------
// Judging

const judgeStatement = (statement: Statement, ctx: Context): Denial | undefined => {
  const ts = statement.tokens
  const reached = reaching(ts, ctx)
  if (reached !== undefined) return reached
  const first = ts[0]
  if (first === undefined || (first.kind !== "word" && first.kind !== "lparen")) {
    return deny("sql.unclassified", `statement starts with ${first?.text ?? "nothing"}`)
  }
  if (ctx.write) return undefined
  // A PRAGMA is judged by its allowlist alone (its argument may be any word: `PRAGMA wal_checkpoint(TRUNCATE)`).
  if (ctx.dialect === "sqlite" && first.kind === "word" && first.value === "PRAGMA") return readOnlyHead(ts, ctx.dialect)
  return readOnlyTokens(ts, planOnlyExplain(ts, ctx.dialect)) ?? readOnlyHead(ts, ctx.dialect)
}

const judgeLexed = (sql: string, tokens: ReadonlyArray<Token>, ctx: Context): SqlVerdict => {
  const statements = splitStatements(sql, tokens)
  if (statements.length === 0) return deny("sql.unclassified", "empty SQL: nothing to run")
  for (const [index, statement] of statements.entries()) {
    const found = judgeStatement(statement, ctx)
    if (found === undefined) continue
    if (index > 0 && stackable.has(found.rule)) {
      return deny("sql.stacked-write", `statement ${index + 1} of ${statements.length}: ${found.reason}`)
    }
    return statements.length > 1
      ? deny(found.rule, `statement ${index + 1} of ${statements.length}: ${found.reason}`)
      : found
  }
  return allow(statements.map((s) => s.text))
}

/** The tokens up to and including the last `;`. */
const completeStatements = (tokens: ReadonlyArray<Token>): ReadonlyArray<Token> => {
  let last = tokens.length - 1
  while (last >= 0 && tokens[last]?.kind !== "semicolon") last--
  return tokens.slice(0, last + 1)
}

const configurationLabel = (options: LexOptions): string =>
  options.dialect === "postgres"
    ? "standard_conforming_strings=off"
    : options.backslashInDouble === options.backslashInSingle
    ? "NO_BACKSLASH_ESCAPES"
    : "ANSI_QUOTES"

const judgeText = (sql: string, ctx: Context): SqlVerdict => {
  if (utf8Length(sql) > maxBytes) {
    return deny("sql.too-large", `SQL text is larger than ${maxBytes} bytes`)
  }
  const primary = lex(sql, defaultOptions(ctx.dialect))
  if (Either.isLeft(primary)) {
    return deny("sql.lex-error", `cannot lex the SQL text at offset ${primary.left.offset}: ${primary.left.message}`)
  }
  const verdict = judgeLexed(sql, primary.right.tokens, ctx)
  if (verdict._tag === "Deny" || !primary.right.configDependent) return verdict
  // A backslash in a literal: the server may be configured to read it differently; every reading must pass.
  for (const options of alternativeOptions(ctx.dialect)) {
    const other = lex(sql, options)
    // MySQL and SQLite run statements one by one: those complete before a lexing error still run.
    const tokens = Either.isRight(other) ? other.right.tokens : completeStatements(other.left.partial)
    if (tokens.length === 0) continue
    const alternative = judgeLexed(sql, tokens, ctx)
    if (alternative._tag === "Deny") {
      return deny(alternative.rule, `if the server runs with ${configurationLabel(options)}: ${alternative.reason}`)
    }
  }
  return verdict
}

/**
 * Judge an SQL text for `dialect`. Read-only unless `write` is true; with `write` the text only has to lex and
 * split and stay clear of what reaches files, network, processes, server configuration and privileges.
 */
export const judge = (sql: string, options: JudgeOptions): SqlVerdict =>
  judgeText(sql, { dialect: options.dialect, write: options.write === true, nesting: 0, judgeText })
