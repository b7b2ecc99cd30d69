/**
 * The MCP tool annotations `mcp serve` advertises. Clients trust them (some approve a `readOnlyHint` tool without
 * asking), so they describe what a call can do under this server run's effective settings, not what the tool
 * usually does: `sql_query` under `sql=write` can change data, so it is not read-only there. Pure.
 *
 * The hints, as the MCP specification defines them: `readOnlyHint` the tool does not modify its environment;
 * `destructiveHint` (meaningful when not read-only) it may delete or overwrite rather than only add;
 * `idempotentHint` calling it again with the same arguments has no further effect; `openWorldHint` it reaches
 * entities outside the workspace (the network, another MCP server whose tools minicode does not know).
 */
import type { Settings } from "./McpScopes.js"
import { staticInfo, type ToolName } from "../core/Tools.js"

export interface Annotations {
  readonly title: string
  readonly readOnlyHint: boolean
  readonly destructiveHint: boolean
  readonly idempotentHint: boolean
  readonly openWorldHint: boolean
}

type Hints = Omit<Annotations, "title">

const reads: Hints = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false }
/** Changes the workspace, possibly overwriting or deleting. */
const overwrites: Hints = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false }
/** A call to another MCP server's handler: minicode cannot know what it does, so assume the worst. */
const remote: Hints = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true }

const hints = (name: ToolName, settings: Settings): Hints => {
  switch (name) {
    case "read_file":
    case "list_dir":
    case "glob":
    case "grep":
    case "repo_map":
    case "git_status":
    case "git_diff":
    case "git_log":
    case "git_show":
    case "lsp_diagnostics":
    case "lsp_definition":
    case "lsp_references":
    case "lsp_hover":
    case "lsp_implementation":
    case "lsp_incoming_calls":
    case "lsp_outgoing_calls":
    case "lsp_symbols":
    case "lsp_workspace_symbols":
      return reads
    // The same content written twice leaves the same file; deleting twice leaves it deleted.
    case "write_file":
    case "delete_file":
      return { ...overwrites, idempotentHint: true }
    case "edit_file":
    case "move_file":
      return overwrites
    // Any command: it can delete, and reach the network (`network: true`, or anything unsandboxed).
    case "bash":
      return { ...overwrites, openWorldHint: true }
    // A commit only adds to the history.
    case "git_commit":
      return { ...overwrites, destructiveHint: false }
    case "git_push":
      return { ...overwrites, openWorldHint: true }
    // Under sql=write a call may run a data-modifying statement (`write: true`); under sql=read it is refused.
    case "sql_query":
      return settings.levels.sql === "write" ? overwrites : reads
    case "sql_schema":
    case "sql_connections":
      return reads
    case "mcp_list":
    case "web_fetch":
      return { ...reads, openWorldHint: true }
    case "mcp_call":
    case "mcp_read":
    case "mcp_prompt":
      return remote
  }
}

/** The annotations of a listed tool under these settings (the title included). */
export const annotations = (name: ToolName, settings: Settings): Annotations => ({ title: staticInfo(name).title, ...hints(name, settings) })
