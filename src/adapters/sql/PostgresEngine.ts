/**
 * PostgreSQL for `sql_query` on `pg`, with the server's own read-only enforcement (layer 2 of issue 7):
 *
 * - every call sets the session's `statement_timeout` to its limit, then runs in its own transaction, `BEGIN READ ONLY` for reads, and is
 *   always rolled back (writes commit only when permitted and every statement succeeded);
 * - every statement is sent on its own through the extended protocol (Parse/Bind/Execute), which carries exactly
 *   one statement: `SELECT 1; COMMIT; …` is a syntax error there, never three statements;
 * - a read query runs as a cursor (`DECLARE … NO SCROLL CURSOR` inside that transaction) and only `maxRows + 1`
 *   rows are fetched from it: a 3M-row result costs the rows shown, never the whole result;
 * - every function a read calls (read from the text by the engine itself: PgReadRule, plus those the guard left to the
 *   connection) is decided by pg_proc before anything runs (PgFunctions.ts, PgFunctionRule): `set_config('role', …)`
 *   followed by `dblink_exec` in one statement ran as the superuser before the check after the statement could see it;
 * - values come back as the database has them (PgValues.ts), with their type names; errors carry DETAIL and HINT;
 * - after each statement the transaction must still be open: a statement that ended it (a `COMMIT` the guards were
 *   told to miss) makes the engine drop the connection before anything else runs on it.
 *
 * A call that is interrupted (MCP `notifications/cancelled`, SIGTERM) or passes its time limit has its statement
 * cancelled on the server (`pg_cancel_backend` from a connection of its own) and its connection destroyed: nothing
 * keeps running after the call has ended.
 *
 * A read-only transaction does not stop `COPY … TO PROGRAM`, `pg_read_file`, `dblink` or `pg_terminate_backend`:
 * layer 1 (the lexer guard and the parse-tree walk) denies those by name. Connection URLs (with their passwords)
 * never appear in errors. `pg` is loaded lazily when the layer is built; pools are closed with the layer.
 */
import { Effect, Either, Layer, SynchronizedRef } from "effect"
import type * as Pg from "pg"
import * as PgReadRule from "../../domain/sql/PgReadRule.js"
import { type FunctionCheck, functionCheck } from "./PgFunctions.js"
import { builtinTypeNames, typeParsers } from "./PgValues.js"
import { connectTimeoutRule, connectWithin, positional, type SqlParam, type SqlRequest, type SqlResult, type SqlResultSet, SqlEngine, SqlEngineError, type SqlTarget } from "../../ports/SqlEngine.js"

const message = (cause: unknown): string => (cause instanceof Error ? cause.message : String(cause))

/** A driver error as the caller may see it: the server's message and SQLSTATE, never the connection string. */
const translate = (cause: unknown, url: string): SqlEngineError => {
  if (cause instanceof SqlEngineError) return cause
  let reason = message(cause)
  if (url !== "") reason = reason.split(url).join("<connection>")
  const code = typeof cause === "object" && cause !== null && "code" in cause ? String(cause.code) : ""
  // PostgreSQL's DETAIL and HINT ("Perhaps you meant to reference the column …") reach the agent.
  for (const [key, label] of [["detail", "DETAIL"], ["hint", "HINT"]] as const) {
    const extra = typeof cause === "object" && cause !== null && key in cause ? Reflect.get(cause, key) : undefined
    if (typeof extra === "string" && extra !== "") reason += `\n${label}: ${url === "" ? extra : extra.split(url).join("<connection>")}`
  }
  // 57014 is also a cancellation by someone else (pg_cancel_backend): only the statement timeout is a time-out.
  if (code === "57014" && /statement timeout/i.test(reason)) return new SqlEngineError({ kind: "timeout", rule: "sql.engine.timeout", reason })
  if (code === "25006") return new SqlEngineError({ kind: "refused", rule: "sql.engine.read-only-transaction", reason })
  return new SqlEngineError({ kind: "failed", rule: "sql.engine.error", reason: code === "" ? reason : `${reason} (SQLSTATE ${code})` })
}

const refused = (rule: string, reason: string) => new SqlEngineError({ kind: "refused", rule, reason })

interface Extended extends Pg.QueryArrayConfig<Array<SqlParam>> {
  readonly queryMode: "extended"
}

