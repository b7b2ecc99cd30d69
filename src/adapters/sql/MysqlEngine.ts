/**
 * MySQL and MariaDB for `sql_query` on `mysql2`, with the server's own read-only enforcement (layer 2):
 *
 * - a read's every statement must read, by its shape (MysqlReadRule: a reading first keyword, no INTO OUTFILE), and
 *   every stored function it calls must read too, by the server's facts and its body (MysqlRoutineRule);
 * - every call runs on a session set to `TRANSACTION READ ONLY` and `sql_safe_updates = 1` (reads), a statement time
 *   limit (`max_statement_time` on MariaDB, `max_execution_time` on MySQL), in `START TRANSACTION READ ONLY`, always
 *   rolled back (writes commit only when permitted and every statement succeeded). The session setting matters: DDL
 *   commits the transaction implicitly, and only the session's READ ONLY still refuses it then;
 * - the client never offers LOCAL INFILE (the capability flag is off and no stream factory exists), and never sends
 *   two statements in one packet (multipleStatements stays off); every statement is prepared on its own (binary
 *   protocol, parameters bound by the server, never spliced into the text);
 * - after each read statement the session must still be READ ONLY (`SET SESSION TRANSACTION READ WRITE` or
 *   `tx_read_only = 0` switch it off) and, on MariaDB, the transaction still open (`@@in_transaction`; MySQL has no
 *   such variable, and its session's READ ONLY is what holds after a COMMIT): a statement that changed either makes
 *   the engine drop the connection before anything else runs on it (a permitted write's DDL commits implicitly, as
 *   MySQL always does; the statements after it get a transaction of their own);
 * - rows stream in: once `maxRows + 1` arrived the statement is stopped (`KILL QUERY` from a connection of its own),
 *   so a huge result is never fetched whole.
 *
 * Cells come back as the database has them: dates and times as their text (never shifted by a time zone), BIGINT as
 * an exact bigint, DECIMAL as its text. Connection URLs (with their passwords) never appear in errors.
 */
import { Effect, Either, Layer, SynchronizedRef } from "effect"
import type * as Mysql from "mysql2"
import { connectTimeoutRule, connectWithin, type SqlRequest, type SqlResult, type SqlResultSet, SqlEngine, SqlEngineError, type SqlTarget } from "../../ports/SqlEngine.js"
import { bindValues, isJson, jsonCell, mysqlTypeName } from "./MysqlValues.js"
import * as MysqlReadRule from "../../domain/sql/MysqlReadRule.js"
import * as MysqlRoutineRule from "../../domain/sql/MysqlRoutineRule.js"

const message = (cause: unknown): string => (cause instanceof Error ? cause.message : String(cause))
const field = (cause: unknown, key: string): string =>
  typeof cause === "object" && cause !== null && key in cause ? String(Reflect.get(cause, key)) : ""

/** A driver error as the caller may see it: the server's message and SQLSTATE, never the connection string. */
const translate = (cause: unknown, url: string): SqlEngineError => {
  if (cause instanceof SqlEngineError) return cause
  let reason = message(cause)
  if (url !== "") reason = reason.split(url).join("<connection>")
  const errno = field(cause, "errno")
  const state = field(cause, "sqlState")
  // 1969: MariaDB's max_statement_time; 3024: MySQL's max_execution_time.
  if (errno === "1969" || errno === "3024") return new SqlEngineError({ kind: "timeout", rule: "sql.engine.timeout", reason })
  if (errno === "1792" || state === "25006") return new SqlEngineError({ kind: "refused", rule: "sql.engine.read-only-transaction", reason })
  return new SqlEngineError({ kind: "failed", rule: "sql.engine.error", reason: state === "" ? reason : `${reason} (SQLSTATE ${state})` })
}

const refused = (rule: string, reason: string) => new SqlEngineError({ kind: "refused", rule, reason })

type Conn = Mysql.PoolConnection

const systemSchemas: ReadonlySet<string> = new Set(["mysql", "information_schema", "performance_schema", "sys"])

const plain = (conn: Conn, sql: string): Promise<ReadonlyArray<ReadonlyArray<unknown>>> =>
  new Promise((resolve, reject) => {
    conn.query({ sql, rowsAsArray: true }, (error: unknown, rows: unknown) => {
      if (error !== null && error !== undefined) reject(error)
      else resolve(Array.isArray(rows) ? rows.filter(Array.isArray) : [])
    })
  })

