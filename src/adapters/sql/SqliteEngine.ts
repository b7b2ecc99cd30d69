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
 * Statements run in a query process of their own (SqliteChildScript.ts), never on the main thread: a runaway
 * statement (an endless recursive CTE) is stopped at its time limit, or when the call is interrupted (MCP
 * `notifications/cancelled`, SIGTERM), by SIGKILL, and the server keeps answering meanwhile. better-sqlite3 has no
 * sqlite3_interrupt, and a worker thread stuck in SQLite's C code cannot be terminated, so a process it is.
 * Starting one costs ~80 ms, so up to `maxIdle` healthy ones are kept for the next calls; a killed one is replaced
 * on demand. Each call still opens and closes its own connection: no state (an attached file, a changed pragma)
 * outlives a call. The processes end with the layer, and by themselves if minicode dies. A workspace file's process
 * runs, where bubblewrap works, with the file's folder pinned by a mount (SqliteFolderPin): it serves only calls on
 * that same folder.
 */
import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { createRequire } from "node:module"
import { Duration, Effect, Either, Exit, Layer, Ref, Schema } from "effect"
import { defaultOptions, lex } from "../../domain/sql/SqlLexer.js"
import { positional, type SqlParam, type SqlParams, type SqlRequest, type SqlResult, SqlEngine, SqlEngineError, type SqlTarget } from "../../ports/SqlEngine.js"
import { script } from "./SqliteChildScript.js"
import * as FolderPin from "./SqliteFolderPin.js"

/** Healthy query processes kept for later calls. */
const maxIdle = 2
/** How long past its limit a query process waits before its own watchdog kills it (if minicode did not). */
const watchdogGraceMs = 2_000
const startTimeout = Duration.seconds(15)

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

/**
 * Read forms `sqlite3_stmt_readonly` calls writes although they only report: the bare `PRAGMA [schema.]journal_mode`
 * (the guard's read pragma; with `=` or an argument it is a setter and refused by both), and `EXPLAIN [QUERY PLAN]`
 * of anything (SQLite answers as if the prefix were absent, yet an EXPLAIN only lists the program or the plan and
 * never runs it: issue 43).
 */
export const reportingPragma = (sql: string): boolean => {
  const lexed = lex(sql, defaultOptions("sqlite"))
  if (Either.isLeft(lexed)) return false
  const words = lexed.right.tokens.filter((t) => t.kind !== "semicolon")
  if (words[0]?.kind === "word" && words[0].value === "EXPLAIN") return true
  const name = words.length === 2 ? words[1] : words.length === 4 && words[2]?.kind === "dot" ? words[3] : undefined
  return words[0]?.kind === "word" && words[0].value === "PRAGMA" && name !== undefined && name.kind === "word" && name.value === "JOURNAL_MODE"
}

const value = (p: SqlParam) => (typeof p === "boolean" ? (p ? 1 : 0) : p)

/** Positional as an array; named (`:id`, `@id`, `$id`) as one object, keys without their sigil (better-sqlite3's form). */
const bind = (params: SqlParams): ReadonlyArray<unknown> =>
  positional(params)
    ? params.map(value)
    : [Object.fromEntries(Object.entries(params).map(([k, v]) => [k.replace(/^[:@$]/, ""), value(v)]))]

const paramCount = (params: SqlParams): number => (positional(params) ? params.length : Object.keys(params).length)

const Ready = Schema.Union(
  Schema.Struct({ ready: Schema.Literal(true) }),
  Schema.Struct({ ready: Schema.Literal(false), reason: Schema.String })
)
const Reply = Schema.Union(
  Schema.Struct({
    ok: Schema.Literal(true),
    results: Schema.Array(Schema.Struct({
      columns: Schema.Array(Schema.String),
      rows: Schema.Array(Schema.Array(Schema.Unknown)),
      truncated: Schema.Boolean,
      changes: Schema.optional(Schema.Number)
    }))
  }),
  Schema.Struct({ ok: Schema.Literal(false), kind: Schema.Literal("refused", "failed"), rule: Schema.String, reason: Schema.String })
)
type Reply = typeof Reply.Type

const unavailable = (reason: string) => new SqlEngineError({ kind: "unavailable", rule: "sql.engine.unavailable", reason })
const ended = (code: number | null, signal: NodeJS.Signals | null) =>
  failed(`the SQLite query process ended unexpectedly (${signal ?? `exit code ${code ?? "?"}`})`)

const running = (child: ChildProcess): boolean => child.exitCode === null && child.signalCode === null && child.connected

/** An idle process must not keep minicode alive; a busy one does. */
const hold = (child: ChildProcess, held: boolean) => {
  if (held) {
    child.ref()
    child.channel?.ref()
  } else {
    child.unref()
    child.channel?.unref()
  }
}

/** A folder pinned for a query process: bubblewrap, and the folder's descriptor (fd 4 of the process). */
interface PinWith {
  readonly bwrap: string
  readonly fd: number
}

