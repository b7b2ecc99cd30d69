/**
 * What the `config` subcommands (mcp, sql, lsp) share: the common flags, which file to edit (global by default,
 * the workspace's only with --local), and reading/writing it whole: unknown keys kept, the result validated
 * against the config schema, written to a temp file (mode 600) and renamed over.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { Options } from "@effect/cli"
import { Console, Effect, Either, Option, Schema } from "effect"
import * as CliLayers from "../app/CliLayers.js"
import { ConfigFile } from "../domain/core/Config.js"
import { UsageError } from "../domain/core/Errors.js"

export const usage = (reason: string) => new UsageError({ reason })

export const cwd = Options.directory("cwd").pipe(Options.withDescription("Workspace root (default: the current directory)"), Options.optional)
export const global = Options.boolean("global").pipe(Options.withDescription("Write the global config (default)"))
export const local = Options.boolean("local").pipe(
  Options.withDescription("Write the workspace's .minicode/config.json (used only with --allow-local-config)")
)
export const json = (masked: string) => Options.boolean("json").pipe(Options.withDescription(`Machine-readable output (${masked} still masked)`))
export const allowLocalConfig = Options.boolean("allow-local-config").pipe(Options.withDescription("Trust .minicode/config.json in the workspace"))

export const workspaceOf = (dir: Option.Option<string>) => path.resolve(Option.getOrElse(dir, () => process.cwd()))

export const fileFor = (workspace: string, flags: { readonly global: boolean; readonly local: boolean }) =>
  flags.global && flags.local
    ? Effect.fail(usage("choose one of --global and --local"))
    : Effect.succeed(flags.local ? CliLayers.configPaths(workspace).local : CliLayers.configPaths(workspace).global)

export const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v)

/** The file's JSON object as written (unknown keys kept), or `{}` when it does not exist. */
export const readRaw = (file: string) =>
  Effect.gen(function* () {
    if (!fs.existsSync(file)) return {}
    const text = yield* Effect.try({ try: () => fs.readFileSync(file, "utf8"), catch: (cause) => usage(`cannot read ${file}: ${String(cause)}`) })
    const json = yield* Effect.try({ try: (): unknown => JSON.parse(text), catch: () => usage(`${file} is not valid JSON; fix or remove it first`) })
    if (!isRecord(json)) return yield* usage(`${file} does not hold a JSON object`)
    return json
  })

export const writeRaw = (file: string, raw: Record<string, unknown>) =>
  Effect.gen(function* () {
    yield* Schema.decodeUnknown(ConfigFile)(raw).pipe(Effect.mapError((e) => usage(`the result would not be a valid config: ${e.message}`)))
    yield* Effect.try({
      try: () => {
        // The workspace's .minicode/ gets its .gitignore; the global config folder is only made.
        if (path.basename(path.dirname(file)) === ".minicode") CliLayers.prepareStateDir(path.dirname(file))
        else fs.mkdirSync(path.dirname(file), { recursive: true })
        const temp = `${file}.${process.pid}.tmp`
        fs.writeFileSync(temp, `${JSON.stringify(raw, null, 2)}\n`, { mode: 0o600 })
        fs.renameSync(temp, file)
      },
      catch: (cause) => usage(`cannot write ${file}: ${String(cause)}`)
    })
  })

/** One section of the file (`mcpServers`, `sql`, `lsp`) as a fresh object, `{}` when absent. */
export const section = (raw: Record<string, unknown>, key: string): Record<string, unknown> => {
  const found = raw[key]
  return isRecord(found) ? { ...found } : {}
}

export const check = <A>(either: Either.Either<A, string>) => Either.match(either, { onLeft: (e) => Effect.fail(usage(e)), onRight: Effect.succeed })

/** One configured entry as `list` shows it: from which file, and whether it is in effect. */
export interface Row<A> {
  readonly key: string
  readonly scope: "global" | "local"
  readonly used: boolean
  readonly entry: A
}

/**
 * The entries of one section across the global and the local file: a local entry is used only when local config is
 * trusted, and then overrides the global one of the same key.
 */
export const layered = <A>(workspace: string, trusted: boolean, pick: (config: ConfigFile) => Readonly<Record<string, A>> | undefined) =>
  Effect.gen(function* () {
    const p = CliLayers.configPaths(workspace)
    const decode = (raw: Record<string, unknown>) =>
      Schema.decodeUnknown(ConfigFile)(raw).pipe(Effect.map((c) => pick(c) ?? {}), Effect.mapError((e) => usage(e.message)))
    const global = yield* Effect.flatMap(readRaw(p.global), decode)
    const local = fs.existsSync(p.local) ? yield* Effect.flatMap(readRaw(p.local), decode) : {}
    const rows: ReadonlyArray<Row<A>> = [
      ...Object.entries(global).map(([key, entry]) => ({ key, scope: "global" as const, used: !(trusted && Object.hasOwn(local, key)), entry })),
      ...Object.entries(local).map(([key, entry]) => ({ key, scope: "local" as const, used: trusted, entry }))
    ]
    return rows
  })

/** The note `list` prints after an entry that is not in effect. */
export const rowNote = (row: Row<unknown>): string =>
  row.used ? "" : row.scope === "local" ? " (ignored: pass --allow-local-config to trust local config)" : " (overridden by local)"

/** What an `add`/`remove` did, as a sentence or (with --json) as one object on stdout. */
export const told = (asJson: boolean, text: string, result: Readonly<Record<string, unknown>>) =>
  Console.log(asJson ? JSON.stringify({ ok: true, ...result }) : text)

/** An entry as `list --json` shows it: env and header values masked, everything else as written. */
export const maskedEntry = (entry: object): Readonly<Record<string, unknown>> => {
  const out: Record<string, unknown> = { ...entry }
  for (const key of ["env", "headers"]) {
    const values = out[key]
    if (isRecord(values)) out[key] = Object.fromEntries(Object.keys(values).map((k) => [k, "***"]))
  }
  return out
}
