/**
 * `minicode doctor`: versions, workspace, config files, and each configured server probed for real (MCP servers
 * connected and listed, SQL connections asked `SELECT 1`, language servers started), each with a deadline. Exits 2
 * on a broken config and 1 when a configured server does not answer.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { Command } from "@effect/cli"
import { Console, Duration, Effect, Either, Option } from "effect"
import * as CliLayers from "../app/CliLayers.js"
import * as NodeAdapters from "../app/NodeLayers.js"
import * as Kernel from "../kernel/Kernel.js"
import * as Guide from "../domain/mcp/McpGuide.js"
import * as ProbeVerdict from "../domain/core/Probe.js"
import * as Scopes from "../domain/mcp/McpScopes.js"
import * as Runner from "../kernel/Runner.js"
import * as ExitCode from "./ExitCode.js"
import { lspDoctor } from "./LspCommands.js"
import { allowLocalConfig, cwd, json, sandbox, setup } from "./Setup.js"
import { version } from "./Version.js"

export { version }

export interface Probe {
  readonly kind: "mcp" | "sql"
  readonly name: string
  readonly ok: boolean
  /** It answered, after the ordinary patience (`Probe.verdict`). */
  readonly slow: boolean
  readonly detail: string
  readonly millis: number
  /** What doctor says of it after its name. */
  readonly says: string
}

const probeTimes = ProbeVerdict.timesFrom(process.env["MINICODE_DOCTOR_PROBE_MS"])

/** One read-only call through the whole chain, as a user's call would go; its first line, or why it failed. */
const probe = (
  flags: { readonly cwd: Option.Option<string>; readonly allowLocalConfig: boolean; readonly sandbox: Option.Option<"auto" | "bwrap" | "none"> },
  kind: Probe["kind"],
  name: string,
  request: Runner.Request
) =>
  Effect.gen(function* () {
    const started = Date.now()
    const { session, adapters } = yield* setup({ ...flags, workMode: Option.none(), permissionMode: Option.none(), policy: Option.none() })
    // One wait through the second chance: an answer after the ordinary patience is a slow server, not a dead one.
    const outcome = yield* Runner.invoke(request).pipe(
      Effect.provide(Kernel.layer(session, { ...adapters, journal: CliLayers.memoryJournal() })),
      Effect.timeout(Duration.millis(probeTimes.secondChanceMs)),
      Effect.either
    )
    const millis = Date.now() - started
    const judged: ProbeVerdict.Outcome = Either.isLeft(outcome)
      ? outcome.left._tag === "TimeoutException"
        ? { _tag: "Silent", millis }
        : { _tag: "Failed", millis, detail: outcome.left.message }
      : { _tag: "Answered", millis, ok: outcome.right.isError !== true, detail: (outcome.right.text.split("\n").find((line) => line.trim() !== "") ?? "").slice(0, 160) }
    return ofVerdict(kind, name, judged)
  }).pipe(Effect.catchAll((e) => Effect.succeed<Probe>(ofVerdict(kind, name, { _tag: "Failed", millis: 0, detail: e.message }))))

const ofVerdict = (kind: Probe["kind"], name: string, outcome: ProbeVerdict.Outcome): Probe => {
  const v = ProbeVerdict.verdict(outcome, probeTimes)
  return { kind, name, ok: v.ok, slow: v.slow, detail: outcome._tag === "Silent" ? v.says : outcome.detail, millis: outcome.millis, says: v.says }
}

