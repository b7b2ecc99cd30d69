/**
 * MySQL/MariaDB stored functions a read calls, judged by what the server says of them (issue 43), pure: the engine
 * finds the names a text calls (`calledNames`), looks them up in information_schema.ROUTINES, and asks `refusal`.
 *
 * A routine's declared SQL data access is not a promise (MariaDB runs an `INSERT` in a function declared `NO SQL`),
 * so both count: `MODIFIES SQL DATA` is refused, and so is a body that changes data or the schema (INSERT, UPDATE,
 * DELETE, REPLACE, CREATE, DROP, ALTER, TRUNCATE, RENAME, GRANT, REVOKE), runs other SQL (CALL, PREPARE, EXECUTE),
 * changes the session or server (SET GLOBAL/SESSION/@@, FLUSH, KILL) or calls a function a reach family knows
 * (load_file, sys_exec…). A body the account may not see (ROUTINE_DEFINITION is NULL: another account's routine)
 * is judged by its declaration alone, and the read-only transaction stands behind (layer 2). `SELECT … INTO var` and
 * `SET var = …` are a function's ordinary reading steps.
 */
import { Either } from "effect"
import { defaultOptions, lex, type Token } from "./SqlLexer.js"
import { functionReach, reachDescription } from "./SqlCatalog.js"

const nameOf = (t: Token | undefined): string | undefined =>
  t === undefined ? undefined : t.kind === "word" || t.kind === "quoted" ? t.value.toLowerCase() : undefined

const tokensOf = (sql: string): Either.Either<ReadonlyArray<Token>, string> => {
  const all: Array<Token> = []
  for (const backslash of [true, false]) {
    const lexed = lex(sql, { ...defaultOptions("mysql"), backslashInSingle: backslash, backslashInDouble: backslash })
    if (Either.isLeft(lexed)) return Either.left(`cannot be read (${lexed.left.message})`)
    all.push(...lexed.right.tokens)
  }
  return Either.right(all)
}

/** `[name]` or `[schema, name]`, lower-cased (routine names are case-insensitive). */
export type Called = ReadonlyArray<string>

const callsIn = (tokens: ReadonlyArray<Token>): ReadonlyArray<Called> => {
  const found = new Map<string, Called>()
  for (let k = 0; k + 1 < tokens.length; k++) {
    if (tokens[k + 1]?.kind !== "lparen") continue
    const name = nameOf(tokens[k])
    if (name === undefined) continue
    const schema = tokens[k - 1]?.kind === "dot" ? nameOf(tokens[k - 2]) : undefined
    const called = schema === undefined ? [name] : [schema, name]
    found.set(called.join("."), called)
  }
  return [...found.values()]
}

/** The names `sql` may call as functions (a word before `(`; ones that name no routine are simply not found). */
export const calledNames = (sql: string): Either.Either<ReadonlyArray<Called>, string> =>
  Either.map(tokensOf(sql), callsIn)

const changing: ReadonlySet<string> = new Set([
  "INSERT", "UPDATE", "DELETE", "REPLACE", "MERGE", "CREATE", "DROP", "ALTER", "TRUNCATE", "RENAME", "GRANT", "REVOKE",
  "CALL", "PREPARE", "EXECUTE", "FLUSH", "KILL", "LOAD", "HANDLER", "LOCK", "UNLOCK", "INSTALL", "UNINSTALL", "XA",
  "COMMIT", "ROLLBACK", "START", "OUTFILE", "DUMPFILE"
])

export interface Routine {
  readonly name: string
  /** information_schema.ROUTINES.SQL_DATA_ACCESS: CONTAINS SQL, NO SQL, READS SQL DATA, MODIFIES SQL DATA. */
  readonly dataAccess: string
  /** ROUTINE_DEFINITION; null when the account may not see it. */
  readonly body: string | null
}

/** Why `routine` may not run in a read, or undefined; `nested` gets the names its body calls, to judge in turn. */
export const refusal = (routine: Routine): string | undefined => {
  const shown = `${routine.name}()`
  if (routine.dataAccess.toUpperCase() === "MODIFIES SQL DATA") return `${shown} is declared MODIFIES SQL DATA`
  if (routine.body === null) return undefined
  const tokens = tokensOf(routine.body)
  if (Either.isLeft(tokens)) return `${shown}'s body ${tokens.left}`
  const ts = tokens.right
  for (let k = 0; k < ts.length; k++) {
    const t = ts[k]
    if (t === undefined || t.kind !== "word") continue
    const qualified = ts[k - 1]?.kind === "dot" || ts[k + 1]?.kind === "dot"
    if (changing.has(t.value) && !qualified) return `${shown}'s body runs ${t.value} (declared ${routine.dataAccess})`
    if (t.value === "SET") {
      const next = ts[k + 1]
      if (next !== undefined && ((next.kind === "word" && ["GLOBAL", "SESSION", "PERSIST", "TRANSACTION", "PASSWORD", "ROLE"].includes(next.value)) || next.kind === "param")) {
        return `${shown}'s body runs SET ${next.text} (changes the session or the server)`
      }
    }
  }
  for (const call of callsIn(ts)) {
    const reach = functionReach(call[call.length - 1] ?? "")
    // Sleeping changes nothing and max_statement_time bounds it (the guard denies it by name in the text itself).
    if (reach !== undefined && reach !== "sleep") return `${shown}'s body calls ${call.join(".")}(), which ${reachDescription[reach]}`
  }
  return undefined
}

/** The names a routine's body calls (to look up and judge in turn). */
export const nestedCalls = (routine: Routine): ReadonlyArray<Called> =>
  routine.body === null ? [] : Either.getOrElse(calledNames(routine.body), () => [])
