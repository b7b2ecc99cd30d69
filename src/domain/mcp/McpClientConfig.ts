/**
 * How each MCP client registers `minicode mcp serve`: the exact command or config snippet, where the client keeps
 * its config file, and a merge that adds or replaces only the `minicode` entry (other servers and settings are
 * kept). What is registered is the command that starts THIS installation (`Launch`, found by the caller): a
 * package name fetched at start-up (`npx -y minicode`) would run whatever the registry holds under that name.
 * Pure: the caller finds the installation and reads and writes files.
 */
import { Either } from "effect"
import * as P from "../jail/PosixPath.js"
import * as Scopes from "./McpScopes.js"
import * as Toml from "./TomlLite.js"

export const clients = ["claude-code", "claude-desktop", "cursor", "vscode", "codex", "gemini", "opencode", "windsurf", "zed"] as const
export type Client = (typeof clients)[number]

export const serverName = "minicode"

export interface Environment {
  readonly platform: string
  readonly home: string
  /** %APPDATA% on Windows. */
  readonly appData?: string | undefined
  /** $CODEX_HOME (Codex's config folder; default ~/.codex). */
  readonly codexHome?: string | undefined
  /** $XDG_CONFIG_HOME (Zed's config folder on Linux; default ~/.config). */
  readonly xdgConfigHome?: string | undefined
}

/** The command that starts this installation, before `mcp serve`: `node [flags] /abs/dist/bin.js`, or `/abs/bin/minicode`. */
export interface Launch {
  readonly command: string
  readonly args: ReadonlyArray<string>
  /** `mcp serve` flags the entry carries after `--cwd DIR` (`--no-ask`, `--scope git=write`…): `serveFlags` makes them. */
  readonly serveFlags?: ReadonlyArray<string> | undefined
}

/** The common choices of an `mcp serve` session, as `mcp config --for …` takes them. */
export interface ServeChoices {
  readonly ask: boolean
  readonly noAsk: boolean
  readonly allowAll: boolean
  readonly allTools: boolean
  readonly scope: ReadonlyArray<string>
  readonly sandbox: "auto" | "bwrap" | "none" | undefined
}

/**
 * The `mcp serve` flags that carry `choices`, in one canonical order, or why they do not go together (`--ask` with
 * `--no-ask`; a scope `mcp serve` would refuse, judged by the same parser). `--allow-all` with `--ask` is refused too:
 * allow-all answers every ask, so `--ask` would say something untrue.
 */
export const serveFlags = (choices: ServeChoices): Either.Either<ReadonlyArray<string>, string> => {
  if (choices.ask && choices.noAsk) return Either.left("--ask and --no-ask contradict each other: pass one of them")
  if (choices.ask && choices.allowAll) return Either.left("--ask and --allow-all contradict each other (allow-all answers every ask): pass one of them")
  const parsed = Scopes.parse(choices.scope, { allowAll: choices.allowAll, allTools: choices.allTools })
  if (Either.isLeft(parsed)) return Either.left(parsed.left)
  return Either.right([
    ...(choices.allowAll ? ["--allow-all"] : []),
    ...(choices.ask ? ["--ask"] : []),
    ...(choices.noAsk ? ["--no-ask"] : []),
    ...(choices.allTools ? ["--all-tools"] : []),
    ...choices.scope.flatMap((s) => ["--scope", s.trim().toLowerCase()]),
    ...(choices.sandbox === undefined ? [] : ["--sandbox", choices.sandbox])
  ])
}

/** What the caller found out about the running installation. */
export interface Install {
  /** The running Node executable (absolute). */
  readonly execPath: string
  /** The entry script this process runs, symlinks resolved (absolute). */
  readonly script: string
  /** The entry script's first line (its shebang carries the V8 flags the executable runs with). */
  readonly shebang: string
  /** The first `minicode` on PATH (absolute), when it resolves to this very script; else undefined. */
  readonly onPath: string | undefined
}

/**
 * The V8 flags of a `#!/usr/bin/env -S [VAR=V…] node --flag…` shebang, so `node script` runs as the executable
 * does. Only plain `--name` / `--name=value` words are taken; anything else ends the list.
 */
export const shebangNodeFlags = (shebang: string): ReadonlyArray<string> => {
  if (!shebang.startsWith("#!")) return []
  const words = shebang.slice(2).trim().split(/\s+/)
  const at = words.findIndex((w) => w === "node" || w.endsWith("/node"))
  if (at < 0) return []
  const flags: Array<string> = []
  for (const w of words.slice(at + 1)) {
    if (!/^--[a-z0-9-]+(=[A-Za-z0-9._-]+)?$/.test(w)) break
    flags.push(w)
  }
  return flags
}