export const doctor = Command.make("doctor", { cwd, json, allowLocalConfig, sandbox }, (flags) =>
  Effect.gen(function* () {
    const workspace = path.resolve(Option.getOrElse(flags.cwd, () => process.cwd()))
    const loaded = yield* CliLayers.loadConfig(workspace, flags.allowLocalConfig).pipe(Effect.either)
    const config = Either.isRight(loaded) ? loaded.right.config : {}
    const sandboxMode = Option.getOrElse(flags.sandbox, () => config.sandbox ?? "auto")
    const lsp = yield* lspDoctor(workspace, config.lsp ?? {})
    const probes = Either.isLeft(loaded)
      ? []
      : yield* Effect.all(
          [
            ...Object.keys(config.mcpServers ?? {}).map((name) => probe(flags, "mcp", name, { tool: "mcp_list", args: { server: name } })),
            ...Object.keys(config.sql ?? {}).map((name) => probe(flags, "sql", name, { tool: "sql_query", args: { connection: name, sql: "SELECT 1" } }))
          ],
          { concurrency: 4 }
        )
    const line = (p: Probe) => `${p.kind === "mcp" ? "MCP server" : "SQL connection"} ${p.name}: ${p.says}`
    const report = {
      minicode: version,
      node: process.version,
      platform: `${process.platform}-${process.arch}`,
      workspace,
      workspaceExists: fs.existsSync(workspace),
      config: {
        global: CliLayers.configPaths(workspace).global,
        globalFound: Either.isRight(loaded) && loaded.right.globalFound,
        local: CliLayers.configPaths(workspace).local,
        localFound: Either.isRight(loaded) && loaded.right.localFound,
        localUsed: Either.isRight(loaded) && loaded.right.localUsed,
        error: Either.isLeft(loaded) ? loaded.left.message : null
      },
      defaults: { workMode: config.workMode ?? "DISCUSS", permissionMode: config.permissionMode ?? "AUTO", policy: config.policy ?? "default" },
      // What an `mcp serve` session started without flags gets (its flags change it: `mcp config --for … --help`).
      mcpServe: {
        workMode: "BUILD",
        scopes: Scopes.scopes.filter((s) => s !== "mcp").map((s) => `${s}=${Scopes.defaults[s]}`).join(", "),
        asks: Guide.asks("default")
      },
      servers: {
        mcp: Object.keys(config.mcpServers ?? {}),
        lsp: lsp.rows,
        sql: Object.keys(config.sql ?? {})
      },
      probes,
      bashGuard: "tree-sitter-bash (commands are parsed and judged on their syntax tree)",
      sandbox: NodeAdapters.sandboxLine(sandboxMode, yield* NodeAdapters.sandboxStatus({ mode: sandboxMode })),
      bashWrites: yield* NodeAdapters.bashWritesLine(sandboxMode, workspace)
    }
    // A broken config is the user's to fix (2); a configured server that does not answer is a failure (1).
    if (Either.isLeft(loaded)) process.exitCode = ExitCode.ExitCode.usage
    else if (probes.some((p) => !p.ok) || lsp.rows.some((r) => !r.initialised)) process.exitCode = ExitCode.ExitCode.toolError
    if (flags.json) return yield* Console.log(JSON.stringify(report, null, 2))
    yield* Console.log(
      [
        `minicode ${report.minicode} on node ${report.node} (${report.platform})`,
        `workspace: ${report.workspace}${report.workspaceExists ? "" : " (missing!)"}`,
        `global config: ${report.config.global} ${report.config.globalFound ? "(found)" : "(none)"}`,
        `local config: ${report.config.local} ${report.config.localFound ? (report.config.localUsed ? "(found, used)" : "(found, ignored: pass --allow-local-config to trust it)") : "(none)"}`,
        ...(report.config.error === null ? [] : [`config error: ${report.config.error}`]),
        `defaults: work mode ${report.defaults.workMode}, permission mode ${report.defaults.permissionMode}, policy ${report.defaults.policy}`,
        `mcp serve defaults: work mode ${report.mcpServe.workMode}; scopes ${report.mcpServe.scopes}; ${report.mcpServe.asks}`,
        `MCP servers: ${report.servers.mcp.length === 0 ? "none" : report.servers.mcp.join(", ")}`,
        ...probes.filter((p) => p.kind === "mcp").map(line),
        ...(lsp.lines.length === 0 ? ["language servers: none"] : lsp.lines),
        `SQL connections: ${report.servers.sql.length === 0 ? "none" : report.servers.sql.join(", ")}`,
        ...probes.filter((p) => p.kind === "sql").map(line),
        `bash guard: ${report.bashGuard}`,
        report.sandbox,
        report.bashWrites
      ].join("\n")
    )
  })
).pipe(Command.withDescription("Versions, workspace, config files and configured servers"))

