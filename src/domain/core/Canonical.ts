/** A call's canonical text: keys sorted, undefined dropped; equal calls (a retried request) give equal text. */
import { nameOf, type ToolCall } from "./Tools.js"

export const canonical = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`
  }
  return JSON.stringify(value) ?? "null"
}

export const canonicalArgs = (call: ToolCall): string => canonical({ tool: nameOf(call), args: call.args })
