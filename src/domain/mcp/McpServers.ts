/**
 * MCP server entries as the operator configures them: id rules, argv from the CLI's forms, the scrubbed
 * environment a stdio server is spawned with, and the masked view that `config mcp list` prints. Pure.
 */
import { Either } from "effect"
import type { ServerEntry } from "../core/Config.js"

/** An id names a server in `server.tool`: no dots, no leading `-` (it would read as a flag). */
export const idPattern = /^[A-Za-z0-9_][A-Za-z0-9_-]*$/

export const validateId = (id: string): Either.Either<string, string> =>
  idPattern.test(id) && id.length <= 64
    ? Either.right(id)
    : Either.left(
        `server id "${id}" is invalid: use letters, digits, "_" and "-" (not first), at most 64 characters; no dots (the dot separates server and tool)`
      )

/** `--args a,b,c` (the documented comma-separated list) followed by each verbatim `--arg`. */
export const argvOf = (commaList: string | undefined, verbatim: ReadonlyArray<string>): ReadonlyArray<string> => [
  ...(commaList === undefined || commaList === "" ? [] : commaList.split(",")),
  ...verbatim
]

/** `K=V` pairs (split on the first `=`); the key must be non-empty. */
export const parsePairs = (
  flag: string,
  pairs: ReadonlyArray<string>
): Either.Either<Readonly<Record<string, string>>, string> => {
  const out: Record<string, string> = {}
  for (const pair of pairs) {
    const at = pair.indexOf("=")
    const key = at < 0 ? "" : pair.slice(0, at).trim()
    // The value is never echoed: it may be a credential.
    if (key === "") return Either.left(`every --${flag} must be NAME=VALUE`)
    out[key] = pair.slice(at + 1)
  }
  return Either.right(out)
}

const allowedNames = new Set(["PATH", "HOME", "LANG", "TERM", "TZ", "USER", "SHELL", "TMPDIR", "CI", "LOGNAME"])
const secretName = /TOKEN|SECRET|KEY|PASSWORD|PASSWD|CREDENTIAL|AUTH|COOKIE|SESSION|PRIVATE/i

/** Whether an inherited variable may reach a server: an allowlist, and never a name that looks like a secret. */
export const inheritable = (name: string): boolean =>
  !secretName.test(name) && (allowedNames.has(name) || name.startsWith("LC_") || name.startsWith("NODE_"))

/** The environment a stdio server gets: the scrubbed parent environment plus its own configured `env`. */
export const scrubEnv = (
  parent: Readonly<Record<string, string | undefined>>,
  configured: Readonly<Record<string, string>> = {}
): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(parent)) {
    if (value !== undefined && inheritable(name)) out[name] = value
  }
  return { ...out, ...configured }
}

/** One line per server for `config mcp list`: header and env values are never printed. */
export const describe = (id: string, entry: ServerEntry): string => {
  const masked = (record: Readonly<Record<string, string>> | undefined) =>
    Object.keys(record ?? {}).map((k) => `${k}=***`)
  const timeout = entry.timeout === undefined ? [] : [`timeout ${entry.timeout}s`]
  if (entry.url !== undefined) {
    const headers = masked(entry.headers)
    return [`${id}: http ${entry.url}`, ...timeout, ...(entry.allowPrivate === true ? ["(private addresses allowed)"] : []), ...(headers.length > 0 ? [`headers ${headers.join(" ")}`] : [])].join(" ")
  }
  const env = masked(entry.env)
  const argv = [entry.command ?? "?", ...(entry.args ?? [])].map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : JSON.stringify(a)))
  return [`${id}: stdio ${argv.join(" ")}`, ...timeout, ...(env.length > 0 ? [`env ${env.join(" ")}`] : [])].join(" ")
}

/** What makes an entry usable: exactly one of command (stdio) or url (HTTP). */
export const kindOf = (entry: ServerEntry): Either.Either<"stdio" | "http", string> => {
  if (entry.command !== undefined && entry.url === undefined) return Either.right("stdio")
  if (entry.url !== undefined && entry.command === undefined) return Either.right("http")
  return Either.left("an MCP server needs exactly one of command (stdio) or url (HTTP)")
}
