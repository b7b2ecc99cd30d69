/**
 * SQL connections for `sql_query` (issue 7): the configured entries (`sql` in the config file), which connection
 * a call means, the dialect it is judged by, and whether a write is permitted on it. Pure.
 *
 * A call names a configured connection, or a workspace `.db`/`.sqlite`/`.sqlite3`/`.db3` file (jailed by the chain),
 * or nothing (the one configured connection, if there is exactly one). Writes take two deliberate steps: `write:
 * true` in the call and `allowWrite` on a configured connection; a bare workspace file is never writable.
 */
import { Either, Schema } from "effect"
import type { SqlDialect } from "./SqlLexer.js"

/** Bounds of a query's time limit (the `timeout_ms` argument and a connection's `timeoutMs`). */
export const minTimeoutMs = 1
export const maxTimeoutMs = 600_000
/** The time limit of a query when neither the call nor its connection sets one. */
export const defaultTimeoutMs = 30_000

export const ConnectionEntry = Schema.Struct({
  /** Absolute path of an SQLite database file. */
  sqlite: Schema.optional(Schema.String),
  /** `postgres://`, `postgresql://`, `mysql://` or `mariadb://` URL; may hold a password: stored, never printed. */
  url: Schema.optional(Schema.String),
  allowWrite: Schema.optional(Schema.Boolean),
  /** The time limit of a query on this connection when the call gives no `timeout_ms`. */
  timeoutMs: Schema.optional(Schema.Int.pipe(Schema.between(minTimeoutMs, maxTimeoutMs)))
})
export type ConnectionEntry = typeof ConnectionEntry.Type

export type Connections = Readonly<Record<string, ConnectionEntry>>

/** Connection names: letters, digits, `_` and `-`, not ending like a database file (that names a workspace file). */
export const validateName = (name: string): Either.Either<string, string> => {
  if (!/^[A-Za-z0-9_][A-Za-z0-9_-]{0,63}$/.test(name)) {
    return Either.left(`connection name "${name}" must be letters, digits, _ and - (not first), at most 64 characters`)
  }
  return Either.right(name)
}

/** A workspace-relative SQLite file, as `Tools.facts` classifies the `connection` argument. */
export const isWorkspaceFile = (connection: string): boolean => /\.(db|sqlite|sqlite3|db3)$/i.test(connection)

const postgresScheme = /^postgres(ql)?:\/\//i
const mysqlScheme = /^(mysql|mariadb):\/\//i

/** The dialect an entry speaks, or why it is unusable. */
export const dialectOf = (entry: ConnectionEntry): Either.Either<SqlDialect, string> => {
  if ((entry.sqlite === undefined) === (entry.url === undefined)) return Either.left("needs exactly one of sqlite or url")
  if (entry.sqlite !== undefined) return Either.right("sqlite")
  const url = entry.url ?? ""
  if (postgresScheme.test(url)) return Either.right("postgres")
  if (mysqlScheme.test(url)) return Either.right("mysql")
  return Either.left("url must start with postgres://, postgresql://, mysql:// or mariadb://")
}

/**
 * Why a connection URL can never work, or undefined when it may: checked at `config sql add`, so the user hears what
 * is wrong then (MariaDB answered such URLs with "internal error" at the first call). Never quotes the password.
 */
