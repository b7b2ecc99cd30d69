/**
 * `minicode mcp serve` and `minicode mcp config`. The serve handler loads the server (and through it the MCP SDK)
 * with a dynamic import, so every other command starts without it.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { Command, Options } from "@effect/cli"
import { Console, Effect, Either, Option } from "effect"
import { UsageError } from "../domain/core/Errors.js"
import * as ClientConfig from "../domain/mcp/McpClientConfig.js"
import * as Guide from "../domain/mcp/McpGuide.js"
import * as ServeMain from "../app/ServeLayers.js"
import * as ThisInstall from "./ThisInstall.js"


const usage = (reason: string) => new UsageError({ reason })

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
    allowLocalConfig: Options.boolean("allow-local-config").pipe(Options.withDescription("Trust .minicode/config.json in the workspace")),
    ask: Options.boolean("ask").pipe(Options.withDescription("Every mutation asks the user through the client (default: with a client that supports elicitation, each bash command asks, file edits do not)")),
    noAsk: Options.boolean("no-ask").pipe(Options.withDescription("Only gated tools, network and guard asks ask the user; file edits and bash run")),
    askTimeout: Options.integer("ask-timeout").pipe(
      Options.withDescription("Seconds the user has to answer an ask before it is a deny (default 120)"),
      Options.optional
    )
  },
  (flags) =>
    ServeMain.run({
      cwd: Option.getOrUndefined(flags.cwd),
      allowAll: flags.allowAll,
      allTools: flags.allTools,
      scope: flags.scope,
      sandbox: Option.getOrUndefined(flags.sandbox),
      allowLocalConfig: flags.allowLocalConfig,
      ask: flags.ask ? true : flags.noAsk ? false : undefined,
      askTimeoutMs: Option.getOrUndefined(Option.map(flags.askTimeout, (s) => s * 1000))
    })
).pipe(Command.withDescription("Serve minicode's tools over MCP (stdio only): every call goes through the whole chain"))

/** The mode a merged file keeps: the existing file's, else 644 for a project file (shared) and 600 for a user file. */
const modeFor = (target: ClientConfig.Target, existing: fs.Stats | undefined) =>
  existing !== undefined ? existing.mode & 0o777 : target.scope === "project" ? 0o644 : 0o600

/**
 * Where `--write` really writes `target.file`: where a symlinked file points (a user's dotfiles stay links), else
 * the file under its nearest existing folder, links resolved. A project file must stay in the workspace: a link
 * planted in a repository (`.cursor/mcp.json -> ~/somewhere.json`) is refused, not followed out. A link to
 * nothing, and anything but a regular file, is refused too.
 */
const placeOf = (target: ClientConfig.Target, workspace: string): Either.Either<string, string> => {
  const file = target.file
  let real: string
  if (fs.existsSync(file)) {
    real = fs.realpathSync(file)
    // A FIFO would hang the read, a device or folder is no config file.
    if (!fs.statSync(real).isFile()) return Either.left(`${file} is not a regular file; not touching it`)
  } else if (fs.lstatSync(file, { throwIfNoEntry: false })?.isSymbolicLink() === true) return Either.left(`${file} is a link to nothing; not touching it`)
  else {
    let dir = path.dirname(file)
    const rest = [path.basename(file)]
    while (!fs.existsSync(dir) && path.dirname(dir) !== dir) {
      if (fs.lstatSync(dir, { throwIfNoEntry: false })?.isSymbolicLink() === true) return Either.left(`${dir} is a link to nothing; not touching it`)
      rest.unshift(path.basename(dir))
      dir = path.dirname(dir)
    }
    real = path.join(fs.realpathSync(dir), ...rest)
  }
  if (target.scope === "project") {
    const rel = path.relative(fs.realpathSync(workspace), real)
    if (rel === "" || rel.startsWith("..") || path.isAbsolute(rel)) return Either.left(`${file} leads outside the workspace (to ${real}); not following it`)
  }
  return Either.right(real)
}

/**
 * Replaces `real` with `text` atomically: a temporary file beside it (created exclusively, so a planted link is
 * never followed), given the mode explicitly (the umask does not apply), then renamed over it.
 */
const writeAtomically = (real: string, text: string, mode: number) => {
  fs.mkdirSync(path.dirname(real), { recursive: true })
  const tmp = `${real}.${process.pid}.minicode-tmp`
  try {
    fs.writeFileSync(tmp, text, { mode, flag: "wx" })
    fs.chmodSync(tmp, mode)
    fs.renameSync(tmp, real)
  } catch (cause) {
    fs.rmSync(tmp, { force: true })
    throw cause
  }
}

