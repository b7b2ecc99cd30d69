/**
 * What minicode's client answers when a server asks (server-to-client requests), and what it keeps of a server's
 * notifications: roots (the workspace as a file:// root), elicitation (through the given `Elicit`: the operator on
 * a TTY, the upstream client under `mcp serve`, else declined), sampling (not declared: minicode runs no model), log
 * messages (the last lines kept for error reports) and progress (handed to `onProgress`).
 */
import { pathToFileURL } from "node:url"
import * as path from "node:path"
import type { Client } from "@modelcontextprotocol/sdk/client/index.js"
import type { ClientCapabilities } from "@modelcontextprotocol/sdk/types.js"
import type * as McpElicitation from "../../domain/mcp/McpElicitation.js"

type Types = typeof import("@modelcontextprotocol/sdk/types.js")

/**
 * What minicode's client declares: roots, and elicitation in the modes its answerer can answer now. Never sampling:
 * minicode runs no model, and a server that sees `sampling` offers tools that could only fail (its
 * `sampling/createMessage` now gets JSON-RPC's "method not found" from the SDK).
 */
export const capabilitiesFor = (modes: McpElicitation.Modes): ClientCapabilities => ({
  roots: { listChanged: false },
  ...(modes.form || modes.url ? { elicitation: { ...(modes.form ? { form: { applyDefaults: true } } : {}), ...(modes.url ? { url: {} } : {}) } } : {})
})

/** How many log lines of a server are kept. */
export const logLines = 20

export interface Handlers {
  readonly server: string
  /** The workspace: offered as the one root. */
  readonly root: string | undefined
  readonly elicit: McpElicitation.Elicit
  /** The modes declared (`capabilitiesFor`): a request in another mode is declined without asking. */
  readonly modes: McpElicitation.Modes
  /** The server's log lines, oldest first (at most `logLines`). */
  readonly log: Array<string>
}

export const install = (client: Client, types: Types, h: Handlers) => {
  client.setRequestHandler(types.ListRootsRequestSchema, async () => ({
    roots: h.root === undefined ? [] : [{ uri: pathToFileURL(h.root).href, name: path.basename(h.root) }]
  }))
  if (!h.modes.form && !h.modes.url) return logs(client, types, h)
  client.setRequestHandler(types.ElicitRequestSchema, async (request, extra) => {
    const p = request.params
    if (p.mode === "url" ? !h.modes.url : !h.modes.form) return { action: "decline" }
    const answer = await h.elicit(
      p.mode === "url"
        ? { server: h.server, mode: "url", message: p.message, url: p.url }
        : { server: h.server, mode: "form", message: p.message, schema: p.requestedSchema },
      extra.signal
    )
    return answer.action === "accept" ? { action: "accept", ...(answer.content === undefined ? {} : { content: { ...answer.content } }) } : { action: answer.action }
  })
  logs(client, types, h)
}

const logs = (client: Client, types: Types, h: Handlers) => {
  client.setNotificationHandler(types.LoggingMessageNotificationSchema, (n) => {
    const data = typeof n.params.data === "string" ? n.params.data : JSON.stringify(n.params.data)
    h.log.push(`[${n.params.level}]${n.params.logger === undefined ? "" : ` ${n.params.logger}:`} ${data}`)
    if (h.log.length > logLines) h.log.splice(0, h.log.length - logLines)
  })
}
