/** The SQL guard's reach family: what reaches outside the database (files, network, processes, settings). Pure. */
import { Either } from "effect"
import {
  bareFileTables,
  deniedInWriteMode,
  functionReach,
  libraryLoadingSettings,
  privilegedSettings,
  type Reach,
  reachDescription,
  reachRule,
  safeVirtualTableModules,
  trustedLanguages
} from "../SqlCatalog.js"
import { catalogDenial } from "./Catalog.js"
import { defaultOptions, lex, type SqlDialect, type Token } from "../SqlLexer.js"
import { calledName, deny, type Denial, isNameToken, isOp, isSubHead, isWord, kindAt, looksLikeStatement, maxNesting, pieceEnd, type SqlVerdict, wordAt } from "./Tokens.js"

// ---------------------------------------------------------------------------------------------------------------
// What reaches outside the database (denied in both modes, state/session only in read-only mode)

export interface Context {
  readonly dialect: SqlDialect
  readonly write: boolean
  readonly nesting: number
  /** The whole guard, for SQL nested in strings (kept as a field so this file does not import its entry). */
  readonly judgeText: (sql: string, ctx: Context) => SqlVerdict
}

export const reachDenial = (reach: Reach, what: string, ctx: Context): Denial | undefined =>
  ctx.write && !deniedInWriteMode(reach) ? undefined : deny(reachRule(reach), `${what} ${reachDescription[reach]}`)

export const nested = (text: string, what: string, ctx: Context): Denial | undefined => {
  if (ctx.nesting >= maxNesting) return deny("sql.function.dynamic", `${what}: SQL nested too deeply to inspect`)
  const verdict = ctx.judgeText(text, { ...ctx, nesting: ctx.nesting + 1 })
  return verdict._tag === "Deny" ? deny(verdict.rule, `${what}: ${verdict.reason}`) : undefined
}

/** Inspect a PostgreSQL server-side code body (DO block, SQL or PL/pgSQL function) for reaching forms. */
export const inspectBody = (body: string, what: string, ctx: Context): Denial | undefined => {
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
  const inner: Context = { dialect: "postgres", write: true, nesting: ctx.nesting + 1, judgeText: ctx.judgeText }
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
export const stringRun = (ts: ReadonlyArray<Token>, k: number): readonly [string | undefined, number] => {
  let j = k
  let text: string | undefined
  for (let t = ts[j]; t !== undefined && t.kind === "string"; t = ts[++j]) text = (text ?? "") + t.value
  return [text, j]
}

/** Language named after LANGUAGE at `k`, lower-cased. */
export const languageAt = (ts: ReadonlyArray<Token>, k: number): string | undefined => {
  const t = ts[k + 1]
  if (t === undefined) return undefined
  return t.kind === "word" || t.kind === "quoted" || t.kind === "string" ? t.value.toLowerCase() : undefined
}

export const reaching = (ts: ReadonlyArray<Token>, ctx: Context): Denial | undefined => {
  const { dialect } = ctx
  const catalog = catalogDenial(ts, ctx)
  if (catalog !== undefined) return catalog
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

