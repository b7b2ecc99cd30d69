/**
 * The adapters `minicode mcp serve` runs on, chosen here: the configuration read from disk (`NodeConfig`), the Node
 * adapters of a session (`NodeLayers.adapters`: an empty allowlist and nobody to ask, so asks become denies), sha256
 * for the replay table, and newline-delimited JSON-RPC over this process's stdin and stdout.
 */
import * as WorkspaceWatch from "../adapters/fs/WorkspaceWatch.js"
import * as path from "node:path"
import { Effect, Either, Logger, LogLevel } from "effect"
import * as Approvers from "../adapters/approval/Approvers.js"
import * as ElicitationApprover from "../adapters/approval/ElicitationApprover.js"
import * as JsonFileAllowlist from "../adapters/approval/JsonFileAllowlist.js"
import * as MemoryAllowlist from "../adapters/approval/MemoryAllowlist.js"
import * as NodeConfig from "../adapters/config/NodeConfig.js"
import { sha256 } from "../adapters/crypto/Sha256.js"
import * as StdioLineTransport from "../adapters/mcp/StdioLineTransport.js"
import * as Scopes from "../domain/mcp/McpScopes.js"
import * as Allowlist from "../domain/core/Allowlist.js"
import type { ServerEntry } from "../domain/core/Config.js"
import { decline, type Elicit } from "../domain/mcp/McpElicitation.js"
import type { ToolFailed } from "../domain/core/Errors.js"
import * as SqlConnection from "../domain/sql/SqlConnection.js"
import type { Adapters } from "../kernel/Kernel.js"
import type { ElicitationChannel } from "../ports/Approver.js"
import type { SandboxMode } from "../ports/Sandbox.js"
import * as ForwardElicitation from "../serve/ForwardElicitation.js"
import * as CallProgress from "../serve/CallProgress.js"
import { closingMs, parseArgv, type ServeFlags, usage, version, watchdog } from "../serve/Main.js"
import * as NodeAdapters from "./NodeLayers.js"

export { parseArgv, type ServeFlags }

/**
 * The session adapters of `mcp serve`: Node's, with an approver that answers "no" (the server replaces it with one
 * that asks through the client, see `run`), and an empty in-memory allowlist unless the allowlist file is given
 * (`run` gives the user's: "always" answers are saved there, and the configured entries apply).
 */
export const kernelAdapters = (options: {
  readonly sql: SqlConnection.Connections
  readonly mcpServers: Readonly<Record<string, ServerEntry>>
  readonly lsp: Readonly<Record<string, ServerEntry>>
  readonly sandbox: SandboxMode
  readonly allowlist?: { readonly file: string; readonly configured: ReadonlyArray<Allowlist.AllowEntry> }
  /** Who answers an upstream server's elicitation (default: declined). */
  readonly elicit?: Elicit
  /** What the scopes let staged bash change: `files=read` nothing, `git=read` nothing in a git folder. */
  readonly writable?: { readonly files: boolean; readonly git: boolean }
}): Adapters<ToolFailed> => ({
  ...NodeAdapters.frontEnd({ ...options, mcpClient: { elicit: options.elicit ?? decline } }),
  allowlist:
    options.allowlist === undefined ? MemoryAllowlist.layer([]) : JsonFileAllowlist.layer(options.allowlist.file, options.allowlist.configured),
  approver: Approvers.constant("no")
})

export const run = (flags: ServeFlags) =>
  Effect.gen(function* () {
    const settings = yield* Either.match(Scopes.parse(flags.scope, { allowAll: flags.allowAll, allTools: flags.allTools }), {
      onLeft: (reason) => Effect.fail(usage(reason)),
      onRight: Effect.succeed
    })
    if (flags.askTimeoutMs !== undefined && !(flags.askTimeoutMs >= 1_000 && flags.askTimeoutMs <= 3_600_000)) {
      return yield* Effect.fail(usage("--ask-timeout: expected whole seconds from 1 to 3600"))
    }
    const workspace = path.resolve(flags.cwd ?? process.cwd())
    const loaded = yield* NodeConfig.load(workspace, NodeConfig.localTrusted(flags.allowLocalConfig))
    const sql = yield* Either.match(SqlConnection.parseConnections(loaded.config.sql), {
      onLeft: (e) => Effect.fail(usage(`config sql: ${e}`)),
      onRight: Effect.succeed
    })
    const configured = yield* Either.match(Allowlist.parseEntries(loaded.config.allowlist ?? []), {
      onLeft: (e) => Effect.fail(usage(`config allowlist: ${e}`)),
      onRight: Effect.succeed
    })
    const mode = flags.sandbox ?? loaded.config.sandbox ?? "auto"
    const sandboxNote = NodeAdapters.sandboxLine(mode, yield* NodeAdapters.sandboxStatus({ mode }))
    // Its sandboxes' walk for host files private to their owner, on the first idle moment, not on the first call.
    if (mode !== "none") yield* NodeAdapters.prewarmSandbox
    const McpServe = yield* Effect.promise(() => import("../serve/Server.js"))
    // The client channel exists once the server does; an upstream server's elicitation is forwarded through it.
    const upstream: { channel?: ElicitationChannel } = {}
    yield* watchdog(McpServe.limits.drainMs + closingMs)
    yield* McpServe.serve(
      {
        workspace,
        settings,
        version,
        home: process.env["HOME"],
        notes: [sandboxNote],
        bashNetwork: loaded.config.bashNetwork,
        toolDeadlineMs: loaded.config.toolDeadlineMs,
        ask: flags.ask,
        sqlConnections: sql,
        progressIntervalMs: CallProgress.parseInterval(process.env["MINICODE_PROGRESS_MS"])
      },
      {
        kernel: kernelAdapters({
          sql,
          mcpServers: loaded.config.mcpServers ?? {},
          lsp: loaded.config.lsp ?? {},
          sandbox: mode,
          writable: { files: settings.levels.files === "write", git: settings.levels.git === "write" },
          allowlist: { file: loaded.paths.allowlist, configured },
          elicit: ForwardElicitation.forward(() => upstream.channel)
        }),
        approver: (channel) => {
          upstream.channel = channel
          return ElicitationApprover.layer({
            channel,
            ...(flags.askTimeoutMs === undefined ? {} : { timeoutMs: flags.askTimeoutMs }),
            howToAllow: "restart minicode mcp serve with --allow-all"
          })
        },
        hash: (text) => sha256(text, "base64"),
        watch: WorkspaceWatch.start,
        transport: (hooks) =>
          StdioLineTransport.make({ input: process.stdin, output: process.stdout, maxLineBytes: McpServe.limits.maxLineBytes, ...hooks })
      }
    )
  }).pipe(
    Effect.scoped,
    // stdout carries the protocol: nothing else may print there.
    Effect.provide(Logger.replace(Logger.defaultLogger, Logger.withConsoleError(Logger.logfmtLogger))),
    Logger.withMinimumLogLevel(LogLevel.Warning)
  )
