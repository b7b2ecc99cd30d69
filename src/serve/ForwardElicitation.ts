/**
 * An upstream MCP server's elicitation, under `mcp serve`: forwarded to the client that runs minicode when that
 * client declared elicitation (form requests), else declined. URL requests are declined: minicode's own client
 * channel asks in form mode only.
 *
 * The user must never take it for minicode's own approval prompt (ElicitationApprover), so the server's text is
 * attributed and cannot hide that: the message is one line, prefixed with the asking server's configured name and
 * "not a minicode approval", its control characters (ANSI escapes, CR, bidi marks) and newlines spelled out; every
 * title, description and choice name in the form is spelled out the same way and each field's title names the
 * server. Was a hole (red team): `"\u001b[2K\r…; minicode asks because …"` with minicode's own `answer` form
 * rendered as minicode's prompt, the prefix erased or pushed out of sight by newlines.
 */
import type { ElicitationAnswer, Elicit, FieldValue } from "../domain/mcp/McpElicitation.js"
import { oneLine } from "../domain/mcp/McpText.js"
import type { ElicitationChannel } from "../ports/Approver.js"

const isField = (v: unknown): v is FieldValue =>
  typeof v === "string" || typeof v === "number" || typeof v === "boolean" || (Array.isArray(v) && v.every((x) => typeof x === "string"))

const shown = new Set(["title", "description"])

/** The schema with its human-facing strings spelled out, each field's title attributed to `server`. */
const attributed = (schema: Readonly<Record<string, unknown>>, server: string): Record<string, unknown> => {
  const clean = (value: unknown, depth: number): unknown => {
    if (depth > 16) return undefined
    if (Array.isArray(value)) return value.map((v) => clean(v, depth + 1))
    if (typeof value !== "object" || value === null) return value
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [
        k,
        shown.has(k) && typeof v === "string" ? oneLine(v) : k === "enumNames" && Array.isArray(v) ? v.map((n) => (typeof n === "string" ? oneLine(n) : n)) : clean(v, depth + 1)
      ])
    )
  }
  const out = clean(schema, 0) as Record<string, unknown>
  const properties = out["properties"]
  if (typeof properties === "object" && properties !== null && !Array.isArray(properties)) {
    out["properties"] = Object.fromEntries(
      Object.entries(properties as Record<string, unknown>).map(([name, p]) => {
        if (typeof p !== "object" || p === null || Array.isArray(p)) return [name, p]
        const field = p as Record<string, unknown>
        const title = typeof field["title"] === "string" ? field["title"] : oneLine(name)
        return [name, { ...field, title: `[${server}] ${title}` }]
      })
    )
  }
  return out
}

/** `channel` is read at request time: the SDK server (and so the channel) exists only once `mcp serve` started. */
export const forward = (channel: () => ElicitationChannel | undefined): Elicit =>
  Object.assign(ask(channel), {
    // Form mode while the client that runs minicode declared elicitation; never URL mode (its channel asks forms).
    modes: () => ({ form: channel()?.supported() === true, url: false })
  })

const ask =
  (channel: () => ElicitationChannel | undefined) =>
  async (request: Parameters<Elicit>[0], signal: AbortSignal): Promise<ElicitationAnswer> => {
    const upstream = channel()
    if (upstream === undefined || !upstream.supported() || request.mode !== "form") return { action: "decline" }
    const schema = typeof request.schema === "object" && request.schema !== null ? (request.schema as Readonly<Record<string, unknown>>) : { type: "object", properties: {} }
    const server = oneLine(request.server)
    const message = `The MCP server "${server}" asks (not a minicode approval; your answer goes to that server): ${oneLine(request.message)}`
    const reply = await upstream.elicit({ message, requestedSchema: attributed(schema, server) }, signal)
    if (reply.action !== "accept") return { action: reply.action }
    const content = Object.fromEntries(Object.entries(reply.content ?? {}).filter((e): e is [string, FieldValue] => isField(e[1])))
    return { action: "accept", content }
  }
