/**
 * What `minicode mcp serve` exposes: tools grouped into scopes, each scope `off`, `read` or `write`. A tool is
 * listed only when its scope's level covers it and the session could ever allow it; the same rule refuses it at
 * call time, on the facts of the actual call (an `sql_query` with `write: true` needs `sql=write`). Pure.
 */
import { Either } from "effect"
import { type Facts, type Scope, staticInfo, type ToolName, toolNames } from "../core/Tools.js"

export type Level = "off" | "read" | "write"

export type Levels = { readonly [S in Scope]: Level }

export interface Settings {
  readonly levels: Levels
  /** `--allow-all`: policy allow-all, so gated tools can run (jail, guard and validation still apply). */
  readonly allowAll: boolean
  /** `--all-tools`: the internal scope `mcp` (the MCP client tools) may be switched on. */
  readonly allTools: boolean
  /** The client can ask the user (it declared elicitation): gated tools are listed, and each call of one asks. */
  readonly askable?: boolean
}

export const scopes: ReadonlyArray<Scope> = ["files", "search", "shell", "git", "lsp", "sql", "mcp"]

export const defaults: Levels = { files: "write", search: "read", shell: "write", git: "read", lsp: "read", sql: "read", mcp: "off" }

const rank: { readonly [L in Level]: number } = { off: 0, read: 1, write: 2 }

const isScope = (s: string): s is Scope => scopes.some((x) => x === s)
const isLevel = (s: string): s is Level => s === "off" || s === "read" || s === "write"

/** `--scope NAME=off|read|write`, repeated; later flags win. `mcp` needs `--all-tools`, which defaults it to write. */
export const parse = (
  flags: ReadonlyArray<string>,
  options: { readonly allowAll: boolean; readonly allTools: boolean }
): Either.Either<Settings, string> => {
  const levels: { [S in Scope]: Level } = { ...defaults, mcp: options.allTools ? "write" : "off" }
  for (const flag of flags) {
    const [name = "", level = "", ...rest] = flag.split("=").map((s) => s.trim().toLowerCase())
    if (rest.length > 0 || !isScope(name) || !isLevel(level)) {
      return Either.left(`--scope ${flag}: expected NAME=off|read|write with NAME one of ${scopes.join(", ")}`)
    }
    if (name === "mcp" && !options.allTools) return Either.left(`--scope ${flag}: the mcp scope (MCP client tools) needs --all-tools`)
    levels[name] = level
  }
  return Either.right({ levels, allowAll: options.allowAll, allTools: options.allTools })
}

/** The level a call needs: anything that changes, runs or calls out needs `write`; pure reads need `read`. */
export const needs = (f: { readonly capability: Facts["capability"]; readonly mutates: boolean }): Level =>
  !f.mutates && (f.capability === "read" || f.capability === "network" || f.capability === "external") ? "read" : "write"

export type Refusal = { readonly rule: string; readonly reason: string }

const check = (settings: Settings, name: string, scope: Scope, need: Level, gated: boolean): Refusal | undefined => {
  const level = settings.levels[scope]
  if (scope === "mcp" && !settings.allTools) {
    return { rule: "scope.internal", reason: `${name} is an internal tool: start minicode mcp serve with --all-tools to expose it` }
  }
  if (rank[level] < rank[need]) {
    return {
      rule: `scope.${scope}.${level}`,
      reason: `${name} needs scope ${scope}=${need}, and this server runs with ${scope}=${level}: restart minicode mcp serve with --scope ${scope}=${need} to enable it`
    }
  }
  if (gated && !settings.allowAll && settings.askable !== true) {
    return {
      rule: "scope.gated",
      reason: `${name} needs an operator's approval and this client cannot ask the user (it did not declare elicitation): it is available only with --allow-all or from a client that supports elicitation`
    }
  }
  return undefined
}

/** Before decoding: may a tool of this name be called at all (and so, is it listed)? */
export const refuseByName = (settings: Settings, name: ToolName): Refusal | undefined => {
  const info = staticInfo(name)
  return check(settings, name, info.scope, needs(info), info.gated)
}

/** After decoding: the same rule on the facts of this call. */
export const refuseCall = (settings: Settings, name: string, facts: Facts): Refusal | undefined =>
  check(settings, name, facts.scope, needs(facts), facts.gated)

/** The tools `tools/list` advertises, in catalog order. */
export const listed = (settings: Settings): ReadonlyArray<ToolName> => toolNames.filter((name) => refuseByName(settings, name) === undefined)
