/**
 * How to proceed after a refusal: the one change that would allow the call, or, where nothing may allow it by
 * design (a secret, git's own files), why and what the person can do instead. Chosen by the refusal's stable rule id
 * (never by its text) and said for the front end that tells it: the CLI's flags and config keys, `mcp serve`'s flags
 * and config keys, or the library's session options. Pure.
 */
import * as Visible from "./Visible.js"

export type Front = "cli" | "serve" | "api"

export interface Refusal {
  readonly tool: string
  readonly stage: string
  readonly rule: string
  readonly reason: string
  /** How an allowlist entry would allow it (Approval.howToAllow), for the permission stage. */
  readonly allow?: string | undefined
}

const config = "config.json"

const per = (front: Front, cli: string, serve: string, api: string) => (front === "cli" ? cli : front === "serve" ? serve : api)

const byDesign = (what: string) => `${what}; no mode, policy or flag changes that, by design`

/** Remedies by rule id, then by rule family (the longest matching prefix wins). */
const remedyOf = (r: Refusal, front: Front): string | undefined => {
  const rule = r.rule
  const workspace = per(
    front,
    "tools act only inside the workspace: run minicode from a folder that contains the path (or pass --cwd DIR)",
    "tools act only inside the workspace: restart minicode mcp serve with --cwd set to a folder that contains the path",
    "tools act only inside the workspace: create the session with a workspace that contains the path"
  )
  const secret = byDesign("secrets are never read or written by a tool (a name, its links and its copies alike)") + ": if the task needs it, read or edit it yourself"
  switch (rule) {
    case "mode.discuss.read-only":
    case "mode.plan.artefacts-only":
      return per(
        front,
        `run it with --work-mode BUILD (or set "workMode": "BUILD" in ${config}); the default work mode DISCUSS only reads`,
        `minicode mcp serve works in BUILD; set "workMode" in ${config} to BUILD, or remove it`,
        `create the session with workMode "BUILD"`
      )
    case "policy.readonly":
    case "policy.plan":
      return per(
        front,
        `run it without --policy (and without "policy" in ${config}), or with --policy allow-all`,
        `remove "policy" from ${config}, or restart minicode mcp serve with --allow-all`,
        `create the session without policy "${rule.slice("policy.".length)}"`
      )
    case "policy.allowlist.no-match":
      return `${r.allow ?? "add an entry for it to the allowlist"}, or ${per(front, "run it without --policy allowlist", `remove "policy": "allowlist" from ${config}`, "create the session without policy allowlist")}`
    case "policy.allowlist.push":
    case "policy.allowlist.mcp":
      return `${per(front, "run it without --policy allowlist", `remove "policy": "allowlist" from ${config}`, "create the session without policy allowlist")} (the call then asks for approval)`
    case "approval.declined":
    case "sql.write.not-allowed":
      return undefined // the reason already says how to allow it
    case "jail.outside-workspace":
    case "jail.symlink-escape":
    case "jail.workspace-root":
      return workspace
    case "jail.sensitive":
    case "jail.alias":
    case "guard.secret-read":
    case "sql.catalog.secret":
      return secret
    case "jail.git-internals":
      return byDesign("git's own files (.git/, hooks, config) run programs on your machine, so tools do not write them") + ": use the git_* tools, or change them yourself"
    case "jail.editor-control":
    case "jail.editor-control-unreadable":
      return byDesign("editor and assistant control files (.vscode/tasks.json, .claude/settings.json, .mcp.json…) run programs on your machine, so tools do not write them") + ": edit them yourself"
    case "jail.minicode-state":
      return byDesign(".minicode/ is minicode's own state") + ": use `minicode journal`, `minicode undo` or `minicode recover`"
    case "jail.protected-inside":
      return "it holds a protected file: act on the other files one by one, or move the protected one yourself first"
    case "jail.hardlink":
      return "the file has other hard links, which a write would change too: write a new file instead, or change it yourself"
    case "jail.nul-byte":
    case "jail.empty-path":
    case "jail.ambiguous-path":
    case "jail.url-path":
    case "jail.proc-alias":
      return "name the file by its path in the workspace, with / between folders"
    case "jail.changed":
    case "jail.unresolvable":
    case "jail.symlink-loop":
      return "the path changed or cannot be followed: check it and call again"
    case "jail.subtree-too-large":
      return "act on a smaller folder, or on its files one by one"
    case "guard.allowlist":
      return `${per(front, "add an allowlist line \"bash:<command and its leading arguments>\" (allowlist.json in minicode's config folder), or run it without --policy allowlist", "add an allowlist line \"bash:<command and its leading arguments>\" (allowlist.json in minicode's config folder)", "add an allowlist entry \"bash:<command and its leading arguments>\"")}`
    case "guard.parse-error":
    case "guard.too-large":
    case "guard.unknown-node":
      return "write the command in plain shell the guard can read (no unusual syntax), or split it into smaller calls"
    case "guard.unavailable":
    case "guard.internal-error":
      return per(front, "`minicode doctor` says what is missing", "`minicode doctor` says what is missing", "check the bash parser's install")
    case "sql.connection.unknown":
    case "sql.connection.invalid":
      return per(front, "configure it: `minicode config sql add NAME --sqlite PATH | --url URL`, or name a workspace .db/.sqlite file", "configure it with `minicode config sql add NAME …`, then restart minicode mcp serve", "configure the connection")
  }
  if (rule === "sql.write" || rule === "sql.ddl" || rule === "sql.read-only" || rule === "sql.pg.read-only" || rule === "sql.stacked-write" || rule === "sql.catalog.write") {
    return `set "write": true in the call, on a connection configured with --allow-write (\`minicode config sql add NAME … --allow-write\`)${per(front, ", in work mode BUILD (--work-mode BUILD)", "", ", in work mode BUILD")}`
  }
  if (rule.startsWith("sql.engine.")) return "the database refused or failed: check the statement and the connection (`minicode doctor` probes it), then call again"
  if (rule.startsWith("sql.")) return byDesign("this kind of statement is refused on every connection") + ": run it yourself with the database's own client"
  if (rule.startsWith("guard.unsandboxed.")) return "install bubblewrap (apt-get install bubblewrap) so bash runs sandboxed, or approve the call when asked"
  if (rule.startsWith("guard.")) {
    return byDesign("the bash guard refuses this kind of command") + `: run it yourself in a terminal if you mean it, or ask for what you need with a command the guard can judge${per(front, " (`minicode policy explain bash '{\"command\":\"…\"}'` shows the rule)", "", "")}`
  }
  if (rule.startsWith("validation.")) {
    return per(front, `fix the arguments: \`minicode tool ${r.tool} --help\` shows them and an example`, `fix the arguments: the tool's inputSchema (tools/list) gives them`, "fix the arguments (the tool's schema gives them)")
  }
  if (rule.startsWith("net.")) return byDesign("web requests go only to public addresses over http(s)") + ": fetch it yourself"
  if (rule.startsWith("mcp.")) return per(front, "check the MCP server's configuration (`minicode config mcp list`, `minicode doctor`)", "check the MCP server's configuration (`minicode config mcp list`), then restart minicode mcp serve", "check the MCP server's configuration")
  return undefined
}

export const remedy = (r: Refusal, front: Front): string | undefined => remedyOf(r, front)

/** The refusal as told: what was refused, by which stage and rule, why, then how to proceed. */
export const told = (r: Refusal, front: Front): string => {
  const how = remedyOf(r, front)
  // On a terminal, on one line: a command or a name quoted in the reason cannot start a line of its own.
  return `${r.tool} denied by ${r.stage} (${r.rule}): ${front === "cli" ? Visible.line(r.reason) : r.reason}${how === undefined ? "" : `\nTo proceed: ${how}.`}`
}
