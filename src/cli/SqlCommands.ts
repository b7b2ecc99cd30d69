/**
 * `minicode config sql add|list|remove`: SQL connections for `sql_query`, in the global config (default) or the
 * workspace's `.minicode/config.json` (`--local`, read only with `--allow-local-config`: a cloned repository must
 * not configure connections, let alone writable ones). Other keys of the file are kept; the file is written
 * atomically with mode 0600. A URL's password is stored but never printed: every line shows the masked form.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { Args, Command, Options } from "@effect/cli"
import { Console, Effect, Either, Option } from "effect"
import * as CliLayers from "../app/CliLayers.js"
import * as SqlConnection from "../domain/sql/SqlConnection.js"
import * as Shared from "./ConfigFile.js"

const name = Args.text({ name: "NAME" }).pipe(Args.withDescription("Connection name: letters, digits, _ and - (not first)"))

const { usage, cwd, global, local, allowLocalConfig, workspaceOf, fileFor, readRaw, writeRaw, check } = Shared
const json = Shared.json("passwords")
const entries = (raw: Record<string, unknown>) => Shared.section(raw, "sql")

const add = Command.make(
  "add",
  {
    name,
    cwd,
    global,
    local,
    json: Shared.json("values"),
    sqlite: Options.file("sqlite").pipe(Options.withDescription("SQLite database file (stored as an absolute path)"), Options.optional),
    url: Options.text("url").pipe(Options.withDescription("postgres://user:password@host:port/db or mysql://… / mariadb://… (the password is stored, never printed)"), Options.optional),
    allowWrite: Options.boolean("allow-write").pipe(Options.withDescription("Permit sql_query calls with write: true on this connection")),
    // Text, parsed below: a bad value gets a message that names the option (the integer parser's does not).
    timeoutMs: Options.text("timeout-ms").pipe(
      Options.withDescription(`Time limit of a query on this connection, in ms (${SqlConnection.minTimeoutMs}..${SqlConnection.maxTimeoutMs}; default ${SqlConnection.defaultTimeoutMs}); a call's timeout_ms overrides it`),
      Options.optional
    )
  },
  (flags) =>
    Effect.gen(function* () {
      const connectionName = yield* check(SqlConnection.validateName(flags.name))
      const workspace = workspaceOf(flags.cwd)
      const file = yield* fileFor(workspace, flags)
      const sqlite = Option.getOrUndefined(flags.sqlite)
      const url = Option.getOrUndefined(flags.url)
      if ((sqlite === undefined) === (url === undefined)) return yield* usage("give exactly one of --sqlite PATH or --url postgres://… | mysql://…")
      const timeoutText = Option.getOrUndefined(flags.timeoutMs)
      const timeoutMs = timeoutText === undefined ? undefined : /^\d{1,7}$/.test(timeoutText.trim()) ? Number(timeoutText.trim()) : Number.NaN
      if (timeoutMs !== undefined && !(timeoutMs >= SqlConnection.minTimeoutMs && timeoutMs <= SqlConnection.maxTimeoutMs)) {
        return yield* usage(`--timeout-ms must be a whole number of milliseconds from ${SqlConnection.minTimeoutMs} to ${SqlConnection.maxTimeoutMs}, not ${JSON.stringify(timeoutText)}`)
      }
      const entry: SqlConnection.ConnectionEntry = {
        ...(sqlite !== undefined ? { sqlite: path.resolve(workspace, sqlite) } : { url: url ?? "" }),
        ...(flags.allowWrite ? { allowWrite: true } : {}),
        ...(timeoutMs !== undefined ? { timeoutMs } : {})
      }
      const dialect = SqlConnection.dialectOf(entry)
      if (Either.isLeft(dialect)) return yield* usage(dialect.left)
      const problem = entry.url === undefined ? undefined : SqlConnection.urlProblem(entry.url)
      if (problem !== undefined) return yield* usage(`--url ${SqlConnection.maskUrl(entry.url ?? "")}: ${problem}`)
      const raw = yield* readRaw(file)
      const existing = entries(raw)
      const replaced = Object.hasOwn(existing, connectionName)
      yield* writeRaw(file, { ...raw, sql: { ...existing, [connectionName]: entry } })
      const missing = entry.sqlite !== undefined && !fs.existsSync(entry.sqlite) ? " (the file does not exist yet)" : ""
      yield* Shared.told(
        flags.json,
        `${replaced ? "replaced" : "added"} ${SqlConnection.describe(connectionName, entry)}${missing}\n  in ${file}${flags.local ? " (used only with --allow-local-config)" : ""}`,
        { action: replaced ? "replaced" : "added", name: connectionName, file, summary: SqlConnection.describe(connectionName, entry) }
      )
    })
).pipe(Command.withDescription("Add (or replace) an SQL connection: --sqlite PATH | --url postgres://… | mysql://… [--allow-write] [--timeout-ms N]"))

const list = Command.make("list", { cwd, json, allowLocalConfig }, (flags) =>
  Effect.gen(function* () {
    const workspace = workspaceOf(flags.cwd)
    const p = CliLayers.configPaths(workspace)
    const trusted = CliLayers.localTrusted(flags.allowLocalConfig)
    const decode = (raw: Record<string, unknown>) => check(SqlConnection.parseConnections(entries(raw)))
    const globalEntries = yield* Effect.flatMap(readRaw(p.global), decode)
    const localEntries = fs.existsSync(p.local) ? yield* Effect.flatMap(readRaw(p.local), decode) : {}
    const rows = [
      ...Object.entries(globalEntries).map(([k, v]) => ({ name: k, scope: "global", used: !(trusted && Object.hasOwn(localEntries, k)), entry: v })),
      ...Object.entries(localEntries).map(([k, v]) => ({ name: k, scope: "local", used: trusted, entry: v }))
    ]
    if (flags.json) {
      return yield* Console.log(JSON.stringify(rows.map((r) => ({ name: r.name, scope: r.scope, used: r.used, summary: SqlConnection.describe(r.name, r.entry) }))))
    }
    if (rows.length === 0) {
      return yield* Console.log("no SQL connections configured (minicode config sql add NAME --sqlite PATH | --url postgres://…); workspace .db/.sqlite files work without one, read-only")
    }
    for (const r of rows) {
      const note = r.used ? "" : r.scope === "local" ? " (ignored: pass --allow-local-config to trust local config)" : " (overridden by local)"
      yield* Console.log(`${SqlConnection.describe(r.name, r.entry)} [${r.scope}]${note}`)
    }
  })
).pipe(Command.withDescription("List SQL connections (passwords masked)"))

const remove = Command.make("remove", { name, cwd, global, local, json: Shared.json("values") }, (flags) =>
  Effect.gen(function* () {
    const file = yield* fileFor(workspaceOf(flags.cwd), flags)
    const raw = yield* readRaw(file)
    const existing = entries(raw)
    if (!Object.hasOwn(existing, flags.name)) return yield* usage(`no SQL connection "${flags.name}" in ${file}`)
    const { [flags.name]: _removed, ...rest } = existing
    yield* writeRaw(file, { ...raw, sql: rest })
    yield* Shared.told(flags.json, `removed ${flags.name} from ${file}`, { action: "removed", name: flags.name, file })
  })
).pipe(Command.withDescription("Remove an SQL connection"))

/** `sql` under `minicode config`. */
export const sqlConfig = Command.make("sql").pipe(
  Command.withDescription("SQL connections for sql_query"),
  Command.withSubcommands([add, list, remove])
)
