/**
 * `minicode mcp serve` and `minicode mcp config`. The serve handler loads the server (and through it the MCP SDK)
 * with a dynamic import, so every other command starts without it.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { Command, Options } from "@effect/cli"
import { Console, Effect, Either, Option } from "effect"
import { ToolFailed } from "../../domain/Errors.js"
import * as ClientConfig from "../../domain/McpClientConfig.js"
import * as ServeMain from "../ServeMain.js"


const usage = (reason: string) => new ToolFailed({ tool: "minicode mcp", reason })

const cwd = Options.directory("cwd", { exists: "yes" }).pipe(
  Options.withDescription("Workspace root: the one root for the jail, execution and the journal (default: the current directory)"),
  Options.optional
)

const workspaceOf = (flag: Option.Option<string>) => path.resolve(Option.getOrElse(flag, () => process.cwd()))

const serve = Command.make(
  "serve",
  {
    cwd,
    allowAll: Options.boolean("allow-all").pipe(
      Options.withDescription("Policy allow-all: gated tools (git_commit, git_push…) run without asking; jail, guard and validation still apply")
    ),
    allTools: Options.boolean("all-tools").pipe(Options.withDescription("Also expose the internal scope mcp (MCP client tools)")),
    scope: Options.text("scope").pipe(
      Options.withDescription("NAME=off|read|write for files, search, shell, git, lsp, sql (and mcp with --all-tools); repeatable"),
      Options.repeated
    ),
    sandbox: Options.choice("sandbox", ["auto", "bwrap", "none"]).pipe(
      Options.withDescription("Run bash in a bubblewrap sandbox: auto (when usable, default), bwrap (or refuse bash), none"),
      Options.optional
    ),
    allowLocalConfig: Options.boolean("allow-local-config").pipe(Options.withDescription("Trust .minicode/config.json in the workspace"))
  },
  (flags) =>
    ServeMain.run({
      cwd: Option.getOrUndefined(flags.cwd),
      allowAll: flags.allowAll,
      allTools: flags.allTools,
      scope: flags.scope,
      sandbox: Option.getOrUndefined(flags.sandbox),
      allowLocalConfig: flags.allowLocalConfig
    })
).pipe(Command.withDescription("Serve minicode's tools over MCP (stdio only): every call goes through the whole chain"))

const config = Command.make(
  "config",
  {
    cwd,
    client: Options.choice("for", ClientConfig.clients).pipe(Options.withDescription("The MCP client to register minicode with")),
    write: Options.boolean("write").pipe(Options.withDescription("Merge the entry into the client's config file (other servers are kept)"))
  },
  (flags) =>
    Effect.gen(function* () {
      const workspace = workspaceOf(flags.cwd)
      const env: ClientConfig.Environment = {
        platform: process.platform,
        home: process.env["HOME"] ?? process.env["USERPROFILE"] ?? "",
        appData: process.env["APPDATA"]
      }
      if (!flags.write) return yield* Console.log(ClientConfig.snippet(flags.client, workspace, env))
      const target = ClientConfig.target(flags.client, workspace, env)
      const existing = yield* Effect.try({
        try: () => (fs.existsSync(target.file) ? fs.readFileSync(target.file, "utf8") : undefined),
        catch: (cause) => usage(`cannot read ${target.file}: ${String(cause)}`)
      })
      const merged = yield* Either.match(ClientConfig.merge(existing, target), {
        onLeft: (reason) => Effect.fail(usage(reason)),
        onRight: Effect.succeed
      })
      yield* Effect.try({
        try: () => {
          fs.mkdirSync(path.dirname(target.file), { recursive: true })
          const tmp = `${target.file}.${process.pid}.minicode-tmp`
          fs.writeFileSync(tmp, merged, { mode: 0o600 })
          fs.renameSync(tmp, target.file)
        },
        catch: (cause) => usage(`cannot write ${target.file}: ${String(cause)}`)
      })
      yield* Console.log(`${existing === undefined ? "created" : "updated"} ${target.file}: mcp server "${ClientConfig.serverName}" → ${[ClientConfig.entry(workspace).command, ...ClientConfig.entry(workspace).args].join(" ")}`)
    })
).pipe(Command.withDescription("Print (or --write) what registers `minicode mcp serve` with an MCP client"))

export const mcp = Command.make("mcp").pipe(
  Command.withDescription("minicode as an MCP server"),
  Command.withSubcommands([serve, config])
)
