/**
 * An upstream MCP server's elicitation, under `mcp serve`: forwarded to the client that runs minicode when that
 * client declared elicitation (form requests, the message prefixed with the asking server's name so the user knows
 * who asks), else declined. URL requests are declined: minicode's own client channel asks in form mode only.
 */
import type { ElicitationAnswer, Elicit, FieldValue } from "../domain/mcp/McpElicitation.js"
import type { ElicitationChannel } from "../ports/Approver.js"

const isField = (v: unknown): v is FieldValue =>
  typeof v === "string" || typeof v === "number" || typeof v === "boolean" || (Array.isArray(v) && v.every((x) => typeof x === "string"))

/** `channel` is read at request time: the SDK server (and so the channel) exists only once `mcp serve` started. */
export const forward =
  (channel: () => ElicitationChannel | undefined): Elicit =>
  async (request, signal): Promise<ElicitationAnswer> => {
    const upstream = channel()
    if (upstream === undefined || !upstream.supported() || request.mode !== "form") return { action: "decline" }
    const schema = typeof request.schema === "object" && request.schema !== null ? (request.schema as Readonly<Record<string, unknown>>) : { type: "object", properties: {} }
    const reply = await upstream.elicit({ message: `The MCP server "${request.server}" asks: ${request.message}`, requestedSchema: schema }, signal)
    if (reply.action !== "accept") return { action: reply.action }
    const content = Object.fromEntries(Object.entries(reply.content ?? {}).filter((e): e is [string, FieldValue] => isField(e[1])))
    return { action: "accept", content }
  }