/** `minicode` on PATH when it is this installation (it then keeps working across reinstalls), else node + script. */
export const launch = (install: Install): Launch =>
  install.onPath !== undefined
    ? { command: install.onPath, args: [] }
    : { command: install.execPath, args: [...shebangNodeFlags(install.shebang), install.script] }

/**
 * What `--write` puts in a project file, which is shared with the repository: `minicode` by name when the
 * `minicode` on PATH is this installation (another machine's PATH finds its own), else what `launch` gives.
 */
export const portableLaunch = (install: Install): Launch =>
  install.onPath !== undefined ? { command: serverName, args: [] } : launch(install)

/**
 * The paths in an entry that hold only on this machine (absolute ones: the Node executable, the script, `--cwd`),
 * each named for a person; empty when the entry would start the same thing anywhere.
 */
const absolute = (p: string) => p.startsWith("/") || /^[A-Za-z]:[\\/]/.test(p)

export const machineLocal = (e: ServerEntry): ReadonlyArray<string> => {
  const cwdAt = e.args.indexOf("--cwd")
  return [
    ...(absolute(e.command) ? [`the command ${e.command}`] : []),
    ...e.args.filter((a, i) => absolute(a) && i !== cwdAt + 1).map((a) => `the script ${a}`),
    ...(cwdAt >= 0 && absolute(e.args[cwdAt + 1] ?? "") ? [`the workspace ${e.args[cwdAt + 1]}`] : [])
  ]
}

export interface ServerEntry {
  readonly command: string
  readonly args: ReadonlyArray<string>
}

/** The process a client starts: this installation's `mcp serve --cwd DIR`. */
export const entry = (start: Launch, workspace: string): ServerEntry => ({
  command: start.command,
  args: [...start.args, "mcp", "serve", "--cwd", workspace, ...(start.serveFlags ?? [])]
})

interface TargetBase {
  /** The file `--write` merges into. */
  readonly file: string
  /** A project file is shared with the repository (created 644); a user file is private (created 600). */
  readonly scope: "project" | "user"
}

export interface JsonTarget extends TargetBase {
  readonly format: "json"
  /** The top-level key holding the servers (`mcpServers`, `servers`, `mcp`, `context_servers`). */
  readonly key: string
  /** The value stored under `key.minicode`. */
  readonly value: Readonly<Record<string, unknown>>
  /** Top-level fields a new file starts with (opencode's `$schema`). */
  readonly seed: Readonly<Record<string, unknown>>
}

export interface TomlTarget extends TargetBase {
  readonly format: "toml"
  /** The table holding the entry (`mcp_servers.minicode`). */
  readonly table: ReadonlyArray<string>
  readonly entry: ServerEntry
}

export type Target = JsonTarget | TomlTarget

/** `~/rel` on POSIX, `%APPDATA%\win` (or `~\win` when `win` starts with `~`) on Windows. */
const userFile = (env: Environment, posix: string, win: string): string => {
  if (env.platform !== "win32") return P.join(env.home, posix)
  return win.startsWith("~\\") ? `${env.home}${win.slice(1)}` : `${env.appData ?? `${env.home}\\AppData\\Roaming`}\\${win}`
}

const json = (file: string, scope: "project" | "user", key: string, value: Readonly<Record<string, unknown>>, seed = {}): JsonTarget => ({
  format: "json",
  file,
  scope,
  key,
  value,
  seed
})

