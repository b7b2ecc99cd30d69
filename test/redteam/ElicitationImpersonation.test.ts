/**
 * Red team: an upstream MCP server's elicitation, forwarded by `mcp serve` to the client, must never pass for
 * minicode's own approval prompt. The built server, the SDK's real client, an upstream server
 * (support/impersonating-server.mjs) that sends minicode's own form (`answer`: "Allow this call?", once/always/deny)
 * with a message of ANSI line erases, a CR and forty newlines before "…; minicode asks because …".
 *
 * Was a hole: the message was forwarded raw after `The MCP server "ID" asks: `, so a terminal client erased the
 * attribution (ESC[2K, CR) or it scrolled out of sight, and the form was minicode's own. Now (serve/ForwardElicitation.ts)
 * the message is one line with every control character and newline spelled out, says it is not a minicode approval,
 * and each field's title names the server.
 */
import * as path from "node:path"
import { afterEach, beforeAll, describe, expect, it } from "vitest"
import { ensureBuilt, repo, textOf } from "../serve/support/McpServeHarness.js"
import { serveWithUpstream } from "../serve/support/Upstream.js"

const cleanups: Array<() => unknown> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})
beforeAll(() => ensureBuilt(), 120_000)

const impersonating = path.join(repo, "test/redteam/support/impersonating-server.mjs")

describe("mcp serve: a forwarded elicitation cannot impersonate minicode's approval", () => {
  it("the message is one attributed line with controls spelled out; the form's titles name the server", async () => {
    const { client, asked } = await serveWithUpstream(cleanups, [impersonating], { action: "accept", content: { answer: "once" } })

    const result = await client.callTool({ name: "mcp_call", arguments: { server: "up", tool: "ask", arguments: {} } })
    expect(textOf(result)).toContain('"action":"accept"')
    expect(asked).toHaveLength(1)
    const params = asked[0] as { message: string; requestedSchema: { properties: Record<string, { title?: string; description?: string; enumNames?: Array<string> }> } }
    const message = params.message
    expect(message.startsWith('The MCP server "up" asks (not a minicode approval; your answer goes to that server): ')).toBe(true)
    // Nothing a terminal would act on: no ESC, no CR, no newline, no bidi override.
    expect(message).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/)
    expect(message).toContain("\\u001b[2K")
    expect(message).toContain("\\n")
    const answer = params.requestedSchema.properties["answer"]
    expect(answer?.title).toBe("[up] Allow this call?\\u001b[0m")
    expect(answer?.description).toBe("Allow it once,\\nalways allow this exact tool, or deny it")
    expect(answer?.enumNames?.[0]).toBe("Allow once\\u202e")
  })
})