const execute = (conn: Conn, sql: string, values: ReadonlyArray<string>): Promise<ReadonlyArray<ReadonlyArray<unknown>>> =>
  new Promise((resolve, reject) => {
    conn.execute({ sql, rowsAsArray: true }, [...values], (error: unknown, rows: unknown) => {
      if (error !== null && error !== undefined) reject(error)
      else resolve(Array.isArray(rows) ? rows.filter(Array.isArray) : [])
    })
  })

/** One lookup for every name of a round: unqualified ones in the current database, qualified ones in theirs. */
const routinesOf = (conn: Conn, called: ReadonlyArray<MysqlRoutineRule.Called>) => {
  const where: Array<string> = []
  const values: Array<string> = []
  for (const c of called) {
    if (c.length === 2) {
      where.push("(LOWER(ROUTINE_SCHEMA) = ? AND LOWER(ROUTINE_NAME) = ?)")
      values.push(c[0] ?? "", c[1] ?? "")
    } else {
      where.push("(ROUTINE_SCHEMA = DATABASE() AND LOWER(ROUTINE_NAME) = ?)")
      values.push(c[0] ?? "")
    }
  }
  return execute(conn, `SELECT ROUTINE_SCHEMA, ROUTINE_NAME, SQL_DATA_ACCESS, ROUTINE_DEFINITION FROM information_schema.ROUTINES WHERE ROUTINE_TYPE = 'FUNCTION' AND (${where.join(" OR ")})`, values)
}

/**
 * The stored functions a read calls, judged by what the server says of them (MysqlRoutineRule): declared
 * MODIFIES SQL DATA, or a body that changes anything (a body declared NO SQL may still INSERT), refuses the read
 * before it runs; the functions their bodies call are judged in turn (four levels, then refused).
 */
const checkRoutines = async (conn: Conn, texts: ReadonlyArray<string>): Promise<void> => {
  let pending: Array<MysqlRoutineRule.Called> = []
  for (const text of texts) {
    const found = MysqlRoutineRule.calledNames(text)
    if (Either.isLeft(found)) throw refused("sql.engine.not-a-read", `the statement ${found.left}`)
    pending.push(...found.right)
  }
  const seen = new Set<string>()
  for (let depth = 0; ; depth++) {
    pending = pending.filter((c) => !seen.has(c.join(".")))
    if (pending.length === 0) return
    for (const c of pending) seen.add(c.join("."))
    const next: Array<MysqlRoutineRule.Called> = []
    for (const row of await routinesOf(conn, pending)) {
      const schema = String(row[0])
      const routine = { name: `${schema}.${String(row[1])}`, dataAccess: String(row[2] ?? ""), body: typeof row[3] === "string" ? row[3] : null }
      const reason = MysqlRoutineRule.refusal(routine)
      if (reason !== undefined) throw refused("sql.mysql.function", reason)
      if (depth >= 4) throw refused("sql.mysql.function", `${routine.name}() calls stored functions nested too deeply to judge`)
      next.push(...MysqlRoutineRule.nestedCalls(routine).map((c) => (c.length === 1 ? [schema.toLowerCase(), c[0] ?? ""] : c)))
    }
    pending = next
  }
}

interface Server {
  readonly mariadb: boolean
}

/** Runs one prepared statement, keeping at most `maxRows` rows; `stop` ends the statement once one more arrived. */
const statement = (conn: Conn, sql: string, request: SqlRequest, stop: () => Promise<void>): Promise<SqlResultSet> =>
  new Promise((resolve, reject) => {
    const rows: Array<ReadonlyArray<unknown>> = []
    let columns: Array<string> = []
    let types: Array<string> = []
    let json: Array<boolean> = []
    let changes: number | undefined
    let truncated = false
    let stopping: Promise<void> | undefined
    const query = conn.execute({ sql, rowsAsArray: true }, bindValues(request.params))
    query.on("fields", (fields: ReadonlyArray<Mysql.FieldPacket> | undefined) => {
      if (fields === undefined) return // a statement without rows
      columns = fields.map((f) => f.name)
      types = fields.map(mysqlTypeName)
      json = fields.map(isJson)
    })
    query.on("result", (row: unknown) => {
      if (!Array.isArray(row)) {
        const affected = typeof row === "object" && row !== null && "affectedRows" in row ? Number(row.affectedRows) : 0
        changes = affected
        return
      }
      if (rows.length < request.maxRows) {
        rows.push(row.map((cell: unknown, i) => (types[i] === "bigint" && typeof cell === "string" ? BigInt(cell) : json[i] === true ? jsonCell(cell) : cell)))
        return
      }
      truncated = true
      // Reads stop here; a write's statement (DELETE … RETURNING) runs to its end, its extra rows dropped.
      if (!request.write && stopping === undefined) stopping = stop()
    })
    const finish = () => {
      const result: SqlResultSet = columns.length > 0 ? { columns, types, rows, truncated } : { columns: [], rows: [], truncated: false, changes: changes ?? 0 }
      void (stopping ?? Promise.resolve()).then(() => resolve(result))
    }
    query.on("end", finish)
    query.on("error", (error: unknown) => {
      // The statement was stopped because it had sent enough rows: that is the truncated result, not an error.
      if (stopping !== undefined && field(error, "errno") === "1317") return void stopping.then(() => resolve({ columns, types, rows, truncated: true }))
      reject(error)
    })
  })