export const target = (client: Client, start: Launch, workspace: string, env: Environment): Target => {
  const e = entry(start, workspace)
  const std = { command: e.command, args: [...e.args] }
  switch (client) {
    case "claude-code":
      return json(P.join(workspace, ".mcp.json"), "project", "mcpServers", { type: "stdio", ...std })
    case "claude-desktop": {
      const file =
        env.platform === "darwin"
          ? P.join(env.home, "Library/Application Support/Claude/claude_desktop_config.json")
          : userFile(env, ".config/Claude/claude_desktop_config.json", "Claude\\claude_desktop_config.json")
      return json(file, "user", "mcpServers", std)
    }
    case "cursor":
      return json(P.join(workspace, ".cursor/mcp.json"), "project", "mcpServers", std)
    case "vscode":
      return json(P.join(workspace, ".vscode/mcp.json"), "project", "servers", { type: "stdio", ...std })
    case "codex": {
      const home = env.codexHome !== undefined && env.codexHome !== "" ? env.codexHome : undefined
      const file = home !== undefined ? (env.platform === "win32" ? `${home}\\config.toml` : P.join(home, "config.toml")) : userFile(env, ".codex/config.toml", "~\\.codex\\config.toml")
      return { format: "toml", file, scope: "user", table: ["mcp_servers", serverName], entry: e }
    }
    case "gemini":
      return json(P.join(workspace, ".gemini/settings.json"), "project", "mcpServers", std)
    case "opencode":
      return json(P.join(workspace, "opencode.json"), "project", "mcp", { type: "local", command: [e.command, ...e.args], enabled: true }, { $schema: "https://opencode.ai/config.json" })
    case "windsurf":
      return json(userFile(env, ".codeium/windsurf/mcp_config.json", "~\\.codeium\\windsurf\\mcp_config.json"), "user", "mcpServers", std)
    case "zed": {
      const xdg = env.xdgConfigHome !== undefined && env.xdgConfigHome.startsWith("/") && env.platform === "linux" ? env.xdgConfigHome : undefined
      const file = xdg !== undefined ? P.join(xdg, "zed/settings.json") : userFile(env, ".config/zed/settings.json", "Zed\\settings.json")
      return json(file, "user", "context_servers", std)
    }
  }
}

