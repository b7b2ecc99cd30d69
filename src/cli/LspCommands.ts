/**
 * `minicode config lsp add|list|remove`: language servers by file extension, in the global config (default) or
 * the workspace's `.minicode/config.json` (`--local`, read only with `--allow-local-config`: a cloned repository
 * must not choose which programs minicode spawns). Other keys of the file are kept; the file is written atomically
 * with mode 0600; env values are stored but never printed.
 *
 *   minicode config lsp add .ts --command typescript-language-server --args --stdio
 *   minicode config lsp add .py --command pyright-langserver --arg --stdio
 *
 * Also `lspDoctor`: what `minicode doctor` reports per configured server (found on PATH, starts and initialises).
 */
import * as fs from "node:fs"
import { Args, Command, Options } from "@effect/cli"
import { Console, Effect, Option } from "effect"
import * as CliLayers from "../app/CliLayers.js"
import * as Config from "../domain/core/Config.js"
import type { ServerEntry } from "../domain/core/Config.js"
import * as Lsp from "../domain/lsp/Lsp.js"
import * as McpServers from "../domain/mcp/McpServers.js"
import * as Shared from "./ConfigFile.js"

const ext = Args.text({ name: "EXT" }).pipe(Args.withDescription("File extension the server handles, such as .ts"))

const { usage, cwd, global, local, allowLocalConfig, workspaceOf, fileFor, readRaw, writeRaw, check } = Shared
const json = Shared.json("env values")
const entries = (raw: Record<string, unknown>) => Shared.section(raw, "lsp")

const add = Command.make(
  "add",
  {
    ext,
    cwd,
    global,
    local,
    json: Shared.json("values"),
    command: Options.text("command").pipe(Options.withDescription("The server program (spawned in the workspace with a scrubbed environment)")),
    args: Options.text("args").pipe(Options.withDescription("Its arguments, comma-separated: --args --stdio"), Options.optional),
    arg: Options.text("arg").pipe(Options.withDescription("One argument verbatim (repeatable; for arguments with a comma)"), Options.repeated),
    env: Options.text("env").pipe(Options.withDescription("K=V for the server's environment (repeatable; stored, never printed)"), Options.repeated),
    timeout: Options.text("timeout").pipe(
      Options.withDescription("NAME=MS, a deadline of this server (repeatable): initialize (30000), request (15000), diagnostics (60000), load (60000), shutdown (2000)"),
      Options.repeated
    ),
    sandbox: Options.boolean("sandbox").pipe(
      Options.withDescription("Require the bubblewrap sandbox (workspace read-only, secrets masked, no network): refuse to start without it")
    ),
    noSandbox: Options.boolean("no-sandbox").pipe(
      Options.withDescription("Run this server on the host, outside the sandbox it gets by default (it then runs workspace code unconfined)")
    )
  },
  (flags) =>
    Effect.gen(function* () {
      const key = yield* check(Lsp.normaliseExtension(flags.ext))
      const file = yield* fileFor(workspaceOf(flags.cwd), flags)
      if (flags.command.trim() === "") return yield* usage("--command is empty")
      if (flags.sandbox && flags.noSandbox) return yield* usage("--sandbox and --no-sandbox contradict each other: give one")
      const env = yield* check(McpServers.parsePairs("env", flags.env))
      const args = McpServers.argvOf(Option.getOrUndefined(flags.args), flags.arg)
      const timeouts = yield* check(Config.parseLspTimeouts(flags.timeout))
      const entry: ServerEntry = {
        command: flags.command,
        ...(args.length > 0 ? { args } : {}),
        ...(Object.keys(env).length > 0 ? { env } : {}),
        ...(flags.sandbox ? { sandbox: true } : flags.noSandbox ? { sandbox: false } : {}),
        ...(Object.keys(timeouts).length > 0 ? { timeouts } : {})
      }
      const raw = yield* readRaw(file)
      const existing = entries(raw)
      const replaced = Object.hasOwn(existing, key)
      yield* writeRaw(file, { ...raw, lsp: { ...existing, [key]: entry } })
      yield* Shared.told(
        flags.json,
        `${replaced ? "replaced" : "added"} ${McpServers.describe(key, entry)}\n  in ${file}${flags.local ? " (used only with --allow-local-config)" : ""}`,
        { action: replaced ? "replaced" : "added", ext: key, file, entry: Shared.maskedEntry(entry) }
      )
    })
).pipe(Command.withDescription("Add (or replace) the language server for a file extension: EXT --command CMD [--args A,B] [--arg A]... [--env K=V]... [--timeout NAME=MS]..."))

