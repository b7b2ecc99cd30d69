/**
 * Allowlist entries: saved "always" approvals and configured permissions. An entry names one tool, and
 * optionally narrows it: an argv prefix for bash (matched on normalised argv, never on raw text), a path glob
 * for file tools. There is no wildcard for a whole MCP server.
 */
import { Either, Schema } from "effect"
import * as Glob from "../jail/Glob.js"

export const AllowEntry = Schema.Struct({
  tool: Schema.String.pipe(Schema.minLength(1)),
  argv: Schema.optional(Schema.Array(Schema.String)),
  path: Schema.optional(Schema.String)
})
export type AllowEntry = typeof AllowEntry.Type

const words = (text: string) => text.trim().split(/\s+/).filter((w) => w !== "")

/**
 * Parses one entry as users write it: `"write_file"`, `"write_file:src/**"`, `"bash:npm test"`,
 * `"Bash(npm test:*)"`, `"fs.read_file"` (an MCP server's tool), `"mcp_call:fs.read_file"`, or an object
 * `{tool, argv?, command?, path?}`.
 */
export const parseEntry = (raw: unknown): Either.Either<AllowEntry, string> => {
  if (typeof raw === "string") {
    const claude = /^bash\((.*?)(:\*)?\)$/i.exec(raw.trim())
    if (claude !== null) return Either.right({ tool: "bash", argv: words(claude[1] ?? "") })
    const colon = raw.indexOf(":")
    const tool = (colon < 0 ? raw : raw.slice(0, colon)).trim()
    const rest = colon < 0 ? undefined : raw.slice(colon + 1).trim()
    if (tool === "") return Either.left(`allowlist entry "${raw}" names no tool`)
    if (rest === undefined || rest === "") return Either.right({ tool })
    if (tool === "bash") return Either.right({ tool, argv: words(rest) })
    if (tool === "mcp_call") return Either.right({ tool: rest })
    return Either.right({ tool, path: rest })
  }
  if (typeof raw === "object" && raw !== null && "command" in raw && typeof raw.command === "string") {
    const { command, ...rest } = raw
    return parseEntry({ ...rest, argv: words(command) })
  }
  return Schema.decodeUnknownEither(AllowEntry)(raw).pipe(
    Either.mapLeft(() => `allowlist entry ${JSON.stringify(raw)} is not a tool name or {tool, argv?, path?}`)
  )
}

export const parseEntries = (raw: ReadonlyArray<unknown>): Either.Either<ReadonlyArray<AllowEntry>, string> =>
  Either.all(raw.map(parseEntry))

/** Whether `argv` (normalised) starts with the entry's argv. An entry without argv matches no bash command. */
export const matchesArgv = (entry: AllowEntry, argv: ReadonlyArray<string>): boolean =>
  entry.tool === "bash" &&
  entry.argv !== undefined &&
  entry.argv.length > 0 &&
  entry.argv.length <= argv.length &&
  entry.argv.every((word, i) => argv[i] === word)

/**
 * Whether an entry allows a non-bash call by name, with every path (workspace-relative) inside its glob.
 * `name` is the call's public name; an MCP call is named `server.tool`.
 */
export const matchesCall = (entry: AllowEntry, name: string, paths: ReadonlyArray<string>): boolean =>
  entry.tool === name &&
  entry.argv === undefined &&
  (entry.path === undefined || (paths.length > 0 && paths.every((p) => Glob.matches(entry.path ?? "", p))))
