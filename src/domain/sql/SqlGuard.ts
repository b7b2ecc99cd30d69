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
import {
  anywhereKeywords,
  bareFileTables,
  deniedInWriteMode,
  functionReach,
  type KeywordRule,
  libraryLoadingSettings,
  privilegedSettings,
  type Reach,
  reachDescription,
  reachRule,
  readPragmasBare,
  readPragmasWithArgument,
  safeVirtualTableModules,
  statementKeywords,
  trustedLanguages
} from "./SqlCatalog.js"
import { alternativeOptions, defaultOptions, lex, type LexOptions, type SqlDialect, type Token } from "./SqlLexer.js"

export type { SqlDialect } from "./SqlLexer.js"

export type SqlVerdict =
  | { readonly _tag: "Allow"; readonly statements: ReadonlyArray<string> }
  | { readonly _tag: "Deny"; readonly rule: string; readonly reason: string }

export interface JudgeOptions {
  readonly dialect: SqlDialect
  readonly write?: boolean
}

type Denial = Extract<SqlVerdict, { readonly _tag: "Deny" }>

/** Largest SQL text the guard will judge, in UTF-8 bytes. */
export const maxBytes = 100_000
/** How deep the guard follows SQL nested in strings (PREPARE … FROM '…', DO bodies, function bodies). */
const maxNesting = 4

const deny = (rule: string, reason: string): Denial => ({ _tag: "Deny", rule, reason })
const allow = (statements: ReadonlyArray<string>): SqlVerdict => ({ _tag: "Allow", statements })