const config = Command.make(
  "config",
  {
    cwd,
    client: Options.choice("for", ClientConfig.clients).pipe(Options.withDescription(`The MCP client to register minicode with: ${ClientConfig.clients.join(", ")}`)),
    write: Options.boolean("write").pipe(Options.withDescription("Merge the entry into the client's config file (other servers are kept)")),
    // The common choices of a session, carried into the entry as `mcp serve` flags (the printed line shows them).
    ask: Options.boolean("ask").pipe(Options.withDescription("The session asks before every change (file edits too), not only before bash and gated tools")),
    noAsk: Options.boolean("no-ask").pipe(Options.withDescription("The session runs file edits and bash without asking; only gated tools and bash's network ask")),
    allowAll: Options.boolean("allow-all").pipe(Options.withDescription("The session asks nothing: gated tools (git_commit, git_push…) run too; jail, guard and validation still apply")),
    allTools: Options.boolean("all-tools").pipe(Options.withDescription("The session also exposes the mcp scope (MCP client tools)")),
    scope: Options.text("scope").pipe(
      Options.withDescription("NAME=off|read|write for the session's scopes (files, search, shell, git, lsp, sql; mcp with --all-tools), e.g. git=write; repeatable"),
      Options.repeated
    ),
    sandbox: Options.choice("sandbox", ["auto", "bwrap", "none"]).pipe(Options.withDescription("The session's bash sandbox: auto (default), bwrap (or refuse bash), none"), Options.optional)
  },
  (flags) =>
    Effect.gen(function* () {
      const workspace = workspaceOf(flags.cwd)
      const env: ClientConfig.Environment = {
        platform: process.platform,
        home: process.env["HOME"] ?? process.env["USERPROFILE"] ?? "",
        appData: process.env["APPDATA"],
        codexHome: process.env["CODEX_HOME"],
        xdgConfigHome: process.env["XDG_CONFIG_HOME"]
      }
      const flagsOfServe = yield* Either.match(
        ClientConfig.serveFlags({ ask: flags.ask, noAsk: flags.noAsk, allowAll: flags.allowAll, allTools: flags.allTools, scope: flags.scope, sandbox: Option.getOrUndefined(flags.sandbox) }),
        { onLeft: (reason) => Effect.fail(usage(reason)), onRight: Effect.succeed }
      )
      const install = yield* ThisInstall.find
      const start = { ...ClientConfig.launch(install), serveFlags: flagsOfServe }
      if (!flags.write) return yield* Console.log(ClientConfig.snippet(flags.client, start, workspace, env))
      // A project file is shared with the repository: `minicode` by name when it is on PATH (see portableLaunch).
      const projectFile = ClientConfig.target(flags.client, start, workspace, env).scope === "project"
      const written = projectFile ? { ...ClientConfig.portableLaunch(install), serveFlags: flagsOfServe } : start
      const target = ClientConfig.target(flags.client, written, workspace, env)
      if (target.scope === "user" && !path.isAbsolute(env.home)) return yield* Effect.fail(usage(`cannot tell where ${target.file} is: HOME is not set to an absolute path`))
      const real = yield* Effect.try({
        try: () => placeOf(target, workspace),
        catch: (cause) => usage(`cannot find where ${target.file} is: ${String(cause)}`)
      }).pipe(Effect.flatMap(Either.match({ onLeft: (reason) => Effect.fail(usage(reason)), onRight: Effect.succeed })))
      const existing = yield* Effect.try({
        try: () => (fs.existsSync(real) ? { text: fs.readFileSync(real, "utf8"), stat: fs.statSync(real) } : undefined),
        catch: (cause) => usage(`cannot read ${target.file}: ${String(cause)}`)
      })
      // The same guidance as the server's instructions, where the client reads it: a skill, or a rules file. Its
      // place is judged before anything is written, so a refused one leaves the client's config as it was.
      const companion =
        flags.client === "claude-code"
          ? { file: path.join(workspace, ".claude/skills/minicode/SKILL.md"), text: Guide.skill() }
          : flags.client === "cursor"
            ? { file: path.join(workspace, ".cursor/rules/minicode.mdc"), text: Guide.cursorRules() }
            : undefined
      const companionPlace =
        companion === undefined
          ? undefined
          : yield* Effect.try({
              try: () => placeOf({ ...target, file: companion.file, scope: "project" }, workspace),
              catch: (cause) => usage(`cannot find where ${companion.file} is: ${String(cause)}`)
            }).pipe(Effect.flatMap(Either.match({ onLeft: (reason) => Effect.fail(usage(reason)), onRight: Effect.succeed })))
      const merged = yield* Either.match(ClientConfig.merge(existing?.text, target), {
        onLeft: (reason) => Effect.fail(usage(reason)),
        onRight: Effect.succeed
      })
      yield* Effect.try({
        try: () => writeAtomically(real, merged, modeFor(target, existing?.stat)),
        catch: (cause) => usage(`cannot write ${target.file}: ${String(cause)}`)
      })
      const e = ClientConfig.entry(written, workspace)
      yield* Console.log(`${existing === undefined ? "created" : "updated"} ${target.file}: mcp server "${ClientConfig.serverName}" → ${[e.command, ...e.args].join(" ")}`)
      const local = projectFile ? ClientConfig.machineLocal(e) : []
      if (local.length > 0) {
        const fix = install.onPath === undefined ? "Put minicode on PATH (`npm install -g .` in its clone) and run this again to write the portable command; " : ""
        yield* Console.log(
          `note: ${target.file} is shared with the repository, but ${local.join(", ")} ${local.length === 1 ? "is a path" : "are paths"} of this machine: ` +
            `it works here, not on another machine. ${fix}${fix === "" ? "Each" : "each"} person can run \`minicode mcp config --for ${flags.client} --write\` in their clone, or keep the file out of the repository.`
        )
      }
      if (companion !== undefined && companionPlace !== undefined) {
        const place = companionPlace
        yield* Effect.try({
          try: () => writeAtomically(place, companion.text, 0o644),
          catch: (cause) => usage(`cannot write ${companion.file}: ${String(cause)}`)
        })
        yield* Console.log(`wrote ${companion.file}`)
      }
    })
).pipe(Command.withDescription("Print (or --write) what registers this installation's `minicode mcp serve` with an MCP client"))

export const mcp = Command.make("mcp").pipe(
  Command.withDescription("minicode as an MCP server"),
  Command.withSubcommands([serve, config])
)