export const urlProblem = (url: string): string | undefined => {
  const scheme = url.indexOf("://")
  if (scheme < 0) return "url must start with postgres://, postgresql://, mysql:// or mariadb://"
  const rest = url.slice(scheme + 3)
  const at = rest.lastIndexOf("@")
  const userinfo = at < 0 ? "" : rest.slice(0, at)
  if (/[/#?]/.test(userinfo)) {
    return "the user or password contains an unencoded '/', '#' or '?': percent-encode them (%2F, %23, %3F)"
  }
  const authority = (at < 0 ? rest : rest.slice(at + 1)).split(/[/?#]/)[0] ?? ""
  const query = /\?([^#]*)/.exec(rest.slice(at + 1))?.[1] ?? ""
  const socketParam = /(^|&)(host|socketPath)=/i.test(query)
  // A bracketed IPv6 host keeps its colons; the port is what follows the last ':' after it.
  const ipv6 = /^\[[^\]]*\]/.exec(authority)?.[0]
  const hostPart = ipv6 ?? authority.split(":")[0] ?? ""
  const portText = ipv6 !== undefined ? authority.slice(ipv6.length).replace(/^:/, "") : authority.includes(":") ? authority.slice(authority.indexOf(":") + 1) : ""
  if (hostPart === "" && !socketParam) return "the url names no host (postgres://user:password@host:5432/db)"
  if (authority.includes(":") && !/^\d{1,5}$/.test(portText)) return `the port must be a number from 1 to 65535, not ${JSON.stringify(portText)}`
  if (portText !== "" && (Number(portText) < 1 || Number(portText) > 65535)) return `the port must be a number from 1 to 65535, not ${portText}`
  return undefined
}

/** Decodes the config's `sql` record; entries that do not decode are reported by name. */
export const parseConnections = (raw: Readonly<Record<string, unknown>> | undefined): Either.Either<Connections, string> => {
  const out: Record<string, ConnectionEntry> = {}
  for (const [name, value] of Object.entries(raw ?? {})) {
    const decoded = Schema.decodeUnknownEither(ConnectionEntry, { onExcessProperty: "error" })(value)
    if (Either.isLeft(decoded)) return Either.left(`sql connection "${name}": ${decoded.left.message}`)
    const dialect = dialectOf(decoded.right)
    if (Either.isLeft(dialect)) return Either.left(`sql connection "${name}": ${dialect.left}`)
    out[name] = decoded.right
  }
  return Either.right(out)
}

/** What a call's `connection` means. */
export type Target =
  | { readonly _tag: "WorkspaceFile"; readonly path: string; readonly dialect: "sqlite" }
  | { readonly _tag: "Named"; readonly name: string; readonly entry: ConnectionEntry; readonly dialect: SqlDialect }
  /** No connection named and none to default to: only the static guard can judge (dialect from the session). */
  | { readonly _tag: "Unbound"; readonly dialect: SqlDialect; readonly reason: string }

export interface Refusal {
  readonly rule: string
  readonly reason: string
}

/**
 * Resolves `connection` against the configured entries. Without a connection: the only configured entry, else
 * `Unbound` with the session's dialect hint (conformance cases), else SQLite.
 */
export const resolve = (
  connection: string | undefined,
  connections: Connections,
  hint: SqlDialect | undefined
): Either.Either<Target, Refusal> => {
  if (connection === undefined) {
    const names = Object.keys(connections)
    const only = names.length === 1 ? names[0] : undefined
    const entry = only === undefined ? undefined : connections[only]
    if (only !== undefined && entry !== undefined) return named(only, entry)
    return Either.right({
      _tag: "Unbound",
      dialect: hint ?? "sqlite",
      reason: names.length === 0
        ? "no connection named and none configured: name a workspace .db/.sqlite file or configure one (minicode config sql add)"
        : `no connection named; choose one of: ${names.join(", ")}`
    })
  }
  if (isWorkspaceFile(connection)) return Either.right({ _tag: "WorkspaceFile", path: connection, dialect: "sqlite" })
  const entry = Object.hasOwn(connections, connection) ? connections[connection] : undefined
  if (entry === undefined) {
    const names = Object.keys(connections)
    return Either.left({
      rule: "sql.connection.unknown",
      reason: `no SQL connection "${connection}"${names.length > 0 ? ` (configured: ${names.join(", ")})` : " is configured"}`
    })
  }
  return named(connection, entry)
}

const named = (name: string, entry: ConnectionEntry): Either.Either<Target, Refusal> =>
  Either.match(dialectOf(entry), {
    onLeft: (reason) => Either.left({ rule: "sql.connection.invalid", reason: `SQL connection "${name}" ${reason}` }),
    onRight: (dialect) => Either.right({ _tag: "Named", name, entry, dialect })
  })

/** Layer 3: a write needs `write: true` and a connection configured with `--allow-write`. Reads always pass. */
export const writePermission = (target: Target, write: boolean): Refusal | undefined => {
  if (!write) return undefined
  switch (target._tag) {
    case "Named":
      return target.entry.allowWrite === true
        ? undefined
        : { rule: "sql.write.not-allowed", reason: `connection "${target.name}" is read-only (add it with --allow-write to permit writes)` }
    case "WorkspaceFile":
      return {
        rule: "sql.write.not-allowed",
        reason: `${target.path} is a bare workspace file: writes need a connection configured with --allow-write (minicode config sql add NAME --sqlite ${target.path} --allow-write)`
      }
    case "Unbound":
      return { rule: "sql.write.not-allowed", reason: "writes need a connection configured with --allow-write" }
  }
}

/** A URL with its password (and any `password=` parameter) masked: safe to print and log. */
export const maskUrl = (url: string): string => {
  let out = url
  const scheme = out.indexOf("://")
  const at = out.lastIndexOf("@")
  if (scheme >= 0 && at > scheme) {
    const userinfo = out.slice(scheme + 3, at)
    const colon = userinfo.indexOf(":")
    if (colon >= 0) out = `${out.slice(0, scheme + 3)}${userinfo.slice(0, colon)}:***${out.slice(at)}`
  }
  return out.replace(/([?&](password|sslpassword)=)[^&#]*/gi, "$1***")
}

/** One line describing an entry, credentials masked. */
export const describe = (name: string, entry: ConnectionEntry): string => {
  const dialect = Either.getOrElse(dialectOf(entry), () => "invalid")
  const where = entry.sqlite !== undefined ? `sqlite ${entry.sqlite}` : `${dialect} ${maskUrl(entry.url ?? "")}`
  const limit = entry.timeoutMs === undefined ? "" : ` (time limit ${entry.timeoutMs} ms)`
  return `${name}: ${where}${entry.allowWrite === true ? " (writes allowed)" : " (read-only)"}${limit}`
}

/**
 * The configured connections as a tool description may name them: name, engine and mode, never a URL, a file or a
 * password (`mcp serve` appends it to sql_query's description in tools/list).
 */
export const summary = (connections: Connections, max = 20): string => {
  const names = Object.keys(connections).sort()
  if (names.length === 0) return "No connections are configured: name a workspace .db/.sqlite file as connection."
  const shown = names.slice(0, max).map((name) => {
    const entry = connections[name] ?? {}
    const engine = Either.getOrElse(dialectOf(entry), () => "invalid")
    return `${name} (${engine === "mysql" ? "mysql/mariadb" : engine}, ${entry.allowWrite === true ? "writes allowed" : "read-only"})`
  })
  const more = names.length > max ? `, and ${names.length - max} more (sql_connections lists them)` : ""
  return `Configured connections: ${shown.join(", ")}${more}.`
}

/** A query's time limit and where it was set: the call's `timeout_ms`, the connection's `timeoutMs`, or the default. */
export interface TimeLimit {
  readonly millis: number
  readonly source: { readonly _tag: "Argument" } | { readonly _tag: "Connection"; readonly name: string } | { readonly _tag: "Default" }
}

export const timeLimit = (argument: number | undefined, target: Target): TimeLimit => {
  if (argument !== undefined) return { millis: argument, source: { _tag: "Argument" } }
  if (target._tag === "Named" && target.entry.timeoutMs !== undefined) {
    return { millis: target.entry.timeoutMs, source: { _tag: "Connection", name: target.name } }
  }
  return { millis: defaultTimeoutMs, source: { _tag: "Default" } }
}

/** What a caller reads when a query was stopped at its time limit: the limit, and which setting it came from. */
export const overTime = (limit: TimeLimit): string =>
  `sql_query stopped: the query ran past its time limit of ${limit.millis} ms (timeout_ms: ${whereSet(limit)})`

/** What a caller reads when the database did not answer the connection within the call's time limit. */
export const connectOverTime = (limit: TimeLimit): string =>
  `sql_query stopped: connecting to the database took longer than the time limit of ${limit.millis} ms; the server did not answer (timeout_ms: ${whereSet(limit)})`

const whereSet = (limit: TimeLimit): string => {
  const where = (() => {
    switch (limit.source._tag) {
      case "Argument":
        return "set by the call's timeout_ms argument"
      case "Connection":
        return `configured for connection "${limit.source.name}" (--timeout-ms); a call may pass timeout_ms`
      case "Default":
        return "the default; pass timeout_ms (up to 600000) or configure the connection with --timeout-ms"
    }
  })()
  return where
}
