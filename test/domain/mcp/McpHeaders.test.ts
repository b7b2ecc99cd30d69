import { describe, expect, it } from "vitest"
import * as McpHeaders from "../../../src/domain/mcp/McpHeaders.js"

const decoded = (value: string) => {
  const m = /^=\?base64\?(.*)\?=$/.exec(value)
  return m === null ? value : Buffer.from(m[1] ?? "", "base64").toString("utf8")
}

describe("MCP's standard request headers (SEP-2243)", () => {
  it("name the method of every request and notification, and the tool, prompt or resource a call names", () => {
    expect(McpHeaders.standardHeaders(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: {} }))).toEqual({ "Mcp-Method": "initialize" })
    expect(McpHeaders.standardHeaders(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }))).toEqual({ "Mcp-Method": "notifications/initialized" })
    expect(McpHeaders.standardHeaders(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "my-hyphenated-tool", arguments: {} } }))).toEqual({ "Mcp-Method": "tools/call", "Mcp-Name": "my-hyphenated-tool" })
    expect(McpHeaders.standardHeaders(JSON.stringify({ jsonrpc: "2.0", id: 3, method: "resources/read", params: { uri: "file:///path/to/file%20name.txt" } }))).toEqual({ "Mcp-Method": "resources/read", "Mcp-Name": "file:///path/to/file%20name.txt" })
    expect(McpHeaders.standardHeaders(JSON.stringify({ jsonrpc: "2.0", id: 4, method: "prompts/get", params: { name: "p" } }))["Mcp-Name"]).toBe("p")
  })

  it("add nothing to a response, a batch or text that is not JSON", () => {
    expect(McpHeaders.standardHeaders(JSON.stringify({ jsonrpc: "2.0", id: 1, result: {} }))).toEqual({})
    expect(McpHeaders.standardHeaders(JSON.stringify([{ jsonrpc: "2.0", id: 1, method: "ping" }]))).toEqual({})
    expect(McpHeaders.standardHeaders("{not json")).toEqual({})
  })

  it("send a value a header cannot carry as base64 of its UTF-8, and every other value as it is", () => {
    for (const value of ["Hello, 世界", " padded ", "line1\nline2", "tab\there", "é"]) {
      const sent = McpHeaders.encodeValue(value)
      expect(sent).toMatch(/^=\?base64\?[A-Za-z0-9+/=]*\?=$/)
      expect(decoded(sent)).toBe(value)
    }
    for (const value of ["tools/call", "us west 1", "a?b=c&d", ""]) expect(McpHeaders.encodeValue(value)).toBe(value)
  })
})