/**
 * The session's time limit, and sql_safe_updates on for reads only: a connection granted writes runs an honest
 * `DELETE … WHERE status = 'x'` (not on a key), which safe updates refused.
 */
const settings = (server: Server, request: SqlRequest): string => {
  const limit = server.mariadb
    ? `max_statement_time = ${(request.timeoutMs / 1000).toFixed(3)}`
    : `max_execution_time = ${request.timeoutMs}`
  return `SET SESSION sql_safe_updates = ${request.write ? 0 : 1}, SESSION ${limit}`
}

export const make = Effect.gen(function* () {
  const mysql = yield* Effect.tryPromise({
    try: () => import("mysql2"),
    catch: (cause) => new SqlEngineError({ kind: "unavailable", rule: "sql.engine.unavailable", reason: `mysql2 cannot be loaded: ${message(cause)}` })
  })
  const driver = mysql.default
  const options = (url: string): Mysql.PoolOptions => ({
    uri: url.replace(/^mariadb:/i, "mysql:"),
    connectionLimit: 4,
    maxIdle: 2,
    idleTimeout: 10_000,
    connectTimeout: 10_000,
    // No LOCAL INFILE: the client does not offer the capability, so the server cannot ask for a client file.
    flags: ["-LOCAL_FILES", "-CONNECT_ATTRS"],
    multipleStatements: false,
    dateStrings: true,
    supportBigNumbers: true,
    // JSON as its text, parsed here (jsonCell): the driver's own parse turned a JSON `null` into SQL's NULL.
    jsonStrings: true,
    bigNumberStrings: true,
    decimalNumbers: false,
    rowsAsArray: true
  })
  const pools = yield* SynchronizedRef.make(new Map<string, { readonly pool: Mysql.Pool; server?: Server }>())
  yield* Effect.addFinalizer(() =>
    SynchronizedRef.get(pools).pipe(
      Effect.flatMap((map) => Effect.forEach([...map.values()], ({ pool }) => Effect.interruptible(Effect.async<void>((resume) => pool.end(() => resume(Effect.void)))).pipe(Effect.timeout("1 second"), Effect.ignore), { discard: true }))
    )
  )
  const poolFor = (url: string) =>
    SynchronizedRef.modify(pools, (map) => {
      const found = map.get(url)
      if (found !== undefined) return [found, map] as const
      const entry = { pool: driver.createPool(options(url)) }
      entry.pool.on("connection", (c) => c.on("error", () => undefined))
      return [entry, new Map(map).set(url, entry)] as const
    })

  /** Stops what connection `threadId` runs, from a connection of its own; bounded, best effort. */
  const killQuery = (url: string, threadId: number): Promise<void> =>
    new Promise((resolve) => {
      const conn = driver.createConnection({ uri: url.replace(/^mariadb:/i, "mysql:"), connectTimeout: 3_000, flags: ["-LOCAL_FILES"] })
      conn.on("error", () => undefined)
      const timer = setTimeout(() => {
        conn.destroy()
        resolve()
      }, 5_000)
      conn.query(`KILL QUERY ${Math.trunc(threadId)}`, () => {
        clearTimeout(timer)
        conn.end(() => resolve())
      })
    })

  const statements = async (conn: Conn, url: string, server: Server, request: SqlRequest): Promise<SqlResult> => {
    await plain(conn, settings(server, request))
    await plain(conn, request.write ? "SET SESSION TRANSACTION READ WRITE" : "SET SESSION TRANSACTION READ ONLY")
    if (request.write) {
      // Layer 2 of "writes never touch the catalogs": unqualified names must not resolve into a system schema.
      const current = String((await plain(conn, "SELECT DATABASE()"))[0]?.[0] ?? "").toLowerCase()
      if (systemSchemas.has(current)) throw refused("sql.catalog.write", `the connection's database is ${current}, a system schema: writes never touch it`)
    }
    if (!request.write) await checkRoutines(conn, request.statements)
    await plain(conn, request.write ? "START TRANSACTION" : "START TRANSACTION READ ONLY")
    const results: Array<SqlResultSet> = []
    for (const text of request.statements) {
      // A read's statement must read (MysqlReadRule): `START TRANSACTION READ WRITE` would end the read-only
      // transaction before anything after it could be checked.
      const refusal = request.write ? undefined : MysqlReadRule.refusal(text)
      if (refusal !== undefined) throw refused("sql.engine.not-a-read", refusal)
      const result = await statement(conn, text, request, () => killQuery(url, conn.threadId))
      if (result.truncated && !request.write) {
        // A KILL QUERY that arrived after the statement ended marks the next one: absorb it with a no-op.
        await plain(conn, "DO 0").catch(() => plain(conn, "DO 0"))
      }
      if (!request.write) {
        // The session must still be READ ONLY (what holds after any commit, implicit or not) and, on MariaDB, the
        // transaction still open; else the connection is dropped before anything else runs on it.
        const [state] = await plain(conn, server.mariadb ? "SELECT @@session.tx_read_only, @@in_transaction" : "SELECT @@session.transaction_read_only")
        if (Number(state?.[0]) !== 1) throw refused("sql.engine.session-changed", "the statement switched the session's READ ONLY off; the connection was dropped")
        if (server.mariadb && Number(state?.[1]) !== 1) throw refused("sql.engine.transaction-ended", "the statement ended the engine's transaction; the connection was dropped")
      } else if (server.mariadb && Number((await plain(conn, "SELECT @@in_transaction"))[0]?.[0]) !== 1) {
        // A permitted write's DDL commits implicitly (MySQL's rule): the rest runs in a transaction of its own.
        await plain(conn, "START TRANSACTION")
      }
      results.push(result)
    }
    await plain(conn, request.write ? "COMMIT" : "ROLLBACK")
    return { results }
  }

  const serverOf = (entry: { readonly pool: Mysql.Pool; server?: Server }, conn: Conn) =>
    Effect.gen(function* () {
      if (entry.server !== undefined) return entry.server
      const rows = yield* Effect.promise(() => plain(conn, "SELECT VERSION()").catch(() => []))
      const server: Server = { mariadb: /mariadb/i.test(String(rows[0]?.[0] ?? "")) }
      entry.server = server
      return server
    })

  const overTime = (request: SqlRequest) =>
    new SqlEngineError({ kind: "timeout", rule: "sql.engine.timeout", reason: `the query ran past its time limit of ${request.timeoutMs} ms` })

  const run = (target: SqlTarget, request: SqlRequest): Effect.Effect<SqlResult, SqlEngineError> => {
    if (target.dialect !== "mysql") {
      return Effect.fail(new SqlEngineError({ kind: "unavailable", rule: "sql.engine.dialect", reason: `the MySQL engine cannot run ${target.dialect}` }))
    }
    const url = target.url
    return Effect.gen(function* () {
      const entry = yield* poolFor(url)
      return yield* Effect.acquireUseRelease(
        // Connecting counts against the call's limit; a connection that arrives after it is destroyed.
        connectWithin(
          request.timeoutMs,
          () => new Promise<Conn>((resolve, reject) => entry.pool.getConnection((error, conn) => (error === null ? resolve(conn) : reject(error)))),
          (late) => late.destroy(),
          (cause) => translate(cause, url)
        ),
        (conn) =>
          Effect.gen(function* () {
            const server = yield* serverOf(entry, conn)
            return yield* Effect.tryPromise({ try: () => statements(conn, url, server, request), catch: (cause) => translate(cause, url) }).pipe(
              Effect.onInterrupt(() => Effect.promise(() => killQuery(url, conn.threadId)))
            )
          }),
        // A connection whose call failed (or that read) is destroyed: no session state or open result leaks onward.
        (conn, exit) => Effect.sync(() => (exit._tag === "Failure" ? conn.destroy() : conn.release()))
      )
    }).pipe(
      Effect.timeoutFail({ duration: request.timeoutMs + 5_000, onTimeout: () => overTime(request) }),
      Effect.mapError((error) => (error.kind === "timeout" && error.rule !== connectTimeoutRule ? overTime(request) : error))
    )
  }
  return SqlEngine.of({ run: (target, request) => run(target, request).pipe(Effect.withSpan("MysqlEngine.run")) })
})

export const layer = Layer.scoped(SqlEngine, make)
