/**
 * Finds and reads configuration files. The global file lives under XDG_CONFIG_HOME (or ~/.config); the local
 * `.minicode/config.json` is read only when the user trusts it (`--allow-local-config` or
 * MINICODE_ALLOW_LOCAL_CONFIG=1): a cloned repository must not configure minicode.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect, ParseResult, Schema } from "effect"
import { ConfigFile, merge } from "../../domain/core/Config.js"
import { UsageError } from "../../domain/core/Errors.js"

export interface ConfigPaths {
  readonly global: string
  readonly local: string
  readonly allowlist: string
}

export const configHome = (env: NodeJS.ProcessEnv = process.env): string => {
  const xdg = env["XDG_CONFIG_HOME"]
  return path.join(xdg !== undefined && xdg !== "" ? xdg : path.join(os.homedir(), ".config"), "minicode")
}

export const paths = (workspace: string, env: NodeJS.ProcessEnv = process.env): ConfigPaths => ({
  global: path.join(configHome(env), "config.json"),
  local: path.join(workspace, ".minicode", "config.json"),
  allowlist: path.join(configHome(env), "allowlist.json")
})

export const localTrusted = (flag: boolean, env: NodeJS.ProcessEnv = process.env): boolean =>
  flag || env["MINICODE_ALLOW_LOCAL_CONFIG"] === "1"

/** Where JSON.parse stopped, as "line L, column C" (Node names the offset as "position N"). */
const where = (text: string, cause: unknown): string => {
  const at = /position (\d+)/.exec(cause instanceof Error ? cause.message : "")
  const offset = at === null ? undefined : Number(at[1])
  if (offset === undefined) return cause instanceof Error ? `: ${cause.message}` : ""
  const before = text.slice(0, offset).split("\n")
  return ` (line ${before.length}, column ${(before[before.length - 1]?.length ?? 0) + 1})`
}

/** Each problem on one line, named by its key path: `toolDeadlineMs: Expected a number between 1 and 86400000, actual -5`. */
const plainIssues = (e: ParseResult.ParseError): string => {
  const issues = ParseResult.ArrayFormatter.formatErrorSync(e)
  const key = (i: (typeof issues)[number]) => i.path.map(String).join(".")
  // An optional key's "Expected undefined" adds nothing beside the real reason at the same key.
  const useful = issues.filter((i) => !(i.message.startsWith("Expected undefined") && issues.some((o) => o !== i && key(o) === key(i))))
  // A choice among literals fails once per literal: said once, as the list of what is accepted.
  const literal = /^Expected ("[^"]*"), actual (.*)$/
  const lines: Array<string> = []
  const choices = new Map<string, { expected: Array<string>; actual: string }>()
  for (const issue of useful) {
    const name = issue.path.length === 0 ? "(top level)" : key(issue)
    const m = literal.exec(issue.message)
    const choice = choices.get(name)
    if (m === null) lines.push(`${name}: ${issue.message}`)
    else if (choice === undefined) {
      choices.set(name, { expected: [m[1] ?? ""], actual: m[2] ?? "" })
      lines.push(name)
    } else choice.expected.push(m[1] ?? "")
  }
  return lines
    .map((line) => {
      const choice = choices.get(line)
      return choice === undefined
        ? line
        : `${line}: expected ${choice.expected.length > 1 ? `one of ${choice.expected.join(", ")}` : choice.expected[0]}, got ${choice.actual}`
    })
    .join("; ")
}

const readOne = (file: string) =>
  Effect.gen(function* () {
    if (!fs.existsSync(file)) return undefined
    const text = yield* Effect.try({
      try: () => fs.readFileSync(file, "utf8"),
      catch: (cause) => new UsageError({ reason: `cannot read ${file}: ${String(cause)}` })
    })
    const json = yield* Effect.try({
      try: (): unknown => JSON.parse(text),
      catch: (cause) => new UsageError({ reason: `${file} is not valid JSON${where(text, cause)}` })
    })
    return yield* Schema.decodeUnknown(ConfigFile)(json).pipe(
      Effect.mapError((e) => new UsageError({ reason: `${file}: ${plainIssues(e)}` }))
    )
  })

export interface LoadedConfig {
  readonly config: ConfigFile
  readonly paths: ConfigPaths
  readonly globalFound: boolean
  readonly localFound: boolean
  readonly localUsed: boolean
}

export const load = (workspace: string, trustLocal: boolean, env: NodeJS.ProcessEnv = process.env) =>
  Effect.gen(function* () {
    const p = paths(workspace, env)
    const global = yield* readOne(p.global)
    const localFound = fs.existsSync(p.local)
    const local = trustLocal && localFound ? yield* readOne(p.local) : undefined
    const loaded: LoadedConfig = {
      config: merge(global ?? {}, local),
      paths: p,
      globalFound: global !== undefined,
      localFound,
      localUsed: local !== undefined
    }
    return loaded
  })
