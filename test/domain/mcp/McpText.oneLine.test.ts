import { describe, expect, it } from "vitest"
import { oneLine } from "../../../src/domain/mcp/McpText.js"

describe("McpText.oneLine", () => {
  it("spells out line breaks, tabs, ANSI, CR and bidi marks: a server's text stays on its one attributed line", () => {
    expect(oneLine("a\nb\r\nc\td\u001b[2K\re\u202ef\u2028g")).toBe("a\\nb\\r\\nc\\td\\u001b[2K\\re\\u202ef\\u2028g")
    expect(oneLine("plain text")).toBe("plain text")
  })
})
