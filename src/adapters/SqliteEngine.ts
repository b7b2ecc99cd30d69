/**
 * SQLite for `sql_query` on better-sqlite3, with the engine's own read-only enforcement (layer 2 of issue 7):
 *
 * - reads open the file with SQLITE_OPEN_READONLY, then `PRAGMA query_only = ON` and `trusted_schema = OFF`;
 * - every statement is prepared on its own (better-sqlite3 refuses a text with two) and must pass SQLite's own
 *   test, `Statement.readonly` (sqlite3_stmt_readonly), before it runs: this alone stops `VACUUM INTO`, which a
 *   read-only handle with query_only still executes, and every write the static guard might miss;
 * - the test says "read-only" for ATTACH/DETACH, transaction control and PRAGMA setters, so the engine refuses
 *   those by their leading keyword as well (the static guard denies them, and more, by rule).
 *
 * One connection per call, closed afterwards: no state (an attached file, a changed pragma) outlives a call.
 * better-sqlite3 is loaded lazily (it is native) when the layer is built.
 */
import { createRequire } from "node:module"
import { Effect, Either, Layer } from "effect"
import { defaultOptions, lex } from "../domain/SqlLexer.js"
import { openPinned } from "./SqliteFile.js"
import { type SqlParam, type SqlRequest, type SqlResult, type SqlResultSet, SqlEngine, SqlEngineError, type SqlTarget } from "../ports/SqlEngine.js"

/** The part of better-sqlite3's API this adapter uses (the package ships no types). */
interface Statement {
  readonly readonly: boolean
  readonly reader: boolean
  raw(toggle?: boolean): Statement
  safeIntegers(toggle?: boolean): Statement
  columns(): ReadonlyArray<{ readonly name: string }>
  iterate(params: ReadonlyArray<unknown>): IterableIterator<ReadonlyArray<unknown>>
  run(params: ReadonlyArray<unknown>): { readonly changes: number }
}
interface Database {
  prepare(sql: string): Statement
  pragma(source: string, options?: { readonly simple?: boolean }): unknown
  exec(sql: string): unknown
  close(): void
  readonly inTransaction: boolean
}
type DatabaseConstructor = new (
  file: string,
  options: { readonly readonly?: boolean; readonly fileMustExist?: boolean; readonly timeout?: number }
) => Database

const load = Effect.try({
  try: (): DatabaseConstructor => {
    const required: unknown = createRequire(import.meta.url)("better-sqlite3")
    if (typeof required !== "function") throw new Error("better-sqlite3 did not export a constructor")
    // The foreign module's shape is declared above; this is the one place it is trusted.
    return required as DatabaseConstructor
  },
  catch: (cause) =>
    new SqlEngineError({ kind: "unavailable", rule: "sql.engine.unavailable", reason: `better-sqlite3 cannot be loaded: ${message(cause)}` })
})

const message = (cause: unknown): string => (cause instanceof Error ? cause.message : String(cause))

const failed = (cause: unknown) => new SqlEngineError({ kind: "failed", rule: "sql.engine.error", reason: message(cause) })
const refused = (rule: string, reason: string) => new SqlEngineError({ kind: "refused", rule, reason })

/** Statements `sqlite3_stmt_readonly` calls read-only although they change the connection or reach other files. */
const headsTheTestMisses: ReadonlySet<string> = new Set(["ATTACH", "DETACH", "BEGIN", "COMMIT", "END", "ROLLBACK", "SAVEPOINT", "RELEASE"])

/** Layer 2's own refusal for what `Statement.readonly` lets through; undefined when the statement may run. */
export const engineRule = (sql: string): string | undefined => {
  const lexed = lex(sql, defaultOptions("sqlite"))
  if (Either.isLeft(lexed)) return undefined // SQLite's own prepare will reject it
  const tokens = lexed.right.tokens
  const head = tokens[0]
  if (head === undefined || head.kind !== "word") return undefined
  if (headsTheTestMisses.has(head.value)) return `${head.value} changes the connection; refused on a read-only connection`
  if (head.value === "PRAGMA" && tokens.some((t) => t.kind === "op" && t.text === "=")) {
    return "PRAGMA … = changes the connection; refused on a read-only connection"
  }
  return undefined
}

const bind = (params: ReadonlyArray<SqlParam>): ReadonlyArray<unknown> =>
  params.map((p) => (typeof p === "boolean" ? (p ? 1 : 0) : p))

const runOne = (db: Database, sql: string, params: ReadonlyArray<unknown>, request: SqlRequest): SqlResultSet => {
  const statement = db.prepare(sql)
  if (!request.write) {
    if (!statement.readonly) {
      throw refused("sql.engine.not-read-only", "SQLite says this statement writes (sqlite3_stmt_readonly); the connection is read-only")
    }
    const rule = engineRule(sql)
    if (rule !== undefined) throw refused("sql.engine.connection-state", rule)
  }
  if (!statement.reader) {
    const info = statement.run(params)
    return { columns: [], rows: [], truncated: false, changes: info.changes }
  }
  statement.raw(true).safeIntegers(true)
  const columns = statement.columns().map((c) => c.name)
  const rows: Array<ReadonlyArray<unknown>> = []
  let truncated = false
  for (const row of statement.iterate(params)) {
    if (rows.length >= request.maxRows) {
      truncated = true
      break // leaving the loop returns the iterator, which resets the statement
    }
    rows.push(row)
  }
  return { columns, rows, truncated }
}

export const make = Effect.gen(function* () {
  const Database = yield* load
  const open = (target: Extract<SqlTarget, { readonly dialect: "sqlite" }>, write: boolean) =>
    Effect.try({
      try: () => {
        const connect = (name: string) => new Database(name, { readonly: !write, fileMustExist: true, timeout: 2_000 })
        // A workspace file: SQLite must open the very file the jail judged (see SqliteFile).
        const db = target.expect === undefined ? connect(target.file) : openPinned(target.file, target.expect, connect, (d) => d.close())
        try {
          db.pragma("trusted_schema = OFF")
          if (!write) db.pragma("query_only = ON")
        } catch (cause) {
          db.close()
          throw cause
        }
        return db
      },
      catch: failed
    })
  const run = (target: SqlTarget, request: SqlRequest): Effect.Effect<SqlResult, SqlEngineError> => {
    if (target.dialect !== "sqlite") {
      return Effect.fail(new SqlEngineError({ kind: "unavailable", rule: "sql.engine.dialect", reason: `the SQLite engine cannot run ${target.dialect}` }))
    }
    if (request.params.length > 0 && request.statements.length > 1) {
      return Effect.fail(refused("sql.params.one-statement", "parameters bind to one statement; send the statements one by one"))
    }
    const params = bind(request.params)
    return Effect.acquireUseRelease(
      open(target, request.write),
      (db) =>
        Effect.try({
          try: (): SqlResult => {
            const all = () => request.statements.map((sql) => runOne(db, sql, params, request))
            if (!request.write) return { results: all() }
            // A write: all statements or none.
            db.exec("BEGIN IMMEDIATE")
            try {
              const results = all()
              db.exec("COMMIT")
              return { results }
            } catch (cause) {
              if (db.inTransaction) db.exec("ROLLBACK")
              throw cause
            }
          },
          catch: (cause) => (cause instanceof SqlEngineError ? cause : failed(cause))
        }),
      (db) => Effect.sync(() => db.close())
    )
  }
  return SqlEngine.of({ run: (target, request) => run(target, request).pipe(Effect.withSpan("SqliteEngine.run")) })
})

export const layer = Layer.effect(SqlEngine, make)
