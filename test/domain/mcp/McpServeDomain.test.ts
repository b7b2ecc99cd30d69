/** The pure parts of `mcp serve`: framing and id sniffing, scopes, scrubbing, client config merging. */
import { assert, describe, it } from "@effect/vitest"
import { Either, FastCheck as fc } from "effect"
import * as ClientConfig from "../../../src/domain/mcp/McpClientConfig.js"
import * as Framing from "../../../src/domain/mcp/JsonRpcFraming.js"
import * as Scopes from "../../../src/domain/mcp/McpScopes.js"
import { scrub } from "../../../src/domain/core/Scrub.js"

const bytes = (s: string) => new TextEncoder().encode(s)

/** Feeds a line to the sniffer in chunks of the given sizes. */
const sniffChunked = (line: string, sizes: ReadonlyArray<number>) => {
  const all = bytes(line)
  let state = Framing.sniffStart
  let at = 0
  for (const size of sizes) {
    state = Framing.sniff(state, all.subarray(at, at + size))
    at += size
  }
  return Framing.sniffedId(Framing.sniff(state, all.subarray(at)))
}

describe("JSON-RPC framing", () => {
  it("sniffs the top-level id wherever it sits and however the line is chunked", () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.integer({ min: -1e9, max: 1e9 }), fc.string({ maxLength: 20 })),
        fc.jsonValue(),
        fc.boolean(),
        fc.array(fc.nat(40), { maxLength: 20 }),
        (id, params, idLast, sizes) => {
          const message = idLast ? { jsonrpc: "2.0", method: "m", params: { id: "nested", params }, id } : { id, jsonrpc: "2.0", params: { id: 0, x: params } }
          assert.deepStrictEqual(sniffChunked(JSON.stringify(message), sizes), id)
        }
      ),
      { seed: 7, numRuns: 300 }
    )
  })

  it("finds no id in a message without one", () => {
    assert.strictEqual(sniffChunked(JSON.stringify({ jsonrpc: "2.0", method: "n", params: { id: 3 } }), [5]), null)
  })

  it("classifies lines: messages, parse errors, invalid requests with their id, ignored responses", () => {
    const parse = (u: unknown) => (typeof u === "object" && u !== null && "jsonrpc" in u && "method" in u && typeof u.method === "string" ? u : undefined)
    assert.strictEqual(Framing.classify('{"jsonrpc":"2.0","method":"ping","id":1}\r', parse)._tag, "Message")
    const broken = Framing.classify("{nope", parse)
    assert.isTrue(broken._tag === "Reply" && broken.reply.error.code === -32700 && broken.reply.id === null)
    const invalid = Framing.classify('{"jsonrpc":"2.0","id":"x","method":5}', parse)
    assert.isTrue(invalid._tag === "Reply" && invalid.reply.error.code === -32600 && invalid.reply.id === "x")
    assert.strictEqual(Framing.classify('{"jsonrpc":"2.0","id":4,"result":7}', parse)._tag, "Ignore")
    assert.strictEqual(Framing.classify("   ", parse)._tag, "Ignore")
  })

  it("turns the SDK's schema-issue dump into readable invalid params", () => {
    const tidy = Framing.tidyError(-32603, JSON.stringify([{ code: "invalid_type", path: ["params", "name"], message: "expected string" }]))
    assert.deepStrictEqual(tidy, { code: -32602, message: "Invalid params: params.name: expected string" })
    assert.strictEqual(Framing.tidyError(-32603, "boom"), undefined)
  })
})

