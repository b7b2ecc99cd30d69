/**
 * The PostgreSQL engine's own reading of a statement (layer 2, issue 43), pure: which functions a text may call, found
 * by lexing it (`name(`, `"name"(`, `U&"…"(`, `schema.name(`), so that the engine judges them by pg_proc
 * (PgFunctionRule) whatever the guards said or whether they ran at all.
 *
 * This closes what the read-only transaction and the `pg_read_all_data` role cannot: one statement that first switches
 * the role back (`set_config('role', …)`, `set_config('session_authorization', …)`) and then acts as the superuser in
 * the same statement (`dblink_exec` as the superuser committed a row in another session). `set_config` is in the
 * session family and refused by name; a user function that wraps it is VOLATILE (refused) or, declared STABLE, has its
 * PL/pgSQL body read here for calls of the reach families (`bodyRefusal`).
 *
 * A read's statement must also read by its shape (`headRefusal`), as on MariaDB (MysqlReadRule).
 *
 * The text is lexed with both backslash readings (standard_conforming_strings on and off: the server decides); a text
 * that does not lex is refused. Over-approximation is safe: a word before `(` that names no function (`IN (`,
 * `VALUES (`, a table's column list) is looked up and found nowhere, which refuses nothing.
 */
import { Either } from "effect"
import { alternativeOptions, defaultOptions, lex, type Token } from "./SqlLexer.js"
import { functionReach, reachDescription } from "./SqlCatalog.js"

const nameOf = (t: Token | undefined): string | undefined =>
  t === undefined ? undefined : t.kind === "word" ? t.value.toLowerCase() : t.kind === "quoted" ? t.value : undefined

const calls = (tokens: ReadonlyArray<Token>): ReadonlyArray<ReadonlyArray<string>> => {
  const found: Array<ReadonlyArray<string>> = []
  for (let k = 0; k + 1 < tokens.length; k++) {
    if (tokens[k + 1]?.kind !== "lparen") continue
    const name = nameOf(tokens[k])
    if (name === undefined) continue
    const schema = tokens[k - 1]?.kind === "dot" ? nameOf(tokens[k - 2]) : undefined
    found.push(schema === undefined ? [name] : [schema, name])
  }
  return found
}

/**
 * Names that may call a function without parentheses: PostgreSQL's attribute notation runs `f(t)` for `t.f` when `f`
 * takes one composite argument (a table's row). Every name after a dot that is not followed by `(`.
 */
export const attributeNames = (sql: string): ReadonlyArray<string> => {
  const found = new Set<string>()
  for (const [index, options] of [defaultOptions("postgres"), ...alternativeOptions("postgres")].entries()) {
    const lexed = lex(sql, options)
    if (Either.isLeft(lexed)) {
      if (index > 0) continue
      return []
    }
    const ts = lexed.right.tokens
    for (let k = 1; k < ts.length; k++) {
      if (ts[k - 1]?.kind !== "dot" || ts[k + 1]?.kind === "lparen") continue
      const name = nameOf(ts[k])
      if (name !== undefined) found.add(name)
    }
  }
  return [...found]
}

const readingHeads: ReadonlySet<string> = new Set(["SELECT", "WITH", "VALUES", "TABLE", "SHOW", "EXPLAIN"])

/**
 * Why a read's statement does not read by its shape, or undefined: it must begin with SELECT, WITH, VALUES, TABLE, SHOW,
 * EXPLAIN or a parenthesis. `SET statement_timeout = 0`, `RESET ALL`, `SET ROLE`, `END` and the like are refused before
 * they run (the read-only transaction lets a SET through: the call's time limit, the server-side backstop when the
 * client is killed, could be switched off for the statements after it).
 */
export const headRefusal = (sql: string): string | undefined => {
  const lexed = lex(sql, defaultOptions("postgres"))
  if (Either.isLeft(lexed)) return `the statement cannot be read (${lexed.left.message})`
  const head = lexed.right.tokens.find((t) => t.kind !== "semicolon")
  if (head === undefined) return "an empty statement"
  if (head.kind === "lparen" || (head.kind === "word" && readingHeads.has(head.value))) return undefined
  return `${head.kind === "word" ? head.value : head.text} does not read; a read runs only SELECT, WITH, VALUES, TABLE, SHOW and EXPLAIN`
}

/** The functions `sql` may call (each `[name]` or `[schema, name]`, deduplicated), or why the text cannot be read. */
export const calledFunctions = (sql: string): Either.Either<ReadonlyArray<ReadonlyArray<string>>, string> => {
  const seen = new Map<string, ReadonlyArray<string>>()
  for (const [index, options] of [defaultOptions("postgres"), ...alternativeOptions("postgres")].entries()) {
    const lexed = lex(sql, options)
    if (Either.isLeft(lexed)) {
      // The default reading must lex; a server configured for another reading would reject such a text itself.
      if (index > 0) continue
      return Either.left(`the statement cannot be read (${lexed.left.message})`)
    }
    for (const call of calls(lexed.right.tokens)) seen.set(call.join("."), call)
  }
  return Either.right([...seen.values()])
}

/**
 * Why a procedural (PL/pgSQL and the like) function body may not run in a read, or undefined: it calls a function a
 * reach family knows (set_config, dblink_exec, lo_import, pg_read_file…) or runs SQL text (`EXECUTE`), which nothing
 * here can inspect. The body is lexed as SQL; one that does not lex is refused.
 */
export const bodyRefusal = (source: string): string | undefined => {
  const lexed = lex(source, defaultOptions("postgres"))
  if (Either.isLeft(lexed)) return `its body cannot be read (${lexed.left.message})`
  if (lexed.right.tokens.some((t) => t.kind === "word" && t.value === "EXECUTE")) return "its body runs SQL text (EXECUTE) that cannot be inspected"
  for (const call of calls(lexed.right.tokens)) {
    const reach = functionReach(call[call.length - 1] ?? "")
    if (reach !== undefined && reach !== "sleep") return `its body calls ${call.join(".")}(), which ${reachDescription[reach]}`
  }
  return undefined
}
