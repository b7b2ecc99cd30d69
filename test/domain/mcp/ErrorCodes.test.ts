import { ErrorCode } from "@modelcontextprotocol/sdk/types.js"
import { describe, expect, it } from "vitest"
import { ErrorCodes } from "../../../src/domain/mcp/JsonRpcFraming.js"

// Codes a client may already read with another meaning: the SDK's own (ConnectionClosed, RequestTimeout,
// UrlElicitationRequired…), MCP's resource-not-found, and the 2026 draft's assignments at the bottom of the range.
const taken = new Set<number>([
  ...Object.values(ErrorCode).filter((v): v is number => typeof v === "number"),
  -32002, -32042, -32001, -32003, -32004, -32005, -32006
])
const own = { Busy: ErrorCodes.Busy, Conflict: ErrorCodes.Conflict, AlreadyHandled: ErrorCodes.AlreadyHandled, ShuttingDown: ErrorCodes.ShuttingDown, TooLarge: ErrorCodes.TooLarge }

describe("mcp serve's own JSON-RPC error codes", () => {
  it("lie in the implementation-defined range and mean nothing else to a client", () => {
    for (const [name, code] of Object.entries(own)) {
      expect(code, name).toBeGreaterThanOrEqual(-32099)
      expect(code, name).toBeLessThanOrEqual(-32000)
      expect(taken.has(code), `${name} ${code} is assigned elsewhere`).toBe(false)
    }
    expect(new Set(Object.values(own)).size).toBe(Object.keys(own).length)
  })

  it("are the documented, stable values", () => {
    expect(own).toEqual({ Busy: -32080, Conflict: -32081, AlreadyHandled: -32082, ShuttingDown: -32083, TooLarge: -32084 })
  })
})
