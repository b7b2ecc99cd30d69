/**
 * The standard request headers of MCP's HTTP transport (2026-07-28 draft, SEP-2243): `Mcp-Method` on every POST
 * (the JSON-RPC method of its body), and `Mcp-Name` on `tools/call`, `prompts/get` (the name) and `resources/read`
 * (the URI), so a gateway can route and authorise without parsing bodies. A value that a header cannot carry as it
 * is (a character outside printable ASCII, or spaces at either end) is sent as `=?base64?…?=` of its UTF-8 bytes.
 * Servers of earlier revisions ignore them.
 */

/** A header value as SEP-2243 encodes it. */
export const encodeValue = (value: string): string => {
  let plain = value === value.trim()
  for (let i = 0; plain && i < value.length; i++) {
    const c = value.charCodeAt(i)
    if (c < 0x20 || c > 0x7e) plain = false
  }
  if (plain) return value
  const bytes = new TextEncoder().encode(value)
  let binary = ""
  for (const b of bytes) binary += String.fromCharCode(b)
  return `=?base64?${btoa(binary)}?=`
}

const nameOf = (method: string, params: unknown): string | undefined => {
  if (typeof params !== "object" || params === null) return undefined
  const field = method === "resources/read" ? "uri" : method === "tools/call" || method === "prompts/get" ? "name" : undefined
  const value = field === undefined ? undefined : (params as Record<string, unknown>)[field]
  return typeof value === "string" ? value : undefined
}

/** The standard headers for one POSTed JSON-RPC text; none for a batch, a response or text that is not JSON. */
export const standardHeaders = (body: string): Readonly<Record<string, string>> => {
  let message: unknown
  try {
    message = JSON.parse(body)
  } catch {
    return {}
  }
  if (typeof message !== "object" || message === null || Array.isArray(message)) return {}
  const method = (message as Record<string, unknown>)["method"]
  if (typeof method !== "string") return {}
  const name = nameOf(method, (message as Record<string, unknown>)["params"])
  return { "Mcp-Method": encodeValue(method), ...(name === undefined ? {} : { "Mcp-Name": encodeValue(name) }) }
}
