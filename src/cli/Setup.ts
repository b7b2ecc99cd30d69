/**
 * What every command that runs tools shares: the common flags, and the session and adapters they give (flags, then
 * the config file, then the product defaults).
 */
import * as path from "node:path"
import { Options } from "@effect/cli"
import { Effect, Either, Option } from "effect"
import * as CliLayers from "../app/CliLayers.js"
import * as Allowlist from "../domain/core/Allowlist.js"
import { type ToolFailed, UsageError } from "../domain/core/Errors.js"
import * as Modes from "../domain/core/Modes.js"
import * as SqlConnection from "../domain/sql/SqlConnection.js"
import type * as Kernel from "../kernel/Kernel.js"

export const cwd = Options.directory("cwd").pipe(Options.withDescription("Workspace root (default: the current directory)"), Options.optional)
const workMode = Options.text("work-mode").pipe(Options.withDescription("DISCUSS (read-only, default), PLAN or BUILD"), Options.optional)
const permissionMode = Options.text("permission-mode").pipe(Options.withDescription("AUTO (default) or ASK"), Options.optional)
const policy = Options.text("policy").pipe(Options.withDescription("readonly, plan, allowlist or allow-all"), Options.optional)
export const json = Options.boolean("json").pipe(Options.withDescription("Machine-readable output"))
export const allowLocalConfig = Options.boolean("allow-local-config").pipe(Options.withDescription("Trust .minicode/config.json in the workspace"))

export const sandbox = Options.choice("sandbox", ["auto", "bwrap", "none"]).pipe(
  Options.withDescription("Run bash in a bubblewrap sandbox: auto (when usable, default), bwrap (or refuse bash), none"),
  Options.optional
)
export const common = { cwd, workMode, permissionMode, policy, allowLocalConfig, sandbox }

export type CommonFlags = {
  readonly cwd: Option.Option<string>
  readonly workMode: Option.Option<string>
  readonly permissionMode: Option.Option<string>
  readonly policy: Option.Option<string>
  readonly allowLocalConfig: boolean
  readonly sandbox: Option.Option<"auto" | "bwrap" | "none">
}

export const usage = (reason: string) => new UsageError({ reason })

const parseOption = <A>(raw: Option.Option<string>, parse: (s: string) => Either.Either<A, string>) =>
  Option.match(raw, {
    onNone: () => Effect.succeed(undefined),
    onSome: (s) => Either.match(parse(s), { onLeft: (e) => Effect.fail(usage(e)), onRight: (a) => Effect.succeed<A | undefined>(a) })
  })

export const parseJsonArgs = (text: string) =>
  Effect.try({
    try: (): unknown => JSON.parse(text),
    catch: (cause) =>
      usage(
        `ARGS_JSON is not valid JSON (${cause instanceof Error ? cause.message : String(cause)}); write it with double-quoted keys and strings, e.g. '{"path":"src/index.ts"}'`
      )
  })

/** Session settings and adapters from flags, then the config file, then the product defaults. */
export const setup = (flags: CommonFlags) =>
  Effect.gen(function* () {
    const workspace = path.resolve(Option.getOrElse(flags.cwd, () => process.cwd()))
    const loaded = yield* CliLayers.loadConfig(workspace, flags.allowLocalConfig)
    const config = loaded.config
    const session: Kernel.SessionOptions = {
      workspace,
      workMode: (yield* parseOption(flags.workMode, Modes.parseWorkMode)) ?? config.workMode,
      permissionMode: (yield* parseOption(flags.permissionMode, Modes.parsePermissionMode)) ?? config.permissionMode,
      policy: (yield* parseOption(flags.policy, (s) => Modes.parseAccessPolicy(s, { allowUnrestricted: false }))) ?? config.policy,
      home: process.env["HOME"],
      sessionId: "cli",
      bashNetwork: config.bashNetwork,
      toolDeadlineMs: config.toolDeadlineMs
    }
    const configured = yield* Either.match(Allowlist.parseEntries(config.allowlist ?? []), {
      onLeft: (e) => Effect.fail(usage(`config allowlist: ${e}`)),
      onRight: Effect.succeed
    })
    const sql = yield* Either.match(SqlConnection.parseConnections(config.sql), {
      onLeft: (e) => Effect.fail(usage(`config sql: ${e}`)),
      onRight: Effect.succeed
    })
    const adapters: Kernel.Adapters<ToolFailed> = CliLayers.sessionAdapters({
      mcpServers: config.mcpServers ?? {},
      sql,
      lsp: config.lsp ?? {},
      sandbox: Option.getOrElse(flags.sandbox, () => config.sandbox ?? "auto"),
      allowlistFile: loaded.paths.allowlist,
      configured,
      workspace
    })
    return { session, adapters, loaded }
  })

