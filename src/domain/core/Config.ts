/**
 * minicode's configuration file (global `~/.config/minicode/config.json`, local `.minicode/config.json` only when
 * trusted). Unknown keys are kept for forward compatibility; `unrestricted` can never come from a file.
 */
import { Either, Schema } from "effect"

const Millis = Schema.Number.pipe(Schema.int(), Schema.between(1, 600_000))

/** A language server's own deadlines, in milliseconds (the transport's defaults otherwise). */
export const LspTimeouts = Schema.Struct({
  initializeMs: Schema.optional(Millis),
  requestMs: Schema.optional(Millis),
  diagnosticsMs: Schema.optional(Millis),
  loadMs: Schema.optional(Millis),
  shutdownMs: Schema.optional(Millis)
})
export type LspTimeouts = typeof LspTimeouts.Type

const timeoutNames = { initialize: "initializeMs", request: "requestMs", diagnostics: "diagnosticsMs", load: "loadMs", shutdown: "shutdownMs" } as const

/** `--timeout initialize=5000 --timeout request=2000`: a language server's deadlines from the command line. */
export const parseLspTimeouts = (pairs: ReadonlyArray<string>): Either.Either<LspTimeouts, string> => {
  const out: { -readonly [K in keyof LspTimeouts]: LspTimeouts[K] } = {}
  for (const pair of pairs) {
    const [name = "", value = ""] = pair.split("=", 2)
    const key = Object.entries(timeoutNames).find(([n]) => n === name.trim())?.[1]
    if (key === undefined) return Either.left(`--timeout ${pair}: expected NAME=MS with NAME one of ${Object.keys(timeoutNames).join(", ")}`)
    const ms = /^\d+$/.test(value.trim()) ? Number(value.trim()) : Number.NaN
    if (!Number.isInteger(ms) || ms < 1 || ms > 600_000) return Either.left(`--timeout ${pair}: MS must be a whole number of milliseconds from 1 to 600000`)
    out[key] = ms
  }
  return Either.right(out)
}

export const ServerEntry = Schema.Struct({
  command: Schema.optional(Schema.String),
  args: Schema.optional(Schema.Array(Schema.String)),
  env: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String })),
  url: Schema.optional(Schema.String),
  headers: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String })),
  allowPrivate: Schema.optional(Schema.Boolean),
  sandbox: Schema.optional(Schema.Boolean),
  /** MCP servers: a call's time-out in seconds (default 120), reset whenever the server reports progress. */
  timeout: Schema.optional(Schema.Number.pipe(Schema.greaterThan(0), Schema.lessThanOrEqualTo(86_400))),
  /** Language servers only. */
  timeouts: Schema.optional(LspTimeouts)
})
export type ServerEntry = typeof ServerEntry.Type

/** A config value read as the flags read it: case and surrounding spaces do not matter (`build` is `BUILD`). */
const caseless = <const L extends ReadonlyArray<string>>(literals: L, toCase: (s: string) => string) =>
  Schema.transform(Schema.String, Schema.Literal(...literals), {
    strict: false,
    decode: (s) => toCase(s.trim()),
    encode: (s) => s
  })

export const ConfigFile = Schema.Struct({
  workMode: Schema.optional(caseless(["DISCUSS", "PLAN", "BUILD"], (s) => s.toUpperCase())),
  permissionMode: Schema.optional(caseless(["AUTO", "ASK"], (s) => s.toUpperCase())),
  policy: Schema.optional(caseless(["readonly", "plan", "allowlist", "allow-all"], (s) => s.toLowerCase())),
  allowlist: Schema.optional(Schema.Array(Schema.Unknown)),
  mcpServers: Schema.optional(Schema.Record({ key: Schema.String, value: ServerEntry })),
  lsp: Schema.optional(Schema.Record({ key: Schema.String, value: ServerEntry })),
  sql: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  sandbox: Schema.optional(caseless(["auto", "bwrap", "none"], (s) => s.toLowerCase())),
  /** `bash` with `network: true` runs without asking in permission mode AUTO (still denied by readonly/plan). */
  bashNetwork: Schema.optional(Schema.Boolean),
  /** The overall deadline of a tool call in ms (default 10 minutes; bash's is at least its timeout_ms + 30 s). */
  toolDeadlineMs: Schema.optional(Schema.Int.pipe(Schema.between(1, 86_400_000)))
})
export type ConfigFile = typeof ConfigFile.Type

/** Local entries override global ones key by key; a local file can narrow nothing it cannot see. */
export const merge = (global: ConfigFile, local: ConfigFile | undefined): ConfigFile =>
  local === undefined
    ? global
    : {
        ...global,
        ...local,
        allowlist: [...(global.allowlist ?? []), ...(local.allowlist ?? [])],
        mcpServers: { ...global.mcpServers, ...local.mcpServers },
        lsp: { ...global.lsp, ...local.lsp },
        sql: { ...global.sql, ...local.sql }
      }