const utf8Length = (text: string): number => {
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

const blockOpeners: ReadonlySet<string> = new Set(["TRIGGER", "PROCEDURE", "FUNCTION", "EVENT"])
const endNotClosing: ReadonlySet<string> = new Set(["IF", "LOOP", "WHILE", "REPEAT", "FOR"])

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

const wordAt = (ts: ReadonlyArray<Token>, k: number): string | undefined => {
  const t = ts[k]
  return t !== undefined && t.kind === "word" ? t.value : undefined
}
const isWord = (ts: ReadonlyArray<Token>, k: number, ...names: ReadonlyArray<string>): boolean => {
  const w = wordAt(ts, k)
  return w !== undefined && names.includes(w)
}
const kindAt = (ts: ReadonlyArray<Token>, k: number): Token["kind"] | undefined => ts[k]?.kind
const isOp = (ts: ReadonlyArray<Token>, k: number, op: string): boolean => {
  const t = ts[k]
  return t !== undefined && t.kind === "op" && t.text === op
}
const isNameToken = (t: Token | undefined): boolean => t !== undefined && (t.kind === "word" || t.kind === "quoted")

/** The name of a function called at `k` (`name(`, `"name"(`, `schema.name(`), if any. */
const calledName = (ts: ReadonlyArray<Token>, k: number, dialect: SqlDialect): string | undefined => {
  const t = ts[k]
  if (t === undefined || kindAt(ts, k + 1) !== "lparen") return undefined
  if (t.kind === "word") return t.text
  if (t.kind === "quoted") return t.value
  if (t.kind === "string" && t.quote === "\"" && dialect === "mysql") return t.value // ANSI_QUOTES identifier
  return undefined
}

/** Positions where a (sub)statement can start: the beginning, after `(` or `;`, and in routine bodies. */
const subStatementOpeners: ReadonlySet<string> = new Set(["BEGIN", "THEN", "ELSE", "DO", "LOOP", "REPEAT", "ATOMIC"])
const isSubHead = (ts: ReadonlyArray<Token>, k: number): boolean => {
  if (k === 0) return true
  const prev = ts[k - 1]
  if (prev === undefined) return true
  if (prev.kind === "lparen" || prev.kind === "semicolon") return true
  if (prev.kind === "op" && prev.text === ":") return true // MySQL label
  return prev.kind === "word" && subStatementOpeners.has(prev.value)
}

/** Whether the word at `k` is followed like a statement verb (not like a column: `avg(load)`, `(flush, 1)`). */
const looksLikeStatement = (ts: ReadonlyArray<Token>, k: number): boolean => {
  const following = kindAt(ts, k + 1)
  return k === 0 || following === undefined || following === "semicolon" || following === "word" ||
    following === "string" || following === "quoted" || following === "number" || following === "param"
}

/** Index of the end of the (sub)statement starting at `k`: the next `;` or the end. */
const pieceEnd = (ts: ReadonlyArray<Token>, k: number): number => {
  let j = k
  while (j < ts.length && kindAt(ts, j) !== "semicolon") j++
  return j
}

// ---------------------------------------------------------------------------------------------------------------
// What reaches outside the database (denied in both modes, state/session only in read-only mode)

interface Context {
  readonly dialect: SqlDialect
  readonly write: boolean
  readonly nesting: number
}

const reachDenial = (reach: Reach, what: string, ctx: Context): Denial | undefined =>
  ctx.write && !deniedInWriteMode(reach) ? undefined : deny(reachRule(reach), `${what} ${reachDescription[reach]}`)

const nested = (text: string, what: string, ctx: Context): Denial | undefined => {
  if (ctx.nesting >= maxNesting) return deny("sql.function.dynamic", `${what}: SQL nested too deeply to inspect`)
  const verdict = judgeText(text, { ...ctx, nesting: ctx.nesting + 1 })
  return verdict._tag === "Deny" ? deny(verdict.rule, `${what}: ${verdict.reason}`) : undefined
}

/** Inspect a PostgreSQL server-side code body (DO block, SQL or PL/pgSQL function) for reaching forms. */
const inspectBody = (body: string, what: string, ctx: Context): Denial | undefined => {
  if (ctx.nesting >= maxNesting) return deny("sql.function.dynamic", `${what}: code nested too deeply to inspect`)
  const lexed = lex(body, defaultOptions("postgres"))
  if (Either.isLeft(lexed)) return deny("sql.lex-error", `${what}: cannot inspect the code body (${lexed.left.message})`)
  const ts = lexed.right.tokens
  for (const t of ts) {
    if (t.kind === "word" && t.value === "EXECUTE") {
      return deny("sql.function.dynamic", `${what}: EXECUTE in a code body runs SQL text the guard cannot inspect`)
    }
    if (t.kind === "word" && t.value === "COPY") {
      return deny("sql.function.file", `${what}: COPY in a code body can read or write server files`)
    }
  }
  const inner: Context = { dialect: "postgres", write: true, nesting: ctx.nesting + 1 }
  let start = 0
  for (let k = 0; k <= ts.length; k++) {
    if (k === ts.length || kindAt(ts, k) === "semicolon") {
      const found = reaching(ts.slice(start, k), inner)
      if (found !== undefined) return deny(found.rule, `${what}: ${found.reason}`)
      start = k + 1
    }
  }
  return undefined
}

/** Consecutive string literals from `k`, concatenated as the server does; undefined when none. */
const stringRun = (ts: ReadonlyArray<Token>, k: number): readonly [string | undefined, number] => {
  let j = k
  let text: string | undefined
  for (let t = ts[j]; t !== undefined && t.kind === "string"; t = ts[++j]) text = (text ?? "") + t.value
  return [text, j]
}

/** Language named after LANGUAGE at `k`, lower-cased. */
const languageAt = (ts: ReadonlyArray<Token>, k: number): string | undefined => {
  const t = ts[k + 1]
  if (t === undefined) return undefined
  return t.kind === "word" || t.kind === "quoted" || t.kind === "string" ? t.value.toLowerCase() : undefined
}

const reaching = (ts: ReadonlyArray<Token>, ctx: Context): Denial | undefined => {
  const { dialect } = ctx
  const head = wordAt(ts, 0)
  const routine = ts.some((t) => t.kind === "word" && (t.value === "FUNCTION" || t.value === "PROCEDURE"))
  const hasCreate = ts.some((t) => t.kind === "word" && t.value === "CREATE")
  const hasSet = ts.some((t) => t.kind === "word" && t.value === "SET")
  // The language of a routine or DO block: untrusted languages reach files and processes; only SQL and PL/pgSQL
  // bodies are inspected (other trusted languages cannot leave the database).
  let language: string | undefined
  if (routine || head === "DO") {
    for (let k = 0; k < ts.length; k++) {
      if (!isWord(ts, k, "LANGUAGE") || isWord(ts, k - 1, "CREATE", "REPLACE", "TRUSTED", "PROCEDURAL")) continue
      const named = languageAt(ts, k)
      if (named === undefined) continue
      if (!trustedLanguages.has(named)) {
        return deny("sql.function.process", `LANGUAGE ${named} is untrusted: its code can reach files and processes`)
      }
      language = named
    }
  }
  const inspectable = language === undefined || language === "sql" || language === "plpgsql"
  // For each token, the next server-wide scope (SET GLOBAL, SET @@persist.x) before the next `;`, or -1.
  const scopes = new Array<number>(ts.length).fill(-1)
  for (let k = ts.length - 1, found = -1; k >= 0; k--) {
    const u = ts[k]
    if (u === undefined || u.kind === "semicolon") found = -1
    else if (
      (u.kind === "word" && (u.value === "GLOBAL" || u.value === "PERSIST" || u.value === "PERSIST_ONLY")) ||
      (u.kind === "param" && /^@@(global|persist)/i.test(u.text))
    ) found = k
    scopes[k] = found
  }

  for (let k = 0; k < ts.length; k++) {
    const t = ts[k]
    if (t === undefined) continue

    // Function calls.
    const name = calledName(ts, k, dialect)
    if (name !== undefined) {
      const qualifier = kindAt(ts, k - 1) === "dot" ? ts[k - 2] : undefined
      const packageName = qualifier !== undefined && isNameToken(qualifier) ? qualifier.value.toLowerCase() : ""
      const reach = functionReach(name) ??
        (packageName.startsWith("dbms_") || packageName.startsWith("utl_") ? functionReach(packageName) : undefined)
      if (reach !== undefined) {
        if (name.toLowerCase() === "set_config" && ctx.write) {
          const arg = ts[k + 2]
          if (arg === undefined || arg.kind !== "string") {
            return deny("sql.privilege", "set_config() with a computed setting name may change the role")
          }
          if (privilegedSettings.has(arg.value.toLowerCase())) {
            return deny("sql.privilege", `set_config('${arg.value}') ${reachDescription.privilege}`)
          }
          if (libraryLoadingSettings.has(arg.value.toUpperCase())) {
            return deny("sql.function.extension", `set_config('${arg.value}') ${reachDescription.extension}`)
          }
          continue
        }
        const found = reachDenial(reach, `${name}()`, ctx)
        if (found !== undefined) return found
      }
    }

    if (t.kind !== "word") continue
    const w = t.value
    const next = wordAt(ts, k + 1)
    const showCreate = head === "SHOW" && k <= 1

    if (dialect === "sqlite" && bareFileTables.has(w) && kindAt(ts, k - 1) !== "dot") {
      return deny("sql.function.file", `${w.toLowerCase()} ${reachDescription.file}`)
    }
    if (w === "INTO" && (next === "OUTFILE" || next === "DUMPFILE")) {
      return deny("sql.function.file", `INTO ${next} writes a file on the database server`)
    }
    if (w === "LOAD" && (next === "DATA" || next === "XML")) {
      return deny("sql.function.file", `LOAD ${next} reads a file into the database`)
    }
    if ((w === "GRANT" || w === "REVOKE") && kindAt(ts, k - 1) !== "dot" && kindAt(ts, k + 1) !== "dot") {
      return deny("sql.privilege", `${w} ${reachDescription.privilege}`)
    }
    if (!showCreate && (w === "CREATE" || w === "ALTER" || w === "DROP" || w === "RENAME") && next !== undefined) {
      if (next === "USER" && isWord(ts, k + 2, "MAPPING")) {
        return deny("sql.function.network", `${w} USER MAPPING ${reachDescription.network}`)
      }
      if (next === "ROLE" || next === "USER" || next === "GROUP") {
        return deny("sql.privilege", `${w} ${next} ${reachDescription.privilege}`)
      }
      if (next === "SERVER" || next === "FOREIGN" || next === "SUBSCRIPTION" || next === "PUBLICATION") {
        return deny("sql.function.network", `${w} ${next} ${reachDescription.network}`)
      }
      if ((w === "CREATE" || w === "ALTER") && next === "EXTENSION") {
        return deny("sql.function.extension", `${w} EXTENSION ${reachDescription.extension}`)
      }
      if (w === "ALTER" && (next === "SYSTEM" || next === "INSTANCE")) {
        return deny("sql.function.server", `ALTER ${next} ${reachDescription.server}`)
      }
      if (w === "CREATE" && (next === "TABLESPACE" || (next === "UNDO" && isWord(ts, k + 2, "TABLESPACE")))) {
        return deny("sql.function.file", `CREATE TABLESPACE places files on the database server`)
      }
    }
    if (w === "LANGUAGE" && hasCreate && (isWord(ts, k - 1, "CREATE", "REPLACE", "TRUSTED", "PROCEDURAL"))) {
      return deny("sql.function.extension", `CREATE LANGUAGE ${reachDescription.extension}`)
    }
    if ((w === "REASSIGN" || w === "DROP") && next === "OWNED") {
      return deny("sql.privilege", `${w} OWNED ${reachDescription.privilege}`)
    }
    if (w === "DEFAULT" && next === "PRIVILEGES") {
      return deny("sql.privilege", `ALTER DEFAULT PRIVILEGES ${reachDescription.privilege}`)
    }
    if (w === "SONAME") return deny("sql.function.extension", `CREATE FUNCTION … SONAME ${reachDescription.extension}`)
    if ((w === "INSTALL" || w === "UNINSTALL") && (next === "PLUGIN" || next === "COMPONENT")) {
      return deny("sql.function.extension", `${w} ${next} ${reachDescription.extension}`)
    }
    if (libraryLoadingSettings.has(w) && hasSet) {
      return deny("sql.function.extension", `${w.toLowerCase()} ${reachDescription.extension}`)
    }
    if (w === "TEMP_STORE_DIRECTORY" || w === "DATA_STORE_DIRECTORY") {
      return deny("sql.function.file", `PRAGMA ${w.toLowerCase()} points SQLite at another directory`)
    }
    if ((w === "DATA" || w === "INDEX") && next === "DIRECTORY") {
      return deny("sql.function.file", `${w} DIRECTORY places table files on the database server`)
    }
    if (w === "IMPORT" && next === "FOREIGN") {
      return deny("sql.function.network", `IMPORT FOREIGN SCHEMA ${reachDescription.network}`)
    }
    if (w === "ENGINE" && dialect === "mysql") {
      const engine = isOp(ts, k + 1, "=") ? wordAt(ts, k + 2) : next
      if (engine === "FEDERATED" || engine === "CONNECT") {
        return deny("sql.function.network", `ENGINE=${engine} ${reachDescription.network}`)
      }
    }
    if (w === "CONNECTION" && dialect === "mysql" && (isOp(ts, k + 1, "=") || kindAt(ts, k + 1) === "string")) {
      return deny("sql.function.network", `CONNECTION= ${reachDescription.network}`)
    }
    if (w === "VIRTUAL" && isWord(ts, k + 1, "TABLE")) {
      const using = ts.findIndex((u, j) => j > k && u.kind === "word" && u.value === "USING")
      const module = using < 0 ? undefined : ts[using + 1]
      if (module === undefined || !safeVirtualTableModules.has(module.value.toUpperCase())) {
        return deny("sql.function.extension", `virtual table module ${module?.text ?? "?"} may reach files or native code`)
      }
    }
    const verb = isSubHead(ts, k) && looksLikeStatement(ts, k)
    if (w === "KILL" && (verb || next === "CONNECTION" || next === "QUERY")) {
      return deny("sql.function.process", `KILL ${reachDescription.process}`)
    }
    if (w === "SHUTDOWN" && verb) return deny("sql.function.process", `SHUTDOWN stops the database server`)
    if (w === "NEXT" && next === "VALUE" && isWord(ts, k + 2, "FOR")) {
      const found = reachDenial("state", "NEXT VALUE FOR", ctx)
      if (found !== undefined) return found
    }
    if (w === "ATTACH" && (verb || next === "DATABASE" || kindAt(ts, k + 1) === "string")) {
      return deny("sql.function.file", `ATTACH opens another database file`)
    }

    // MySQL dynamic SQL: PREPARE s FROM '…' and EXECUTE IMMEDIATE '…'.
    const source = dialect === "mysql" && w === "PREPARE" && isWord(ts, k + 2, "FROM")
      ? k + 3
      : w === "EXECUTE" && next === "IMMEDIATE"
      ? k + 2
      : -1
    if (source >= 0) {
      const [text, after] = stringRun(ts, source)
      const what = w === "PREPARE" ? "PREPARE … FROM" : "EXECUTE IMMEDIATE"
      if (text === undefined || !(after >= ts.length || kindAt(ts, after) === "semicolon")) {
        return deny("sql.function.dynamic", `${what} a computed string ${reachDescription.dynamic}`)
      }
      const found = nested(text, what, ctx)
      if (found !== undefined) return found
    }

    // PostgreSQL code bodies: DO '…' and CREATE FUNCTION … AS '…'.
    if (dialect === "postgres" && w === "DO" && inspectable) {
      const b = isWord(ts, k + 1, "LANGUAGE") ? k + 3 : k + 1
      const [body] = stringRun(ts, b)
      if (body !== undefined) {
        const found = inspectBody(body, "DO block", ctx)
        if (found !== undefined) return found
      }
    }
    if (dialect === "postgres" && w === "AS" && routine && hasCreate && inspectable) {
      let b = k + 1
      for (;;) {
        const [body, after] = stringRun(ts, b)
        if (body === undefined) break
        const found = inspectBody(body, "function body", ctx)
        if (found !== undefined) return found
        if (kindAt(ts, after) !== "comma") break
        b = after + 1
      }
    }

    if (!isSubHead(ts, k) || !looksLikeStatement(ts, k)) continue
    // Statement-level forms, also inside routine bodies.
    const piece = (): ReadonlyArray<Token> => ts.slice(k, pieceEnd(ts, k))
    const statementStart = k === 0 || kindAt(ts, k - 1) === "semicolon"
    if (w === "RESTART" && (k + 1 >= ts.length || kindAt(ts, k + 1) === "semicolon")) return deny("sql.function.process", `RESTART restarts the server`)
    if (w === "FLUSH" || w === "PURGE" || w === "BINLOG" || w === "CHECKPOINT") {
      return deny("sql.function.server", `${w} ${reachDescription.server}`)
    }
    if (w === "CHANGE" && (next === "MASTER" || next === "REPLICATION")) {
      return deny("sql.function.server", `CHANGE ${next} ${reachDescription.server}`)
    }
    if ((w === "START" || w === "STOP") && (next === "SLAVE" || next === "REPLICA" || next === "GROUP_REPLICATION")) {
      return deny("sql.function.server", `${w} ${next} ${reachDescription.server}`)
    }
    if (w === "RESET" && next !== undefined && ["MASTER", "SLAVE", "REPLICA", "PERSIST", "BINARY"].includes(next)) {
      return deny("sql.function.server", `RESET ${next} ${reachDescription.server}`)
    }
    if (w === "CLONE") return deny("sql.function.network", `CLONE ${reachDescription.network}`)
    if (w === "LOAD" && kindAt(ts, k + 1) === "string") {
      return deny("sql.function.extension", `LOAD ${reachDescription.extension}`)
    }
    if (w === "COPY" && statementStart) {
      const copy = piece()
      let depth = 0
      for (let j = 1; j < copy.length; j++) {
        const u = copy[j]
        if (u === undefined) continue
        if (u.kind === "lparen") depth++
        else if (u.kind === "rparen") depth--
        else if (u.kind === "word" && u.value === "PROGRAM") {
          return deny("sql.function.process", `COPY … PROGRAM runs a shell command on the database server`)
        } else if (depth === 0 && u.kind === "word" && (u.value === "FROM" || u.value === "TO")) {
          const target = copy[j + 1]
          if (target !== undefined && target.kind !== "word") {
            return deny("sql.function.file", `COPY … ${u.value} a file reads or writes the database server's disk`)
          }
        }
      }
    }
    if (w === "VACUUM" && statementStart && piece().some((u) => u.kind === "word" && u.value === "INTO")) {
      return deny("sql.function.file", `VACUUM INTO writes a database file`)
    }
    if (w === "SET") {
      const scope = ts[scopes[k] ?? -1]
      if (scope !== undefined) return deny("sql.function.server", `SET ${scope.text} ${reachDescription.server}`)
      const first = wordAt(ts, k + 1)
      const second = wordAt(ts, k + 2)
      if (
        first === "ROLE" || first === "PASSWORD" ||
        ((first === "SESSION" || first === "LOCAL") && (second === "ROLE" || second === "AUTHORIZATION")) ||
        (first === "DEFAULT" && second === "ROLE")
      ) {
        return deny("sql.privilege", `SET ${first} ${reachDescription.privilege}`)
      }
    }
  }
  return undefined
}

// ---------------------------------------------------------------------------------------------------------------
// Read-only mode

const queryHeads: ReadonlySet<string> = new Set(["SELECT", "WITH", "VALUES", "TABLE"])
const falseValues: ReadonlySet<string> = new Set(["FALSE", "OFF", "0", "false", "off", "no", "NO"])
/** Words that may follow a column name right after `(`: `(comment IS NULL)`, `(start AND …)`. */
const expressionContinuations: ReadonlySet<string> = new Set([
  "IS", "AS", "IN", "NOT", "LIKE", "ILIKE", "BETWEEN", "AND", "OR", "ASC", "DESC", "COLLATE", "FILTER", "OVER",
  "NULLS", "ESCAPE", "SIMILAR", "REGEXP", "RLIKE", "GLOB", "MATCH", "DIV", "MOD", "XOR", "ISNULL", "NOTNULL"
])
const stackable: ReadonlySet<string> = new Set(["sql.write", "sql.ddl", "sql.lock", "sql.transaction", "sql.session"])

const keywordReason = (rule: KeywordRule, w: string): string => {
  switch (rule) {
    case "sql.write":
      return `${w} can modify data or run statements; the connection is read-only`
    case "sql.ddl":
      return `${w} changes the schema or maintains tables; the connection is read-only`
    case "sql.lock":
      return `${w} takes locks; the connection is read-only`
    case "sql.transaction":
      return `${w} controls transactions; the connection is read-only`
    case "sql.session":
      return `${w} changes the session; the connection is read-only`
    case "sql.privilege":
      return `${w} ${reachDescription.privilege}`
  }
}

/** Whether the reserved word at `k` is used as a name or a string function rather than as a keyword. */
const usedAsName = (ts: ReadonlyArray<Token>, k: number, head: string | undefined): boolean => {
  const w = wordAt(ts, k)
  const before = ts[k - 2]
  if (kindAt(ts, k - 1) === "dot" && isNameToken(before)) return true
  if (kindAt(ts, k + 1) === "dot" && (isNameToken(ts[k + 2]) || isOp(ts, k + 2, "*"))) return true
  if ((w === "REPLACE" || w === "INSERT" || w === "TRUNCATE") && kindAt(ts, k + 1) === "lparen") return true
  return k === 1 && w === "CREATE" && head === "SHOW"
}

const readOnlyTokens = (ts: ReadonlyArray<Token>): Denial | undefined => {
  const head = wordAt(ts, 0)
  for (let k = 0; k < ts.length; k++) {
    const w = wordAt(ts, k)
    if (w === undefined) continue
    const next = wordAt(ts, k + 1)
    if (w === "FOR" && (next === "UPDATE" || next === "SHARE" || next === "NO" || next === "KEY")) {
      return deny("sql.lock", `FOR ${next === "NO" ? "NO KEY UPDATE" : next === "KEY" ? "KEY SHARE" : next} locks rows; the connection is read-only`)
    }
    if (w === "LOCK" && next === "IN") return deny("sql.lock", "LOCK IN SHARE MODE locks rows; the connection is read-only")
    if (w === "COMMENT" && next === "ON") return deny("sql.ddl", keywordReason("sql.ddl", "COMMENT ON"))
    if (w === "SECURITY" && next === "LABEL") return deny("sql.ddl", keywordReason("sql.ddl", "SECURITY LABEL"))
    const anywhere = anywhereKeywords.get(w)
    if (anywhere !== undefined && !usedAsName(ts, k, head)) {
      return deny(anywhere, w === "INTO"
        ? "SELECT … INTO creates a table, writes a file or sets variables; the connection is read-only"
        : keywordReason(anywhere, w))
    }
    const verb = statementKeywords.get(w)
    const explainOption = k === 2 && head === "EXPLAIN"
    if (verb !== undefined && k > 0 && kindAt(ts, k - 1) === "lparen" && !explainOption) {
      const following = ts[k + 1]
      const continues = following === undefined || following.kind === "rparen" || following.kind === "comma" ||
        following.kind === "op" || following.kind === "dot" ||
        (following.kind === "word" && expressionContinuations.has(following.value))
      if (!continues) return deny(verb, keywordReason(verb, w))
    }
  }
  return undefined
}

const explain = (ts: ReadonlyArray<Token>, dialect: SqlDialect): Denial | undefined => {
  let k = 1
  if (kindAt(ts, k) === "lparen") {
    // PostgreSQL option list: (ANALYZE, VERBOSE true, FORMAT JSON)
    let depth = 0
    let option: Array<Token> = []
    const analyzes = (o: ReadonlyArray<Token>): boolean => {
      const name = wordAt(o, 0)
      if (name !== "ANALYZE" && name !== "ANALYSE") return false
      const value = o[1]
      return !(o.length === 2 && value !== undefined && falseValues.has(value.value))
    }
    for (; k < ts.length; k++) {
      const t = ts[k]
      if (t === undefined) break
      if (t.kind === "lparen") {
        depth++
        if (depth === 1) continue
      }
      if (t.kind === "rparen") {
        depth--
        if (depth === 0) {
          if (analyzes(option)) return deny("sql.write", "EXPLAIN (ANALYZE) executes the statement")
          k++
          break
        }
      }
      if (t.kind === "comma" && depth === 1) {
        if (analyzes(option)) return deny("sql.write", "EXPLAIN (ANALYZE) executes the statement")
        option = []
        continue
      }
      option.push(t)
    }
  }
  for (;;) {
    const w = wordAt(ts, k)
    if (w === "ANALYZE" || w === "ANALYSE") return deny("sql.write", `EXPLAIN ${w} executes the statement`)
    if (w === "VERBOSE" || w === "EXTENDED" || w === "PARTITIONS") k++
    else if (w === "QUERY" && isWord(ts, k + 1, "PLAN")) k += 2
    else if (w === "FORMAT" && isOp(ts, k + 1, "=")) k += 3
    else break
  }
  if (dialect === "mysql" && isWord(ts, k, "FOR") && isWord(ts, k + 1, "CONNECTION")) return undefined
  let h = k
  while (kindAt(ts, h) === "lparen") h++
  const target = wordAt(ts, h)
  if (target !== undefined && queryHeads.has(target)) return undefined
  const t = ts[k]
  if (dialect === "mysql" && h === k && t !== undefined && isNameToken(t) &&
    !(t.kind === "word" && (statementKeywords.has(t.value) || anywhereKeywords.has(t.value)))) {
    return undefined // EXPLAIN tbl [col] is DESCRIBE
  }
  if (target !== undefined) {
    const rule = statementKeywords.get(target) ?? anywhereKeywords.get(target)
    if (rule !== undefined) return deny(rule, `EXPLAIN of ${keywordReason(rule, target)}`)
  }
  return deny("sql.unclassified", `EXPLAIN of something other than a query (${t?.text ?? "nothing"})`)
}

const pragma = (ts: ReadonlyArray<Token>): Denial | undefined => {
  let k = 1
  if (kindAt(ts, 2) === "dot") k = 3
  const nameToken = ts[k]
  if (nameToken === undefined || !isNameToken(nameToken)) return deny("sql.unclassified", "PRAGMA without a name")
  const name = nameToken.value.toLowerCase()
  if (ts.some((t) => t.kind === "op" && t.text === "=")) {
    return deny("sql.session", `PRAGMA ${name} = … changes the connection or the database`)
  }
  const rest = ts.slice(k + 1)
  if (rest.length === 0) {
    if (readPragmasWithArgument.has(name) || readPragmasBare.has(name)) return undefined
    return deny("sql.session", `PRAGMA ${name} is not a known read-only pragma`)
  }
  const argument = rest.length === 3 || (rest.length === 4 && (isOp(rest, 1, "-") || isOp(rest, 1, "+")))
  const last = rest[rest.length - 2]
  if (argument && kindAt(rest, 0) === "lparen" && kindAt(rest, rest.length - 1) === "rparen" && last !== undefined &&
    (isNameToken(last) || last.kind === "string" || last.kind === "number")) {
    if (readPragmasWithArgument.has(name)) return undefined
    return deny("sql.session", `PRAGMA ${name}(…) is a setter; only read pragmas are allowed`)
  }
  return deny("sql.unclassified", `PRAGMA ${name} with an unrecognised argument`)
}

const readOnlyHead = (ts: ReadonlyArray<Token>, dialect: SqlDialect): Denial | undefined => {
  let h = 0
  while (kindAt(ts, h) === "lparen") h++
  const head = wordAt(ts, h)
  if (head !== undefined && queryHeads.has(head)) return undefined
  const first = ts[0]
  if (h > 0 || head === undefined) {
    return deny("sql.unclassified", `statement starts with ${first?.text ?? "nothing"}, not a known read-only form`)
  }
  switch (head) {
    case "EXPLAIN":
      return explain(ts, dialect)
    case "DESCRIBE":
    case "DESC":
      if (dialect === "mysql") return explain(ts, dialect)
      break
    case "SHOW":
      if (dialect !== "sqlite") return undefined
      break
    case "PRAGMA":
      if (dialect === "sqlite") return pragma(ts)
      break
  }
  const rule = statementKeywords.get(head) ?? anywhereKeywords.get(head)
  if (rule !== undefined) return deny(rule, keywordReason(rule, head))
  return deny("sql.unclassified", `statement starts with ${first?.text ?? head}, not a known read-only form`)
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
  return readOnlyTokens(ts) ?? readOnlyHead(ts, ctx.dialect)
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
  judgeText(sql, { dialect: options.dialect, write: options.write === true, nesting: 0 })
