/**
 * Nothing lost between an MCP server and the model: listings with whole schemas, descriptions, templates, hints and
 * task support; results with structured content, links, audience; control characters made visible; optional lists
 * that fail never hide tools; errors said once. Against server-everything and a misbehaving server of our own.
 */
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as SdkMcpTransport from "../../../src/adapters/mcp/SdkMcpTransport.js"
import * as McpFormat from "../../../src/domain/mcp/McpFormat.js"
import { McpTransport } from "../../../src/ports/McpTransport.js"

const root = path.resolve(import.meta.dirname, "../../..")
export const everything = path.join(root, "node_modules/@modelcontextprotocol/server-everything/dist/index.js")
export const misbehaving = path.join(root, "test/support/misbehaving-server.mjs")
const text = (c: McpFormat.McpContent) => McpFormat.content(c)

const servers = {
  bad: { command: process.execPath, args: [misbehaving] },
  everything: { command: process.execPath, args: [everything, "stdio"] }
}

describe("MCP client fidelity", () => {
  it.live("the listing keeps nested schemas, whole descriptions (cut visibly), templates, hints, task support; a failed optional list is a note", () =>
    Effect.gen(function* () {
      const mcp = yield* McpTransport
      const listed = yield* mcp.list("bad")
      const out = McpFormat.listing(listed)
      assert.isUndefined(listed[0]?.error)
      assert.strictEqual(listed[0]?.tools.length, 16)
      assert.include(out, "bad.nested(target*, tags, mode, node) Deeply nested input.\n    Second line of the description.\n    Every word matters here.")
      assert.include(out, "more characters]")
      assert.include(out, 'in: {target*: {host*: string(hostname), port: integer 1..65535 =443} "Where to send it", tags: {key: string, value: string|null}[], mode: "fast"|"full", node: {name: string, children: Node[]}}')
      assert.include(out, "out: {sent*: boolean, bytes: integer}")
      assert.include(out, "hints: readOnly=true openWorld=false")
      assert.include(out, "title: Nested thing")
      assert.include(out, "bad.tasky() Only as a task.\n    task-only: needs task augmentation")
      assert.include(out, "template mem://items/{id} (item) application/json One item by id.")
      assert.include(out, "note: bad resources/list failed:")
      assert.include(out, "resources are broken today")
      assert.include(out, "Bad\\u001b[31m bytes\\u0000 in the description.")
      assert.notInclude(out, "\u001b")
    }).pipe(Effect.provide(SdkMcpTransport.layer({ servers, env: process.env, cwd: root })))
  )

  it.live("structuredContent is judged by the tool's output schema, listed first or not: a mismatch or a missing one is an error that says so", () =>
    Effect.gen(function* () {
      const mcp = yield* McpTransport
      // No mcp.list before: the first call lists the tools itself, as the SDK's callTool needs.
      const good = yield* mcp.call("bad", "shaped", {})
      assert.isFalse(good.isError)
      assert.strictEqual(text(good), 'the weather is fine\nstructured content: {"temperature":21,"unit":"C"}')
      const broken = yield* mcp.call("bad", "shaped", { how: "bad" })
      assert.isTrue(broken.isError)
      assert.include(text(broken), "minicode: the result of bad.shaped is not valid: its structuredContent does not match its output schema")
      assert.include(text(broken), "the weather is fine")
      const none = yield* mcp.call("bad", "shaped", { how: "none" })
      assert.isTrue(none.isError)
      assert.include(text(none), "it declares an output schema but returned no structuredContent")
      // A tool without an output schema is not judged.
      assert.isFalse((yield* mcp.call("bad", "structured", {})).isError)
    }).pipe(Effect.provide(SdkMcpTransport.layer({ servers, env: process.env, cwd: root })))
  )

  it.live("a -32042 (URL elicitation required) names the server's pages so the person can finish the flow; only http(s) pages are shown", () =>
    Effect.gen(function* () {
      const mcp = yield* McpTransport
      const failed = yield* Effect.flip(mcp.call("bad", "needsurl", {}))
      assert.include(failed.message, 'the MCP server "bad" asks you to open https://auth.example.com/connect?state=1 (Connect your\\u001b[2K calendar), then call again')
      assert.include(failed.message, 'the MCP server "bad" named a page minicode does not show (not an http(s) URL) (Click)')
      assert.notInclude(failed.message, "javascript:")
      assert.notInclude(failed.message, "\u001b")
    }).pipe(Effect.provide(SdkMcpTransport.layer({ servers, env: process.env, cwd: root })))
  )

  it.live("results keep structured content, link descriptions and audience; controls are visible; errors said once; huge results cut", () =>
    Effect.gen(function* () {
      const mcp = yield* McpTransport
      assert.strictEqual(text(yield* mcp.call("bad", "structured", {})), 'the weather is fine\nstructured content: {"temperature":21,"unit":"C"}')
      assert.strictEqual(text(yield* mcp.call("bad", "links", {})), "[resource link file:///tmp/report.csv (report): text/csv — The quarterly report]\n[for user] for the user only")
      const controls = text(yield* mcp.call("bad", "controls", {}))
      assert.strictEqual(controls, "red\\u001b[31mALERT\\u001b[0m nul\\u0000 cr\\rover \\u202eevil")
      const bad = yield* Effect.either(mcp.call("bad", "badargs", {}))
      assert.isTrue(bad._tag === "Left")
      if (bad._tag === "Left") {
        assert.include(bad.left.message, "MCP error -32602: argument x is missing")
        assert.notInclude(bad.left.message, "MCP error -32602: MCP error -32602")
      }
      const huge = yield* Effect.either(mcp.call("bad", "huge", { n: 200_000 }))
      assert.isTrue(huge._tag === "Left" && huge.left.message.includes("over the 100000-byte cap"))
      assert.include(text(yield* mcp.call("bad", "huge", { n: 10 })), "zzzzzzzzzz")
    }).pipe(Effect.provide(SdkMcpTransport.layer({ servers, env: process.env, cwd: root, maxMessageBytes: 100_000 })))
  )

  it.live("server-everything: structured content beside its text, annotated messages, resource links, templates, prompts", () =>
    Effect.gen(function* () {
      const mcp = yield* McpTransport
      const [listing] = yield* mcp.list("everything")
      const out = McpFormat.listing(listing === undefined ? [] : [listing])
      assert.isUndefined(listing?.error)
      assert.isTrue((listing?.templates?.length ?? 0) > 0)
      assert.isTrue((listing?.prompts.length ?? 0) > 0)
      assert.include(out, "out: {")
      const structured = text(yield* mcp.call("everything", "get-structured-content", { location: "New York" }))
      // The server sends the same JSON as text and as structuredContent: shown once.
      assert.match(structured, /^\{"temperature":\d+,"conditions":"\w+","humidity":\d+\}$/)
      const annotated = text(yield* mcp.call("everything", "get-annotated-message", { messageType: "debug", includeImage: false }))
      assert.match(annotated, /^\[for assistant\] Debug: /)
      const links = text(yield* mcp.call("everything", "get-resource-links", { count: 2 }))
      assert.include(links, "[resource link demo://resource/dynamic/text/2 (Text Resource 2): text/plain — Resource 2: plaintext resource]")
    }).pipe(Effect.provide(SdkMcpTransport.layer({ servers, env: process.env, cwd: root })))
  )
})
