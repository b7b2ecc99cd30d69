/**
 * `minicode config mcp add|list|remove`: MCP server entries in the global config (default) or the workspace's
 * `.minicode/config.json` (`--local`, used only with `--allow-local-config`). Other keys of the file are kept.
 * Header and env values are stored (file mode 0600) but never printed.
 */
import * as fs from "node:fs"
import { lspConfig } from "./LspCommands.js"
import { sqlConfig } from "./SqlCommands.js"
import { Args, Command, Options } from "@effect/cli"
import { Console, Effect, Either, Option } from "effect"
import * as CliLayers from "../app/CliLayers.js"
import type { ServerEntry } from "../domain/core/Config.js"
import * as McpServers from "../domain/mcp/McpServers.js"
import * as Shared from "./ConfigFile.js"

const id = Args.text({ name: "ID" }).pipe(Args.withDescription("Server id: letters, digits, _ and - (not first); no dots"))

const { usage, cwd, global, local, allowLocalConfig, workspaceOf, fileFor, readRaw, writeRaw, check } = Shared
const json = Shared.json("values")
const servers = (raw: Record<string, unknown>) => Shared.section(raw, "mcpServers")

const add = Command.make(
  "add",
  {
    id,
    cwd,
    global,
    local,
    json: Shared.json("values"),
    command: Options.text("command").pipe(Options.withDescription("Program to spawn (stdio server)"), Options.optional),
    args: Options.text("args").pipe(Options.withDescription("Its arguments, comma-separated: --args \"-y,pkg,.\""), Options.optional),
    arg: Options.text("arg").pipe(Options.withDescription("One argument verbatim (repeatable; for arguments with a comma)"), Options.repeated),
    env: Options.text("env").pipe(Options.withDescription("K=V for the server's environment (repeatable)"), Options.repeated),
    url: Options.text("url").pipe(Options.withDescription("Streamable HTTP endpoint (HTTP server)"), Options.optional),
    header: Options.text("header").pipe(Options.withDescription("K=V HTTP header (repeatable; stored, never printed)"), Options.repeated),
    timeout: Options.integer("timeout").pipe(Options.withDescription("A call's time-out in seconds (default 120), reset whenever the server reports progress"), Options.optional),
    allowPrivate: Options.boolean("allow-private").pipe(Options.withDescription("Allow loopback/private addresses for this server only")),
    sandbox: Options.boolean("sandbox").pipe(
      Options.withDescription("Run this stdio server in a bubblewrap sandbox (workspace read-only, secrets masked, no network)")
    )
  },
  (flags) =>
    Effect.gen(function* () {
      const serverId = yield* check(McpServers.validateId(flags.id))
      const file = yield* fileFor(workspaceOf(flags.cwd), flags)
      const command = Option.getOrUndefined(flags.command)
      const url = Option.getOrUndefined(flags.url)
      if ((command === undefined) === (url === undefined)) return yield* usage("give exactly one of --command (stdio) or --url (HTTP)")
      const timeout = Option.getOrUndefined(flags.timeout)
      if (timeout !== undefined && (timeout < 1 || timeout > 86_400)) return yield* usage("--timeout is in seconds: 1 to 86400")
      const timed = timeout === undefined ? {} : { timeout }
      let entry: ServerEntry
      if (command !== undefined) {
        if (flags.header.length > 0 || flags.allowPrivate) return yield* usage("--header and --allow-private apply to --url servers")
        if (command.trim() === "") return yield* usage("--command is empty")
        const env = yield* check(McpServers.parsePairs("env", flags.env))
        const args = McpServers.argvOf(Option.getOrUndefined(flags.args), flags.arg)
        entry = {
          command,
          ...(args.length > 0 ? { args } : {}),
          ...(Object.keys(env).length > 0 ? { env } : {}),
          ...(flags.sandbox ? { sandbox: true } : {}),
          ...timed
        }
      } else {
        if (Option.isSome(flags.args) || flags.arg.length > 0 || flags.env.length > 0 || flags.sandbox) {
          return yield* usage("--args, --arg, --env and --sandbox apply to --command servers")
        }
        const parsed = CliLayers.urlTarget(url ?? "")
        if (Either.isLeft(parsed)) return yield* usage(`--url: ${parsed.left.reason}`)
        const headers = yield* check(McpServers.parsePairs("header", flags.header))
        entry = { url: parsed.right.url.href, ...(Object.keys(headers).length > 0 ? { headers } : {}), ...(flags.allowPrivate ? { allowPrivate: true } : {}), ...timed }
      }
      const raw = yield* readRaw(file)
      const existing = servers(raw)
      const replaced = Object.hasOwn(existing, serverId)
      yield* writeRaw(file, { ...raw, mcpServers: { ...existing, [serverId]: entry } })
      yield* Shared.told(
        flags.json,
        `${replaced ? "replaced" : "added"} ${McpServers.describe(serverId, entry)}\n  in ${file}${flags.local ? " (used only with --allow-local-config)" : ""}`,
        { action: replaced ? "replaced" : "added", id: serverId, file, entry: Shared.maskedEntry(entry) }
      )
    })
).pipe(Command.withDescription("Add (or replace) an MCP server: --command CMD [--args A,B] [--arg A]... [--env K=V]... | --url URL [--header K=V]... [--allow-private] [--timeout SECONDS]"))

