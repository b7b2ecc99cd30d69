import { Context, Effect, Schema } from "effect"

/** A bound parameter: bound by the driver, never spliced into the text. */
export type SqlParam = string | number | boolean | null

/** Positional (`$1`, `?`) or, for SQLite, named (`:id`, `@id`, `$id`, keys without the sigil). */
export type SqlParams = ReadonlyArray<SqlParam> | Readonly<Record<string, SqlParam>>

export const positional = (params: SqlParams): params is ReadonlyArray<SqlParam> => Array.isArray(params)

/** Where a query runs. Credentials stay inside `url`; adapters never put it in an error or a log. */
export type SqlTarget =
  | {
      readonly dialect: "sqlite"
      readonly file: string
      /** For a file the jail judged: its identity then, which the engine checks the opened file against. */
      readonly expect?: { readonly dev: number; readonly ino: number }
    }
  | { readonly dialect: "postgres"; readonly url: string }
  | { readonly dialect: "mysql"; readonly url: string }

export interface SqlRequest {
  /** One statement per element (the static guard's split): each is prepared and run on its own. */
  readonly statements: ReadonlyArray<string>
  readonly params: SqlParams
  readonly maxRows: number
  /** Open for writing. Without it the engine enforces read-only itself (layer 2), whatever the guard said. */
  readonly write: boolean
  readonly timeoutMs: number
  /**
   * PostgreSQL: functions the static allowlist does not know (`[name]` or `[schema, name]`), to be decided by the
   * server's own facts (pg_proc) before anything runs: IMMUTABLE/STABLE and not SECURITY DEFINER, or refused.
   */
  readonly functions?: ReadonlyArray<ReadonlyArray<string>> | undefined
}

export interface SqlResultSet {
  readonly columns: ReadonlyArray<string>
  /** The database's type name of each column (`int4`, `timestamptz`, `varchar`), where the driver says. */
  readonly types?: ReadonlyArray<string> | undefined
  /** At most `maxRows` rows; cells are strings, numbers, bigints, booleans, null, byte arrays or JSON values. */
  readonly rows: ReadonlyArray<ReadonlyArray<unknown>>
  /** More rows existed than `maxRows`. */
  readonly truncated: boolean
  /** Rows changed by a write (undefined for a statement that returns rows). */
  readonly changes?: number | undefined
}

export interface SqlResult {
  /** One per statement, in order. */
  readonly results: ReadonlyArray<SqlResultSet>
}

/**
 * `refused`: the engine's own read-only enforcement stopped the statement (layer 2). `failed`: the database
 * reported an error. `timeout`: the statement timeout fired. `unavailable`: no driver for the dialect.
 */
export class SqlEngineError extends Schema.TaggedError<SqlEngineError>()("SqlEngineError", {
  kind: Schema.Literal("refused", "failed", "timeout", "unavailable"),
  rule: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `${this.kind} (${this.rule}): ${this.reason}`
  }
}

/** The rule of a call stopped while connecting (the server did not answer within the call's time limit). */
export const connectTimeoutRule = "sql.engine.connect-timeout"

export const connectTimedOut = (millis: number) =>
  new SqlEngineError({ kind: "timeout", rule: connectTimeoutRule, reason: `connecting to the database took longer than the time limit of ${millis} ms (the server did not answer)` })

/**
 * Waits for a driver's connection at most `millis`; one that arrives later is handed to `discard` (never leaked into
 * a pool's checked-out set). The time limit of a call covers connecting, not only its statements.
 */
export const connectWithin = <C>(millis: number, connect: () => Promise<C>, discard: (late: C) => void, translate: (cause: unknown) => SqlEngineError) =>
  Effect.async<C, SqlEngineError>((resume) => {
    let settled = false
    const timer = setTimeout(() => {
      settled = true
      resume(Effect.fail(connectTimedOut(millis)))
    }, millis)
    connect().then(
      (conn) => {
        if (settled) return discard(conn)
        settled = true
        clearTimeout(timer)
        resume(Effect.succeed(conn))
      },
      (cause: unknown) => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        resume(Effect.fail(translate(cause)))
      }
    )
  })

/** Runs already-judged statements on a database, enforcing read-only with the engine's own means. */
export interface SqlEngineShape {
  readonly run: (target: SqlTarget, request: SqlRequest) => Effect.Effect<SqlResult, SqlEngineError>
}

export class SqlEngine extends Context.Tag("minicode/SqlEngine")<SqlEngine, SqlEngineShape>() {}
