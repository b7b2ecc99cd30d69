/**
 * How each MCP client registers `minicode mcp serve`: the exact command or JSON snippet, where the client keeps
 * its config file, and a merge that adds or replaces only the `minicode` entry (other servers and settings are
 * kept byte for byte in meaning). Pure: the caller reads and writes files.
 */
import { Either } from "effect"
import * as P from "./PosixPath.js"

export const clients = ["claude-code", "claude-desktop", "cursor", "vscode"] as const
export type Client = (typeof clients)[number]

export const serverName = "minicode"

export interface Environment {
  readonly platform: string
  readonly home: string
  /** %APPDATA% on Windows. */
  readonly appData?: string | undefined
}

export interface ServerEntry {
  readonly command: string
  readonly args: ReadonlyArray<string>
}

/** The process a client starts: `npx -y minicode mcp serve --cwd DIR`. */
export const entry = (workspace: string): ServerEntry => ({
  command: "npx",
  args: ["-y", "minicode", "mcp", "serve", "--cwd", workspace]
})

export interface Target {
  /** The file `--write` merges into. */
  readonly file: string
  /** The top-level key holding the servers (`mcpServers`, or `servers` for VS Code). */
  readonly key: "mcpServers" | "servers"
  /** The value stored under `key.minicode`. */
  readonly value: Readonly<Record<string, unknown>>
}

export const target = (client: Client, workspace: string, env: Environment): Target => {
  const e = entry(workspace)
  const std = { command: e.command, args: [...e.args] }
  switch (client) {
    case "claude-code":
      return { file: P.join(workspace, ".mcp.json"), key: "mcpServers", value: { type: "stdio", ...std, env: {} } }
    case "claude-desktop": {
      const file =
        env.platform === "darwin"
          ? P.join(env.home, "Library/Application Support/Claude/claude_desktop_config.json")
          : env.platform === "win32"
            ? `${env.appData ?? `${env.home}\\AppData\\Roaming`}\\Claude\\claude_desktop_config.json`
            : P.join(env.home, ".config/Claude/claude_desktop_config.json")
      return { file, key: "mcpServers", value: std }
    }
    case "cursor":
      return { file: P.join(workspace, ".cursor/mcp.json"), key: "mcpServers", value: std }
    case "vscode":
      return { file: P.join(workspace, ".vscode/mcp.json"), key: "servers", value: { type: "stdio", ...std } }
  }
}

const shellQuote = (word: string) => (/^[A-Za-z0-9_./:=@%+-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`)

/** What `mcp config --for CLIENT` prints: the command to run, or the JSON to paste and where. */
export const snippet = (client: Client, workspace: string, env: Environment): string => {
  const t = target(client, workspace, env)
  const e = entry(workspace)
  const json = JSON.stringify({ [t.key]: { [serverName]: t.value } }, null, 2)
  switch (client) {
    case "claude-code":
      return [
        "# Run once (add --scope project to share it through .mcp.json, or pass --write here to write that file):",
        `claude mcp add ${serverName} -- ${[e.command, ...e.args].map(shellQuote).join(" ")}`
      ].join("\n")
    case "claude-desktop":
      return [`# Merge into ${t.file} (or pass --write), then restart Claude Desktop:`, json].join("\n")
    case "cursor":
      return [`# Merge into ${t.file} (project) or ~/.cursor/mcp.json (global), or pass --write:`, json].join("\n")
    case "vscode":
      return [`# Merge into ${t.file} (or pass --write):`, json].join("\n")
  }
}

const isRecord = (u: unknown): u is Readonly<Record<string, unknown>> => typeof u === "object" && u !== null && !Array.isArray(u)

/**
 * Adds or replaces `key.minicode` in an existing config file's text (undefined: no file yet). Refuses text that is
 * not a JSON object, or whose `key` is not an object, rather than overwrite what it does not understand.
 */
export const merge = (existing: string | undefined, t: Target): Either.Either<string, string> => {
  let parsed: unknown = {}
  if (existing !== undefined && existing.trim() !== "") {
    try {
      parsed = JSON.parse(existing)
    } catch {
      return Either.left(`${t.file} is not valid JSON (comments are not supported); not touching it`)
    }
  }
  if (!isRecord(parsed)) return Either.left(`${t.file} does not hold a JSON object; not touching it`)
  const servers = parsed[t.key] ?? {}
  if (!isRecord(servers)) return Either.left(`${t.file}: "${t.key}" is not an object; not touching it`)
  const merged = { ...parsed, [t.key]: { ...servers, [serverName]: t.value } }
  return Either.right(`${JSON.stringify(merged, null, 2)}\n`)
}
