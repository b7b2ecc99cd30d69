/**
 * What `mcp serve` tells an assistant about using its tools well: the server's `instructions` and the
 * `minicode-guide` prompt. Pure text, built from the settings so it names what is actually on.
 */
import { staticInfo } from "../core/Tools.js"
import type { Settings } from "./McpScopes.js"
import { listed, scopes } from "./McpScopes.js"

export const promptName = "minicode-guide"

/** What every assistant should know about minicode's tools, whatever the settings: the instructions, the skill and the rules file. */
export const guidance: ReadonlyArray<string> = [
  "minicode gives you file, search, shell, git, LSP and SQL tools that cannot leave one workspace.",
  "Paths are relative to the workspace root; anything outside it, and secrets such as .env or keys, are refused.",
  "",
  "Use the tools well:",
  "- Read before you edit: read_file a file before edit_file or write_file on it, and copy old_string exactly from what you read.",
  "- List before you guess: use list_dir, glob or grep to find files instead of guessing names.",
  "- Prefer edit_file for small changes; write_file replaces the whole file.",
  "- Prefer the dedicated tools over bash for reading, searching and editing files.",
  "- A tool that is missing from the list, or refused with a scope or approval message, is a permission setting chosen by the user. It is not a reason to reach the same goal another way (for example through bash): tell the user which setting would enable it.",
  "- A denial names the rule that denied the call. Do not retry the same call unchanged.",
  "- Output over the size limit is cut and marked [truncated: ...]; use offset/limit or a narrower search to see more.",
  "- Each call's request id is an idempotency key: a retry with the same id returns the first result instead of running again.",
]

/** Who is asked what in an `mcp serve` session: its default, `--ask`, `--no-ask` or `--allow-all`. */
export type AskMode = "default" | "ask" | "no-ask" | "allow-all"

/** The mode `mcp serve`'s flags choose (`--allow-all` wins; `--ask`/`--no-ask` is `ask` true/false). */
export const askMode = (allowAll: boolean, ask: boolean | undefined): AskMode =>
  allowAll ? "allow-all" : ask === true ? "ask" : ask === false ? "no-ask" : "default"

const gatedTools = "git_commit, git_push and MCP client calls"

/** The asks in force, in one or two sentences: the server's instructions and `doctor` say this. */
export const asks = (mode: AskMode): string => {
  switch (mode) {
    case "default":
      return (
        "Asks (the default): with a client that can ask the user (elicitation), file edits inside the workspace run without asking, " +
        `each bash command asks (an "always" answer saves that command's exact words to the allowlist, so it runs unasked from then on), and ${gatedTools} ask; ` +
        "with a client that cannot ask, nothing is asked and what would ask is denied."
      )
    case "ask":
      return `Asks (--ask): every change (file edits, bash, ${gatedTools}) asks the user through the client; a client that cannot ask gets them denied.`
    case "no-ask":
      return `Asks (--no-ask): file edits and bash run without asking; ${gatedTools}, and bash with network access, ask the user through the client when it can ask, and are denied otherwise.`
    case "allow-all":
      return `Asks (--allow-all): nothing asks; ${gatedTools} run too. The jail, the guards and validation still apply.`
  }
}

export const instructions = (settings: Settings, ask?: boolean | undefined): string => {
  const levels = scopes
    .filter((s) => s !== "mcp" || settings.allTools)
    .map((s) => `${s}=${settings.levels[s]}`)
    .join(", ")
  return [...guidance, "", `This server's scopes: ${levels}; it works in work mode BUILD.`, asks(askMode(settings.allowAll, ask))].join("\n")
}

export const promptDescription = "How to use minicode's workspace tools well (read before edit, list before guessing, missing tools are settings)"

/** `.claude/skills/minicode/SKILL.md`: the same guidance as the server's instructions, as a Claude Code skill. */
export const skill = (): string =>
  [
    "---",
    "name: minicode",
    "description: Use minicode's MCP tools (files, search, shell, git, LSP, SQL) well inside one workspace. Use when working in this repository through the minicode MCP server.",
    "---",
    "",
    "# minicode",
    "",
    ...guidance,
    "",
    "An ask (a commit, a push, a command that wants the network) goes to the user through the client; a denial says how to allow it.",
    ""
  ].join("\n")

/** `.cursor/rules/minicode.mdc`: the same guidance as a Cursor project rule. */
export const cursorRules = (): string =>
  [
    "---",
    "description: How to use the minicode MCP tools in this workspace",
    "alwaysApply: true",
    "---",
    "",
    ...guidance,
    ""
  ].join("\n")

/** The `minicode-guide` prompt's one argument: a scope to focus on (completed by `completion/complete`). */
export const focusArgument = {
  name: "focus",
  description: `A tool family to focus the guide on: ${scopes.join(", ")}`,
  required: false
} as const

/** The scopes whose name starts with `prefix` (case-insensitive), in the scopes' order. */
export const completeFocus = (prefix: string): ReadonlyArray<string> => scopes.filter((s) => s.startsWith(prefix.toLowerCase()))

/**
 * The guide, focused on one scope when asked: its level here and the tools this session lists in it (none when
 * it is off, with the setting that would turn it on); `undefined` for a name that is no scope.
 */
export const focusedGuide = (settings: Settings, focus: string | undefined, ask?: boolean | undefined): string | undefined => {
  const base = instructions(settings, ask)
  if (focus === undefined || focus === "") return base
  const scope = scopes.find((s) => s === focus.toLowerCase())
  if (scope === undefined) return undefined
  const tools = listed(settings).filter((t) => staticInfo(t).scope === scope)
  const line =
    tools.length === 0
      ? `Focus: ${scope}. This scope is off in this session (--scope ${scope}=read or =write turns it on); none of its tools is listed.`
      : `Focus: ${scope} (level ${settings.levels[scope]}). Its tools here: ${tools.join(", ")}.`
  return [base, "", line].join("\n")
}