/** Starts a query process (in its own mount namespace when `pin` is given) and waits for it to have loaded better-sqlite3. */
const start = (code: string, pin?: PinWith) =>
  Effect.async<ChildProcess, SqlEngineError>((resume) => {
    const { NODE_OPTIONS: _ignored, ...env } = process.env
    const child = pin === undefined
      ? spawn(process.execPath, ["-e", code], { stdio: ["ignore", "ignore", "ignore", "ipc"], serialization: "advanced", env })
      : spawn(pin.bwrap, FolderPin.bwrapArgs([process.execPath, "-e", code]), { stdio: ["ignore", "ignore", "ignore", "ipc", pin.fd], serialization: "advanced", env })
    const done = () => {
      child.off("message", onMessage)
      child.off("exit", onExit)
      child.off("error", onError)
    }
    const onMessage = (message: unknown) => {
      done()
      const ready = Schema.decodeUnknownEither(Ready)(message)
      if (Either.isRight(ready) && ready.right.ready) return resume(Effect.succeed(child))
      child.kill("SIGKILL")
      resume(Effect.fail(unavailable(`better-sqlite3 cannot be loaded: ${Either.isRight(ready) && !ready.right.ready ? ready.right.reason : "no answer"}`)))
    }
    const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
      done()
      resume(Effect.fail(unavailable(`the SQLite query process did not start (${signal ?? `exit code ${code ?? "?"}`})`)))
    }
    const onError = (cause: Error) => {
      done()
      resume(Effect.fail(unavailable(`the SQLite query process did not start: ${cause.message}`)))
    }
    child.on("message", onMessage)
    child.on("exit", onExit)
    child.on("error", onError)
    return Effect.sync(() => {
      done()
      child.kill("SIGKILL")
    })
  }).pipe(Effect.timeoutFail({ duration: startTimeout, onTimeout: () => unavailable("the SQLite query process did not start within 15 s") }))

/** SIGKILL, and wait until the process is gone (bounded: a process the kernel will not reap is not waited for). */
const kill = (child: ChildProcess) =>
  Effect.async<void>((resume) => {
    if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
    child.once("exit", () => resume(Effect.void))
    child.kill("SIGKILL")
  }).pipe(Effect.timeout(Duration.seconds(5)), Effect.ignore)

/** One request to a query process and its reply. Interrupting it leaves the process to the caller (who kills it). */
const exchange = (child: ChildProcess, message: object) =>
  Effect.async<Reply, SqlEngineError>((resume) => {
    const done = () => {
      child.off("message", onMessage)
      child.off("exit", onExit)
    }
    const onMessage = (reply: unknown) => {
      done()
      const decoded = Schema.decodeUnknownEither(Reply)(reply)
      resume(Either.isRight(decoded) ? Effect.succeed(decoded.right) : Effect.fail(failed(`the SQLite query process sent a malformed reply: ${decoded.left.message}`)))
    }
    const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
      done()
      resume(Effect.fail(ended(code, signal)))
    }
    child.on("message", onMessage)
    child.on("exit", onExit)
    child.send(message, (error) => {
      if (error === null) return
      done()
      resume(Effect.fail(failed(`the SQLite query process did not take the request: ${error.message}`)))
    })
    return Effect.sync(done)
  })

/** An idle query process, and the pinned folder it was started on ("" for none). */
interface Idle {
  readonly child: ChildProcess
  readonly key: string
}

