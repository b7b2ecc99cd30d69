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

/** A word "always" may save for bash: literal text on one line, nothing a shell would expand or match. */
const savable = (word: string) => word !== "" && !/[\uE000\u0000-\u001f\u007f-\u009f*?[\]{}$`\\~'"]/.test(word)

/** Asks whose "always" may save a bash command: the session asks for every bash command (not for its network). */
const bashAskRules: ReadonlySet<string> = new Set(["mode.bash-asks", "mode.ask"])

/**
 * What "always" saves for bash: the exact words of the one command line the allowlist does not approve yet (as the
 * guard read them, wrappers kept), an argv prefix matched word for word; never a wildcard. Each word must stand in
 * the command as the person sees it, unquoted (`echo $HOME` is read as `echo /home/me`: not what was shown). None
 * when several command lines are unapproved, when a word is not plain literal text (a variable, a glob, `~`), or
 * when the ask is not the session's ask for bash (a network ask, one for unsandboxed code: "always" would widen
 * what it guards).
 */
export const bashEntry = (decision: Decision, unmatched: ReadonlyArray<ReadonlyArray<string>> | undefined, command: string): AllowEntry | undefined => {
  if (!bashAskRules.has(decision.rule) || unmatched === undefined) return undefined
  const first = unmatched[0]
  const shown = new Set(command.split(/[\s;&|()<>]+/))
  if (first === undefined || first.length === 0 || !first.every((w) => savable(w) && shown.has(w))) return undefined
  const same = (a: ReadonlyArray<string>) => a.length === first.length && a.every((w, i) => w === first[i])
  return unmatched.every(same) ? { tool: "bash", argv: [...first] } : undefined
}

/**
 * The entry "always" saves: the exact tool (an MCP call keeps its `server.tool`), never a wildcard nor a whole
 * server; for bash the exact words of its one unapproved command line (`bashEntry`), when the guard gave them.
 */
export const alwaysEntry = (facts: Facts, decision?: Decision, unmatched?: ReadonlyArray<ReadonlyArray<string>>): AllowEntry | undefined =>
  facts.call.tool === "bash"
    ? decision === undefined || facts.call.args.network === true
      ? undefined
      : bashEntry(decision, unmatched, facts.call.args.command)
    : { tool: approvalName(facts.call) }

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
export const sentence = (facts: Facts, decision: Decision, entry?: AllowEntry): string =>
  `${action(facts)}; minicode asks because ${decision.reason}.` +
  (entry?.argv === undefined ? "" : ` "Always" saves "${oneLine(entryLine(entry))}" to your allowlist: commands that start with exactly these words then run without asking.`)

/** How to allow such a call without being asked: the allowlist line (or, for bash, the shape of one). */
export const howToAllow = (facts: Facts, entry: AllowEntry | undefined = alwaysEntry(facts)): string => {
  if (entry !== undefined) return `add "${entryLine(entry)}" to the allowlist (allowlist.json in minicode's config folder, or "allowlist" in config.json)`
  const network = facts.call.tool === "bash" && facts.call.args.network === true
  return `add an allowlist line "bash:<command and its leading arguments>" for the command${network ? ', or set "bashNetwork": true in config.json' : ""}`
}