/**
 * Whether a server runs confined: a stdio server only with `--sandbox` (opt-in: many need the network and the
 * user's home), else with the user's rights; an HTTP server is no process of ours.
 */
const sandboxing = (entry: ServerEntry): string =>
  entry.url !== undefined ? "remote (HTTP)" : entry.sandbox === true ? "sandboxed (--sandbox)" : "not sandboxed: runs with your rights"

const list = Command.make("list", { cwd, json, allowLocalConfig }, (flags) =>
  Effect.gen(function* () {
    const trusted = CliLayers.localTrusted(flags.allowLocalConfig)
    const rows = yield* Shared.layered(workspaceOf(flags.cwd), trusted, (c) => c.mcpServers)
    if (flags.json) {
      return yield* Console.log(
        JSON.stringify(rows.map((r) => ({ id: r.key, scope: r.scope, used: r.used, sandbox: sandboxing(r.entry), entry: Shared.maskedEntry(r.entry), summary: McpServers.describe(r.key, r.entry) })))
      )
    }
    if (rows.length === 0) return yield* Console.log("no MCP servers configured (minicode config mcp add ID --command CMD | --url URL)")
    for (const r of rows) yield* Console.log(`${McpServers.describe(r.key, r.entry)} [${r.scope}; ${sandboxing(r.entry)}]${Shared.rowNote(r)}`)
  })
).pipe(Command.withDescription("List configured MCP servers (header and env values masked), each sandboxed or not"))

const remove = Command.make("remove", { id, cwd, global, local, json: Shared.json("values") }, (flags) =>
  Effect.gen(function* () {
    const file = yield* fileFor(workspaceOf(flags.cwd), flags)
    const raw = yield* readRaw(file)
    const existing = servers(raw)
    if (!Object.hasOwn(existing, flags.id)) return yield* usage(`no MCP server "${flags.id}" in ${file}`)
    const { [flags.id]: _removed, ...rest } = existing
    yield* writeRaw(file, { ...raw, mcpServers: rest })
    yield* Shared.told(flags.json, `removed ${flags.id} from ${file}`, { action: "removed", id: flags.id, file })
  })
).pipe(Command.withDescription("Remove an MCP server"))

/** The entry `id` as the session would use it (a trusted local entry overrides the global one). */
const entryOf = (serverId: string, dir: Option.Option<string>, allowLocal: boolean) =>
  Effect.gen(function* () {
    const rows = yield* Shared.layered(workspaceOf(dir), CliLayers.localTrusted(allowLocal), (c) => c.mcpServers)
    const row = rows.find((r) => r.key === serverId && r.used)
    if (row === undefined) return yield* usage(`no MCP server "${serverId}" is configured (minicode config mcp list)`)
    return row.entry
  })

