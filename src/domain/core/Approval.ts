/**
 * What an ask shows a person and what an "always" answer saves, pure: one plain sentence (the tool, the command or
 * the paths, the reason it asks; a commit's message and files), the exact allowlist entry, and how to allow the call
 * without being asked (the allowlist line).
 */
import type { AllowEntry } from "./Allowlist.js"
import type { Decision } from "./Decision.js"
import { approvalName, type Facts, nameOf } from "./Tools.js"

// Was a hole (red team): a bash command of 200 harmless characters then `; curl … | sh` was shown cut after the
// harmless part, so the person approved what they could not see; an ESC (`\u001b[8m`, concealed text) passed raw.
// Now what is approved is shown whole up to 4,000 characters, and a cut says how much is not shown; controls spelled out.
const clip = (text: string, max = 4_000) =>
  text.length <= max ? text : `${text.slice(0, max)}… [${text.length - max} more characters NOT shown: deny unless you know them]`
const controls = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069]/g
const spelled = (text: string) => text.replace(controls, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)
const oneLine = (text: string) => clip(spelled(text.replace(/[ \t\n\r\f\v\u2028\u2029]+/g, " ").trim()))
const list = (items: ReadonlyArray<string>) => (items.length === 0 ? "nothing" : oneLine(items.join(", ")))

/**
 * The entry "always" saves: the exact tool (an MCP call keeps its `server.tool`), never a wildcard nor a whole
 * server. None for bash: its approvals are argv prefixes matched by the guard, which an answer cannot state exactly.
 */
export const alwaysEntry = (facts: Facts): AllowEntry | undefined =>
  facts.call.tool === "bash" ? undefined : { tool: approvalName(facts.call) }

/** An entry as a user writes it in the allowlist (`git_commit`, `bash:npm test`, `write_file:src/**`). */
export const entryLine = (entry: AllowEntry): string =>
  entry.argv !== undefined ? `${entry.tool}:${entry.argv.join(" ")}` : entry.path !== undefined ? `${entry.tool}:${entry.path}` : entry.tool

const action = (facts: Facts): string => {
  const call = facts.call
  switch (call.tool) {
    case "git_commit":
      return `git_commit will commit ${list(call.args.paths)} with the message "${oneLine(call.args.message)}"`
    case "git_push":
      return `git_push will push ${oneLine(call.args.branch ?? "the current branch")} to ${oneLine(call.args.remote ?? "origin")}`
    case "bash":
      return `bash will run \`${oneLine(call.args.command)}\`${call.args.network === true ? " with network access" : ""}`
    case "sql_query":
      return `sql_query will run ${call.args.write === true ? "a writing " : ""}query \`${oneLine(call.args.sql)}\` on ${oneLine(call.args.connection ?? "the default connection")}`
    case "mcp_call":
      return `the MCP server "${oneLine(call.args.server)}" will run its tool ${oneLine(call.args.tool)} with ${oneLine(JSON.stringify(call.args.arguments ?? {}))}`
    case "mcp_dynamic":
      return `the MCP tool ${call.name} will run with ${oneLine(JSON.stringify(call.args))}`
    default: {
      const paths = facts.paths.map((p) => p.path)
      return paths.length > 0 ? `${nameOf(call)} will act on ${list(paths)}` : `${nameOf(call)} will run with ${oneLine(JSON.stringify(call.args))}`
    }
  }
}

/** One plain sentence: what will happen and why minicode asks. */
export const sentence = (facts: Facts, decision: Decision): string => `${action(facts)}; minicode asks because ${decision.reason}.`

/** How to allow such a call without being asked: the allowlist line (or, for bash, the shape of one). */
export const howToAllow = (facts: Facts): string => {
  const entry = alwaysEntry(facts)
  if (entry !== undefined) return `add "${entryLine(entry)}" to the allowlist (allowlist.json in minicode's config folder, or "allowlist" in config.json)`
  const network = facts.call.tool === "bash" && facts.call.args.network === true
  return `add an allowlist line "bash:<command and its leading arguments>" for the command${network ? ', or set "bashNetwork": true in config.json' : ""}`
}