/** How a language server entry runs, as `config lsp list` says it. */
const sandboxing = (entry: ServerEntry): string =>
  entry.sandbox === true ? "sandbox required" : entry.sandbox === false ? "not sandboxed (--no-sandbox)" : "sandboxed when bubblewrap is usable"

const list = Command.make("list", { cwd, json, allowLocalConfig }, (flags) =>
  Effect.gen(function* () {
    const trusted = CliLayers.localTrusted(flags.allowLocalConfig)
    const rows = yield* Shared.layered(workspaceOf(flags.cwd), trusted, (c) => c.lsp)
    if (flags.json) {
      return yield* Console.log(
        JSON.stringify(rows.map((r) => ({ ext: r.key, scope: r.scope, used: r.used, sandbox: sandboxing(r.entry), entry: Shared.maskedEntry(r.entry), summary: McpServers.describe(r.key, r.entry) })))
      )
    }
    if (rows.length === 0) return yield* Console.log("no language servers configured (minicode config lsp add .ts --command typescript-language-server --args --stdio)")
    for (const r of rows) yield* Console.log(`${McpServers.describe(r.key, r.entry)} [${r.scope}; ${sandboxing(r.entry)}]${Shared.rowNote(r)}`)
  })
).pipe(Command.withDescription("List the configured language servers (env values masked)"))

const remove = Command.make("remove", { ext, cwd, global, local, json: Shared.json("values") }, (flags) =>
  Effect.gen(function* () {
    const key = yield* check(Lsp.normaliseExtension(flags.ext))
    const file = yield* fileFor(workspaceOf(flags.cwd), flags)
    const raw = yield* readRaw(file)
    const existing = entries(raw)
    if (!Object.hasOwn(existing, key)) return yield* usage(`no language server for ${key} in ${file}`)
    const { [key]: _removed, ...rest } = existing
    yield* writeRaw(file, { ...raw, lsp: rest })
    yield* Shared.told(flags.json, `removed ${key} from ${file}`, { action: "removed", ext: key, file })
  })
).pipe(Command.withDescription("Remove the language server of a file extension"))

/** `lsp` under `minicode config`. */
export const lspConfig = Command.make("lsp").pipe(
  Command.withDescription("Language servers for the lsp_* tools and the diagnostics after write_file/edit_file"),
  Command.withSubcommands([add, list, remove])
)

export interface LspDoctorRow {
  readonly server: string
  readonly command: string
  /** Where the command was found (PATH, or the path it names); null when nowhere. */
  readonly found: string | null
  readonly initialised: boolean
  readonly error: string | null
  readonly millis: number
}

/**
 * For `minicode doctor`: each configured server found on PATH or not, starts and initialises or not (each one is
 * spawned in the workspace as a session would, initialised, then shut down).
 */
export const lspDoctor = (workspace: string, servers: Readonly<Record<string, ServerEntry>>, options: { readonly timeoutMs?: number } = {}) =>
  Effect.gen(function* () {
    const { invalid } = Lsp.groups(servers)
    const root = fs.existsSync(workspace) ? fs.realpathSync(workspace) : workspace
    const Transport = yield* CliLayers.lspProbe
    const probes = yield* Transport.probe({ root, servers, env: process.env, initializeTimeoutMs: options.timeoutMs ?? 15_000 })
    const rows: ReadonlyArray<LspDoctorRow> = probes.map((p) => ({
      server: p.name,
      command: p.command,
      found: p.resolved ?? null,
      initialised: p.initialised,
      error: p.error ?? null,
      millis: p.millis
    }))
    const lines = [
      ...rows.map(
        (r) =>
          `language server ${r.server}: ${r.found === null ? `${r.command} NOT FOUND on PATH` : `found at ${r.found}`}; ${r.initialised ? `starts and initialises (${r.millis} ms)` : `does not start: ${r.error ?? "unknown error"}`}`
      ),
      ...invalid.map((k) => `language server entry "${k}" is invalid: it needs an extension key like .ts and a command`)
    ]
    return { rows, invalid, lines }
  })