export const make = Effect.gen(function* () {
  const betterSqlite3 = yield* Effect.try({
    try: () => createRequire(import.meta.url).resolve("better-sqlite3"),
    catch: (cause) => unavailable(`better-sqlite3 cannot be loaded: ${message(cause)}`)
  })
  const code = script(betterSqlite3)
  const idle = yield* Ref.make<ReadonlyArray<Idle>>([])
  yield* Effect.addFinalizer(() => Effect.flatMap(Ref.getAndSet(idle, []), (children) => Effect.forEach(children, (i) => kill(i.child), { discard: true, concurrency: "unbounded" })))
  // Whether query processes on workspace files get their folder pinned by a mount (SqliteFolderPin): asked once.
  const pinning = yield* Effect.cached(Effect.promise(FolderPin.probe))

  const acquire = (key: string, fresh: Effect.Effect<ChildProcess, SqlEngineError>) =>
    Effect.flatMap(
      Ref.modify(idle, (children): readonly [ChildProcess | undefined, ReadonlyArray<Idle>] => {
        const alive = children.filter((i) => running(i.child))
        const found = alive.find((i) => i.key === key)
        return [found?.child, alive.filter((i) => i !== found)]
      }),
      (found) => (found !== undefined ? Effect.succeed(found) : fresh)
    ).pipe(Effect.tap((child) => Effect.sync(() => hold(child, true))))

  const giveBack = (key: string) => (child: ChildProcess) =>
    Effect.flatMap(
      Ref.modify(idle, (children): readonly [ReadonlyArray<ChildProcess>, ReadonlyArray<Idle>] => {
        if (!running(child)) return [[child], children]
        // The newest is kept; past `maxIdle` the oldest goes (a call on another folder needs its own process).
        const kept = [...children, { child, key }]
        return [kept.slice(0, Math.max(0, kept.length - maxIdle)).map((i) => i.child), kept.slice(-maxIdle)]
      }),
      (dropped) => Effect.zipRight(Effect.sync(() => hold(child, false)), Effect.forEach(dropped, kill, { discard: true }))
    )

  /**
   * The process a call runs in, and the name of its file there: for a workspace file, where bubblewrap works, a
   * process whose namespace has the file's folder pinned (opened now, with no link followed), else the shared kind.
   */
  const processFor = (target: { readonly file: string; readonly expect?: unknown }) =>
    Effect.gen(function* () {
      const bwrap = target.expect === undefined ? undefined : yield* pinning
      if (bwrap === undefined) return { key: "", file: target.file, child: yield* acquire("", start(code)) }
      const pin = yield* Effect.try({ try: () => FolderPin.pinFolder(target.file), catch: () => undefined }).pipe(Effect.orElseSucceed(() => undefined))
      if (pin === undefined) {
        return yield* refused("jail.changed", `${target.file}'s folder cannot be opened without following a link: it changed since the jail checked it`)
      }
      const child = yield* acquire(pin.key, start(code, { bwrap, fd: pin.fd })).pipe(Effect.ensuring(Effect.sync(() => fs.closeSync(pin.fd))))
      return { key: pin.key, file: `${FolderPin.mountPoint}/${pin.name}`, child }
    })

  /**
   * A configured database (no jail identity): its folder resolved as configured, the file itself never through a
   * link, and its identity now, which the query process checks the file it opens against (openPinned). A script that
   * replaced the file with a symlink to a database elsewhere got that one opened, read and, on a write connection,
   * written.
   */
  const identify = (file: string) =>
    Effect.try({
      try: (): { readonly file: string; readonly expect?: { readonly dev: number; readonly ino: number } } => {
        if (file === "" || file === ":memory:") return { file } // SQLite's own databases, no file to judge
        const real = path.join(fs.realpathSync(path.dirname(file)), path.basename(file))
        const st = fs.lstatSync(real, { throwIfNoEntry: false })
        if (st === undefined) return { file: real } // SQLite reports the missing file
        if (st.isSymbolicLink()) throw refused("sql.sqlite.link", `${file} is a symbolic link: a database file is opened only as itself, never through a link (configure the file it leads to)`)
        if (!st.isFile()) throw refused("sql.sqlite.not-a-file", `${file} is not a regular file`)
        return { file: real, expect: { dev: st.dev, ino: st.ino } }
      },
      catch: (cause) => (cause instanceof SqlEngineError ? cause : failed(cause))
    })

  const run = (target: SqlTarget, request: SqlRequest): Effect.Effect<SqlResult, SqlEngineError> => {
    if (target.dialect !== "sqlite") {
      return Effect.fail(new SqlEngineError({ kind: "unavailable", rule: "sql.engine.dialect", reason: `the SQLite engine cannot run ${target.dialect}` }))
    }
    if (paramCount(request.params) > 0 && request.statements.length > 1) {
      return Effect.fail(refused("sql.params.one-statement", "parameters bind to one statement; send the statements one by one"))
    }
    const limit = request.timeoutMs
    const overTime = new SqlEngineError({ kind: "timeout", rule: "sql.engine.timeout", reason: `the query ran past its time limit of ${limit} ms` })
    const opened = target.expect !== undefined ? Effect.succeed({ file: target.file, expect: target.expect }) : identify(target.file)
    return Effect.flatMap(opened, (judged) => Effect.acquireUseRelease(
      processFor(target.expect !== undefined ? target : { file: judged.file }),
      ({ child, file }) =>
        Effect.suspend(() =>
          exchange(child, {
            file,
            // SQLite must open the very file judged: the jail's for a workspace file, else the one identified just now
            // (see the query process's openPinned).
            expect: judged.expect,
            write: request.write,
            statements: request.statements.map((sql) => ({ sql, rule: request.write ? undefined : engineRule(sql), reports: reportingPragma(sql) })),
            params: bind(request.params),
            maxRows: request.maxRows,
            deadline: Date.now() + limit + watchdogGraceMs
          })
        ).pipe(Effect.timeoutFail({ duration: Duration.millis(limit), onTimeout: () => overTime })),
      // A process that answered is healthy and may serve again; one that ran over, died or was interrupted is killed.
      ({ child, key }, exit) => (Exit.isSuccess(exit) ? giveBack(key)(child) : kill(child))
    )).pipe(
      Effect.flatMap((reply): Effect.Effect<SqlResult, SqlEngineError> =>
        reply.ok ? Effect.succeed({ results: reply.results }) : Effect.fail(new SqlEngineError({ kind: reply.kind, rule: reply.rule, reason: reply.reason })))
    )
  }
  return SqlEngine.of({ run: (target, request) => run(target, request).pipe(Effect.withSpan("SqliteEngine.run")) })
})

export const layer = Layer.scoped(SqlEngine, make)