/** Read queries a cursor can hold: fetched `maxRows + 1` rows at a time, never whole. */
const cursorable = (text: string): boolean => /^[\s(]*(select|with|values|table)\b/i.test(text.replace(/^(\s*(--[^\n]*\n|\/\*[\s\S]*?\*\/))*/, ""))

const cursorName = "minicode_rows"

const statement = async (client: Pg.PoolClient, text: string, values: ReadonlyArray<SqlParam>, request: SqlRequest, names: TypeNames, expected: Expected): Promise<SqlResultSet> => {
  const maxRows = request.maxRows
  const cursor = !request.write && cursorable(text)
  // A portal inside the read-only transaction: the server produces only the rows fetched (3M rows cost 6).
  const main: Extended = cursor
    ? { text: `DECLARE ${cursorName} NO SCROLL CURSOR FOR ${text}`, values: [...values], rowMode: "array", queryMode: "extended" }
    : { text, values: [...values], rowMode: "array", queryMode: "extended" }
  let result = await client.query(main)
  await unchanged(client, expected)
  if (cursor) {
    result = await client.query({ text: `FETCH FORWARD ${maxRows + 1} FROM ${cursorName}`, rowMode: "array" })
    await client.query(`CLOSE ${cursorName}`)
    // A cursor's query runs as it is fetched: the same check once its rows are in.
    await unchanged(client, expected)
  }
  const returnsRows = result.fields.length > 0
  return {
    columns: result.fields.map((f) => f.name),
    types: returnsRows ? await names(client, result.fields.map((f) => f.dataTypeID)) : undefined,
    rows: result.rows.slice(0, maxRows),
    truncated: result.rows.length > maxRows,
    changes: returnsRows ? undefined : result.rowCount ?? 0
  }
}

type TypeNames = (client: Pg.PoolClient, oids: ReadonlyArray<number>) => Promise<ReadonlyArray<string>>

/** Type names by OID: the built-ins known, others asked of the connection once (user types differ by database). */
const typeNames = (): TypeNames => {
  const known = new Map(builtinTypeNames)
  return async (client, oids) => {
    const missing = [...new Set(oids.filter((oid) => !known.has(oid)))]
    if (missing.length > 0) {
      const found = await client.query({ text: "SELECT oid::int8::text, format_type(oid, NULL) FROM pg_catalog.pg_type WHERE oid = ANY($1::oid[])", values: [missing.map(String)], rowMode: "array" })
      for (const row of found.rows) {
        if (Array.isArray(row)) known.set(Number(row[0]), String(row[1]))
      }
    }
    return oids.map((oid) => known.get(oid) ?? `oid ${oid}`)
  }
}

/** The role a read runs as: the connection's own, or `pg_read_all_data` for a superuser (below). */
const readRole = "pg_read_all_data"

/** What every statement of a call must leave as it found: the role a read runs as, and the statement time limit. */
interface Expected {
  readonly role: string
  readonly readOnly: boolean
  /** `current_setting('statement_timeout')` as the call set it. */
  readonly timeout: string
}

/**
 * Sets the session's statement_timeout to the call's limit (issue 43: on the session, before the transaction, so it
 * holds whatever happens to the transaction; a client killed mid-statement leaves a statement the server ends at the
 * limit) and opens the call's transaction; returns the server process, to cancel it by, and what the statements must
 * leave unchanged. A superuser's read runs as `pg_read_all_data` (PostgreSQL 14+: SELECT on every table, nothing
 * else): a read-only transaction does not stop a superuser's `dblink_exec` (another session, not read-only), `COPY …
 * TO` a server file, `lo_import` of a server file or a replication slot (kept through the rollback); that role may do
 * none of them, so the engine refuses them on its own, whatever the guards said.
 */
const begin = async (client: Pg.PoolClient, request: SqlRequest): Promise<{ readonly pid: number; readonly expected: Expected }> => {
  await client.query(`SET statement_timeout = ${Math.max(1, Math.trunc(request.timeoutMs))}; ${request.write ? "BEGIN READ WRITE" : "BEGIN READ ONLY"}`)
  const set = await client.query({
    text: "SELECT pg_backend_pid(), current_setting('statement_timeout'), " +
      "coalesce((SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = session_user), false) " +
      `AND EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = '${readRole}')`,
    rowMode: "array"
  })
  const pid: unknown = set.rows[0]?.[0]
  const lower = !request.write && set.rows[0]?.[2] === true
  if (lower) await client.query(`SET LOCAL ROLE ${readRole}`)
  const role = await client.query({ text: "SELECT current_user::text", rowMode: "array" })
  return {
    pid: typeof pid === "number" ? pid : -1,
    expected: { role: String(role.rows[0]?.[0] ?? ""), readOnly: !request.write, timeout: String(set.rows[0]?.[1] ?? "") }
  }
}

/**
 * After each statement, the transaction must be as it began: open (a `COMMIT`/`END` ends it), under the call's
 * statement_timeout (`SET statement_timeout = 0` would let a later statement outlive a killed client) and the same
 * role (`SET ROLE`, `RESET ROLE`, `set_config('role', …)`), a read's also read-only (`SET transaction_read_only`). Else
 * the engine drops the connection before anything else runs on it, and the transaction is rolled back.
 */
const unchanged = async (client: Pg.PoolClient, expected: Expected): Promise<void> => {
  if (client.getTransactionStatus() !== "T") {
    throw refused("sql.engine.transaction-ended", "the statement ended the engine's transaction; the connection was dropped")
  }
  const state = await client.query({ text: "SELECT current_setting('transaction_read_only'), current_user::text, current_setting('statement_timeout')", rowMode: "array" })
  const [readOnly, user, timeout] = state.rows[0] ?? []
  if (timeout !== expected.timeout) throw refused("sql.engine.session-changed", `the statement changed the statement time limit (${expected.timeout}); the connection was dropped`)
  if (user !== expected.role) throw refused("sql.engine.session-changed", `the statement changed the role the statements run as (${expected.role}); the connection was dropped`)
  if (expected.readOnly && readOnly !== "on") throw refused("sql.engine.session-changed", "the statement switched the transaction's READ ONLY off; the connection was dropped")
}

/**
 * The functions judged by pg_proc before anything runs: those the guard left to the connection and, for a read, every
 * one the engine itself reads in the text (PgReadRule), so that layer 2 judges them without the guards.
 */
const functionsOf = (request: SqlRequest): ReadonlyArray<ReadonlyArray<string>> => {
  const all = new Map((request.functions ?? []).map((f) => [f.join("."), f] as const))
  if (!request.write) {
    for (const text of request.statements) {
      const shape = PgReadRule.headRefusal(text)
      if (shape !== undefined) throw refused("sql.engine.not-a-read", shape)
      const found = PgReadRule.calledFunctions(text)
      if (Either.isLeft(found)) throw refused("sql.engine.not-a-read", found.left)
      for (const f of found.right) all.set(f.join("."), f)
    }
  } else {
    // A write may not switch the role or the session either: set_config('role', …) followed by what the role may do
    // in the same statement would act before the check after it.
    for (const text of request.statements) {
      const found = PgReadRule.calledFunctions(text)
      if (Either.isLeft(found)) throw refused("sql.engine.unreadable", found.left)
      const setter = found.right.find((f) => f[f.length - 1] === "set_config")
      if (setter !== undefined) throw refused("sql.engine.session-changed", `${setter.join(".")}() changes the session's settings or role; refused by the engine`)
    }
  }
  return [...all.values()]
}

const statements = async (client: Pg.PoolClient, request: SqlRequest, params: ReadonlyArray<SqlParam>, names: TypeNames, check: FunctionCheck, expected: Expected): Promise<SqlResult> => {
  const functions = functionsOf(request)
  // `t.f` runs f(t) when f takes a row: a read's dotted names are looked up as such functions too.
  const attributes = request.write ? [] : [...new Set(request.statements.flatMap(PgReadRule.attributeNames))]
  if (functions.length > 0 || attributes.length > 0) await check(client, functions, attributes)
  const results: Array<SqlResultSet> = []
  for (const text of request.statements) results.push(await statement(client, text, params, request, names, expected))
  await client.query(request.write ? "COMMIT" : "ROLLBACK")
  return { results }
}

const overTime = (request: SqlRequest) =>
  new SqlEngineError({ kind: "timeout", rule: "sql.engine.timeout", reason: `the query ran past its time limit of ${request.timeoutMs} ms` })

export const make = Effect.gen(function* () {
  const pg = yield* Effect.tryPromise({
    try: () => import("pg"),
    catch: (cause) => new SqlEngineError({ kind: "unavailable", rule: "sql.engine.unavailable", reason: `pg cannot be loaded: ${message(cause)}` })
  })
  const Pool = pg.default.Pool
  const Client = pg.default.Client
  /** Cancels what server process `pid` runs, from a connection of its own (the pool may be full); bounded, best effort. */
  const cancel = (url: string, pid: number) =>
    pid < 0
      ? Effect.void
      : Effect.acquireUseRelease(
        Effect.sync(() => new Client({ connectionString: url, application_name: "minicode-cancel", connectionTimeoutMillis: 3_000 })),
        (client) => Effect.promise(() => client.connect().then(() => client.query("SELECT pg_cancel_backend($1)", [pid])).then(() => undefined, () => undefined)),
        (client) => Effect.promise(() => client.end().catch(() => undefined))
      ).pipe(Effect.timeout("5 seconds"), Effect.ignore)
  const types = typeParsers(pg.default.types)
  const names = new Map<string, TypeNames>()
  const namesFor = (url: string): TypeNames => {
    const found = names.get(url)
    if (found !== undefined) return found
    const made = typeNames()
    names.set(url, made)
    return made
  }
  const checks = new Map<string, FunctionCheck>()
  const checkFor = (url: string): FunctionCheck => {
    const found = checks.get(url)
    if (found !== undefined) return found
    const made = functionCheck()
    checks.set(url, made)
    return made
  }
  const pools = yield* SynchronizedRef.make(new Map<string, Pg.Pool>())
  yield* Effect.addFinalizer(() =>
    SynchronizedRef.get(pools).pipe(
      // Bounded (and interruptible, as finalizers are not): a pool still connecting to a server that never answers
      // must not hold the layer open.
      Effect.flatMap((map) => Effect.forEach([...map.values()], (pool) => Effect.interruptible(Effect.promise(() => pool.end().catch(() => undefined))).pipe(Effect.timeout("1 second"), Effect.ignore), { discard: true }))
    )
  )
  const poolFor = (url: string) =>
    SynchronizedRef.modify(pools, (map): readonly [Pg.Pool, Map<string, Pg.Pool>] => {
      const found = map.get(url)
      if (found !== undefined) return [found, map]
      // connectionTimeoutMillis bounds a connection nobody waits for any more (a call gives up at its own limit).
      const pool = new Pool({ connectionString: url, max: 4, idleTimeoutMillis: 10_000, connectionTimeoutMillis: 30_000, application_name: "minicode", types })
      pool.on("error", () => undefined) // an idle client's error is reported to the next call, not thrown here
      return [pool, new Map(map).set(url, pool)]
    })

  const run = (target: SqlTarget, request: SqlRequest): Effect.Effect<SqlResult, SqlEngineError> => {
    if (target.dialect !== "postgres") {
      return Effect.fail(new SqlEngineError({ kind: "unavailable", rule: "sql.engine.dialect", reason: `the PostgreSQL engine cannot run ${target.dialect}` }))
    }
    const url = target.url
    const params = request.params
    if (!positional(params)) {
      return Effect.fail(refused("sql.params.named", "named parameters are SQLite's; PostgreSQL binds $1, $2, … from an array"))
    }
    return Effect.gen(function* () {
      const pool = yield* poolFor(url)
      return yield* Effect.acquireUseRelease(
        // Connecting counts against the call's limit: a server that accepts TCP and never answers fails the call then.
        connectWithin(request.timeoutMs, () => pool.connect(), (late) => late.release(true), (cause) => translate(cause, url)),
        (client) =>
          Effect.gen(function* () {
            const { pid, expected } = yield* Effect.tryPromise({ try: () => begin(client, request), catch: (cause) => translate(cause, url) })
            return yield* Effect.tryPromise({ try: () => statements(client, request, params, namesFor(url), checkFor(url), expected), catch: (cause) => translate(cause, url) }).pipe(
              // The server's statement_timeout ends a statement at the limit; this ends it when the client gave up
              // first (the call was interrupted, or the server did not answer in time).
              Effect.onInterrupt(() => cancel(url, pid))
            )
          }).pipe(
            Effect.tapError(() =>
              // Leave nothing open: roll back if the session is still usable (a closed one is discarded below).
              Effect.promise(() => client.query("ROLLBACK").then(() => undefined, () => undefined))
            )
          ),
        // A client whose call failed is destroyed, not returned to the pool: no state can leak to the next call.
        (client, exit) => Effect.sync(() => client.release(exit._tag === "Failure" ? true : undefined))
      )
    }).pipe(
      // The server's own statement_timeout normally fires first; this bounds a server that does not answer at all.
      Effect.timeoutFail({ duration: request.timeoutMs + 5_000, onTimeout: () => overTime(request) }),
      Effect.mapError((error) => (error.kind === "timeout" && error.rule !== connectTimeoutRule ? overTime(request) : error))
    )
  }
  return SqlEngine.of({ run: (target, request) => run(target, request).pipe(Effect.withSpan("PostgresEngine.run")) })
})

export const layer = Layer.scoped(SqlEngine, make)