const login = Command.make(
  "login",
  {
    id,
    cwd,
    allowLocalConfig,
    clientId: Options.text("client-id").pipe(Options.withDescription("A pre-registered OAuth client id (default: dynamic client registration)"), Options.optional),
    clientSecret: Options.text("client-secret").pipe(Options.withDescription("Its secret, for a confidential pre-registered client (stored, never printed)"), Options.optional),
    scope: Options.text("scope").pipe(Options.withDescription("Scopes to ask for (default: what a session was last refused for, else what the server advertises)"), Options.optional),
    clientCredentials: Options.boolean("client-credentials").pipe(
      Options.withDescription("Machine-to-machine: the client_credentials grant with --client-id and --client-secret (or --private-key-file), no browser")
    ),
    privateKeyFile: Options.text("private-key-file").pipe(
      Options.withDescription("With --client-credentials: a PKCS#8 PEM key to sign the client's assertion (private_key_jwt); its path is kept, not the key"),
      Options.optional
    ),
    signingAlg: Options.text("signing-alg").pipe(Options.withDescription("The assertion's algorithm (default ES256)"), Options.optional),
    clientMetadataUrl: Options.text("client-metadata-url").pipe(
      Options.withDescription("An HTTPS Client ID Metadata Document URL, used as the client id where the authorization server supports it"),
      Options.optional
    )
  },
  (flags) =>
    Effect.gen(function* () {
      const entry = yield* entryOf(flags.id, flags.cwd, flags.allowLocalConfig)
      const extra = {
        ...Option.match(flags.clientId, { onNone: () => ({}), onSome: (clientId) => ({ clientId }) }),
        ...Option.match(flags.clientSecret, { onNone: () => ({}), onSome: (clientSecret) => ({ clientSecret }) }),
        ...Option.match(flags.scope, { onNone: () => ({}), onSome: (scope) => ({ scope }) }),
        ...Option.match(flags.clientMetadataUrl, { onNone: () => ({}), onSome: (clientMetadataUrl) => ({ clientMetadataUrl }) }),
        ...Option.match(flags.privateKeyFile, { onNone: () => ({}), onSome: (privateKeyFile) => ({ privateKeyFile }) }),
        ...Option.match(flags.signingAlg, { onNone: () => ({}), onSome: (signingAlg) => ({ signingAlg }) }),
        ...(flags.clientCredentials ? { clientCredentials: true } : {})
      }
      if (flags.clientCredentials && (Option.isNone(flags.clientId) || Option.isNone(flags.clientSecret) === Option.isNone(flags.privateKeyFile))) {
        return yield* usage("--client-credentials needs --client-id and one of --client-secret or --private-key-file")
      }
      if (!flags.clientCredentials && (Option.isSome(flags.privateKeyFile) || Option.isSome(flags.signingAlg))) return yield* usage("--private-key-file and --signing-alg go with --client-credentials")
      const done = yield* CliLayers.mcpLogin(flags.id, entry, extra)
      yield* Console.log(`${done === "already" ? "already signed in to" : "signed in to"} ${flags.id}; tokens kept in ${CliLayers.mcpAuthFile(flags.id)} (mode 600)`)
    })
).pipe(Command.withDescription("Sign in to an HTTP MCP server (OAuth): prints the URL, opens a browser ($BROWSER), waits for the redirect on 127.0.0.1"))

const logout = Command.make("logout", { id }, (flags) =>
  Effect.gen(function* () {
    const file = CliLayers.mcpAuthFile(flags.id)
    const had = yield* Effect.try({ try: () => fs.existsSync(file) && (fs.rmSync(file, { force: true }), true), catch: (cause) => usage(`cannot remove ${file}: ${String(cause)}`) })
    yield* Console.log(had ? `signed out of ${flags.id}: its tokens are forgotten` : `${flags.id} was not signed in`)
  })
).pipe(Command.withDescription("Forget the tokens of an HTTP MCP server"))

const mcp = Command.make("mcp").pipe(Command.withDescription("MCP servers minicode connects to"), Command.withSubcommands([add, list, remove, login, logout]))

export const config = Command.make("config").pipe(
  Command.withDescription("Edit minicode's configuration"),
  Command.withSubcommands([mcp, sqlConfig, lspConfig])
)