describe("scopes", () => {
  const parse = (flags: ReadonlyArray<string>, allTools = false) => Scopes.parse(flags, { allowAll: false, allTools })

  it("defaults: files=write, search=read, shell=write, git=read, lsp=read, sql=read, mcp off", () => {
    const s = Either.getOrThrow(parse([]))
    assert.deepStrictEqual(s.levels, Scopes.defaults)
    const listed = Scopes.listed(s)
    assert.includeMembers([...listed], ["write_file", "bash", "git_status", "sql_query"])
    for (const t of ["git_commit", "git_push", "mcp_list", "web_fetch"]) assert.notInclude([...listed], t)
  })

  it("rejects unknown scopes and levels, and mcp without --all-tools", () => {
    assert.isTrue(Either.isLeft(parse(["disk=write"])))
    assert.isTrue(Either.isLeft(parse(["files=maybe"])))
    assert.isTrue(Either.isLeft(parse(["mcp=read"])))
    assert.isTrue(Either.isRight(parse(["mcp=read"], true)))
  })

  it("a listed tool is exactly one not refused by name", () => {
    const level = fc.constantFrom("off", "read", "write")
    fc.assert(
      fc.property(fc.record({ files: level, search: level, shell: level, git: level, lsp: level, sql: level }), fc.boolean(), (levels, allowAll) => {
        const flags = Object.entries(levels).map(([k, v]) => `${k}=${v}`)
        const s = Either.getOrThrow(Scopes.parse(flags, { allowAll, allTools: false }))
        for (const name of Scopes.listed(s)) assert.strictEqual(Scopes.refuseByName(s, name), undefined)
        if (levels.files !== "write") assert.notInclude([...Scopes.listed(s)], "write_file")
        if (levels.shell === "off" || levels.shell === "read") assert.notInclude([...Scopes.listed(s)], "bash")
      }),
      { seed: 11, numRuns: 200 }
    )
  })
})

describe("scrub", () => {
  const ctx = { root: "/work/project" }
  it("keeps workspace paths relative, hides outside paths and secrets, drops stack frames", () => {
    assert.strictEqual(scrub(ctx, "cannot read /work/project/src/a.ts"), "cannot read src/a.ts")
    assert.strictEqual(scrub(ctx, "path: /etc/shadow is outside"), "path: <a path outside the workspace> is outside")
    assert.notInclude(scrub(ctx, "token=ghp_abcdefghijklmnopqrstuvwx and sk-abcdefghijklmnopqrstu"), "ghp_abc")
    assert.notInclude(scrub(ctx, "Error: x\n    at f (/usr/lib/node/x.js:1:2)\n    at g"), "/usr/lib")
    assert.strictEqual(scrub(ctx, "see https://example.com/a/b"), "see https://example.com/a/b")
  })
})

describe("client config", () => {
  const env = { platform: "linux", home: "/home/u" }
  const start = { command: "/usr/bin/node", args: ["/opt/minicode/dist/bin.js"] }
  it("prints the claude-code command and the JSON for the others", () => {
    assert.include(ClientConfig.snippet("claude-code", start, "/w", env), "claude mcp add minicode -- /usr/bin/node /opt/minicode/dist/bin.js mcp serve --cwd /w")
    assert.include(ClientConfig.snippet("vscode", start, "/w", env), '"servers"')
    assert.include(ClientConfig.snippet("claude-desktop", start, "/w", env), "/home/u/.config/Claude/claude_desktop_config.json")
  })

  it("merges without clobbering other servers, and refuses what it cannot parse", () => {
    const t = ClientConfig.target("cursor", start, "/w", env)
    const merged = Either.getOrThrow(ClientConfig.merge(JSON.stringify({ mcpServers: { other: { command: "x" } }, theme: "dark" }), t))
    const parsed: unknown = JSON.parse(merged)
    assert.deepInclude(parsed, { theme: "dark" })
    assert.deepStrictEqual(JSON.parse(merged).mcpServers.other, { command: "x" })
    assert.deepStrictEqual(JSON.parse(merged).mcpServers.minicode.args, ["/opt/minicode/dist/bin.js", "mcp", "serve", "--cwd", "/w"])
    assert.isTrue(Either.isLeft(ClientConfig.merge("{ // comment", t)))
    assert.isTrue(Either.isLeft(ClientConfig.merge(JSON.stringify({ mcpServers: [] }), t)))
    assert.isTrue(Either.isRight(ClientConfig.merge(undefined, t)))
  })
})