const shellQuote = (word: string) => (/^[A-Za-z0-9_./:=@%+-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`)

/** The TOML table for Codex: `[mcp_servers.minicode]` with `command` and `args`. */
export const tomlTable = (t: TomlTarget): string =>
  [`[${Toml.dottedKey(t.table)}]`, `command = ${Toml.string(t.entry.command)}`, `args = ${Toml.stringArray(t.entry.args)}`, ""].join("\n")

const jsonBody = (t: JsonTarget) => JSON.stringify({ ...t.seed, [t.key]: { [serverName]: t.value } }, null, 2)

/** The comment line on the session's choices: the ones the entry carries, or the flags that would add them. */
const choicesLine = (flags: ReadonlyArray<string>): string =>
  flags.length > 0
    ? `# The session's choices, carried as mcp serve flags in the entry: ${flags.join(" ")}`
    : "# Session choices (add them to this command; the entry then carries them): --no-ask, --ask, --allow-all, --scope NAME=LEVEL (e.g. git=write), --all-tools, --sandbox MODE"

/**
 * What `mcp config --for CLIENT` prints: `#` comment lines saying where it goes, then the command to run
 * (claude-code) or the config to paste (JSON, or TOML for Codex: the whole output is then a valid TOML file).
 */
export const snippet = (client: Client, start: Launch, workspace: string, env: Environment): string => {
  const t = target(client, start, workspace, env)
  const choices = choicesLine(start.serveFlags ?? [])
  if (t.format === "toml") return [`# Add to ${t.file} (or pass --write), then restart Codex:`, choices, tomlTable(t)].join("\n").trimEnd()
  const e = entry(start, workspace)
  const body = jsonBody(t)
  switch (client) {
    case "claude-code":
      return [
        "# Run once (add --scope project to share it through .mcp.json, or pass --write here to write that file):",
        choices,
        `claude mcp add ${serverName} -- ${[e.command, ...e.args].map(shellQuote).join(" ")}`
      ].join("\n")
    case "claude-desktop":
      return [`# Merge into ${t.file} (or pass --write), then restart Claude Desktop:`, choices, body].join("\n")
    case "cursor":
      return [`# Merge into ${t.file} (project) or ~/.cursor/mcp.json (global), or pass --write:`, choices, body].join("\n")
    case "gemini":
      return [`# Merge into ${t.file} (project) or ~/.gemini/settings.json (all projects), or pass --write:`, choices, body].join("\n")
    case "opencode":
      return [`# Merge into ${t.file} (project) or ~/.config/opencode/opencode.json (global), or pass --write:`, choices, body].join("\n")
    case "windsurf":
      return [`# Merge into ${t.file} (or pass --write), then refresh Windsurf's MCP servers:`, choices, body].join("\n")
    case "zed":
      return [`# Merge into ${t.file} (or pass --write; a settings file with comments must be edited by hand):`, choices, body].join("\n")
    default:
      return [`# Merge into ${t.file} (or pass --write):`, choices, body].join("\n")
  }
}

const isRecord = (u: unknown): u is Readonly<Record<string, unknown>> => typeof u === "object" && u !== null && !Array.isArray(u)

const mergeJson = (existing: string | undefined, t: JsonTarget): Either.Either<string, string> => {
  const fresh = existing === undefined || existing.trim() === ""
  let parsed: unknown = {}
  if (!fresh) {
    try {
      parsed = JSON.parse(existing)
    } catch {
      return Either.left(`${t.file} is not valid JSON (comments are not supported); not touching it. Paste this by hand:\n${jsonBody(t)}`)
    }
  }
  if (!isRecord(parsed)) return Either.left(`${t.file} does not hold a JSON object; not touching it`)
  const servers = parsed[t.key] ?? {}
  if (!isRecord(servers)) return Either.left(`${t.file}: "${t.key}" is not an object; not touching it`)
  const merged = { ...(fresh ? t.seed : {}), ...parsed, [t.key]: { ...servers, [serverName]: t.value } }
  return Either.right(`${JSON.stringify(merged, null, 2)}\n`)
}

const startsWith = (path: ReadonlyArray<string>, prefix: ReadonlyArray<string>) => prefix.every((p, k) => path[k] === p)

/**
 * Adds `[mcp_servers.minicode]` at the end of a TOML file, or replaces that table (and its sub-tables) where it
 * is; every other byte stays. Refuses a file it cannot read, and an entry defined some other way (dotted keys, an
 * inline table, an array of tables), saying what to paste instead.
 */
const mergeToml = (existing: string | undefined, t: TomlTarget): Either.Either<string, string> => {
  const table = tomlTable(t)
  const byHand = `Replace it by hand with:\n${table}`
  const text = existing ?? ""
  return Either.flatMap(
    Either.mapLeft(Toml.statements(text), (reason) => `${t.file} is not TOML this command can edit (${reason}); not touching it. ${byHand}`),
    (statements) => {
      const parent = t.table.slice(0, -1)
      const cuts: Array<readonly [number, number]> = []
      let inOurs = false
      for (const [k, s] of statements.entries()) {
        if (s.kind !== "key") inOurs = s.kind === "table" && startsWith(s.path, t.table)
        const ours = startsWith(s.path, t.table)
        if (s.kind === "array-table" && (ours || (s.path.length === parent.length && startsWith(s.path, parent))))
          return Either.left(`${t.file} declares [[${Toml.dottedKey(s.path)}]], which Codex does not read; not touching it. ${byHand}`)
        if (s.kind === "key" && s.path.length <= t.table.length && startsWith(t.table, s.path))
          return Either.left(`${t.file} sets ${Toml.dottedKey(s.path)} as a value (an inline table); not touching it. ${byHand}`)
        if (s.kind === "key" && ours && !inOurs)
          return Either.left(`${t.file} sets ${Toml.dottedKey(s.path)} with a dotted key; not touching it. ${byHand}`)
        if (s.kind === "table" && ours) {
          const next = statements.slice(k + 1).find((o) => o.kind !== "key")
          cuts.push([s.lineStart, next?.lineStart ?? text.length])
        }
      }
      let kept = text
      for (const [from, to] of cuts.reverse()) kept = kept.slice(0, from) + kept.slice(to)
      const trimmed = kept.trimEnd()
      const merged = `${trimmed === "" ? "" : `${trimmed}\n\n`}${table}`
      // Checked again as a whole: what is written must read back, with the entry defined exactly once.
      return Either.flatMap(
        Either.mapLeft(Toml.statements(merged), (reason) => `merging into ${t.file} would not give valid TOML (${reason}); not touching it. ${byHand}`),
        (after) =>
          after.filter((s) => s.kind === "table" && s.path.length === t.table.length && startsWith(s.path, t.table)).length === 1
            ? Either.right(merged)
            : Either.left(`${t.file}: could not place [${Toml.dottedKey(t.table)}] exactly once; not touching it. ${byHand}`)
      )
    }
  )
}

/**
 * The new text of the target's config file with the `minicode` entry added or replaced (existing undefined: no
 * file yet). Refuses what it does not understand (not a JSON object, comments, TOML it cannot edit) rather than
 * overwrite it.
 */
export const merge = (existing: string | undefined, t: Target): Either.Either<string, string> =>
  t.format === "json" ? mergeJson(existing, t) : mergeToml(existing, t)
