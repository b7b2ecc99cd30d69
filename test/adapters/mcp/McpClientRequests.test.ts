/**
 * Server-to-client requests are answered: roots (the workspace as a file:// root), elicitation (the given answerer,
 * a terminal driven through streams), declared only in the modes the answerer answers; sampling is never declared
 * (minicode runs no model). server-everything then shows the
 * tools it keeps for capable clients. Log notifications are kept for errors; a server that crashes at start shows
 * its stderr.
 */
import * as path from "node:path"
import { PassThrough } from "node:stream"
import { pathToFileURL } from "node:url"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as SdkMcpTransport from "../../../src/adapters/mcp/SdkMcpTransport.js"
import * as TtyElicitation from "../../../src/adapters/mcp/TtyElicitation.js"
import * as McpFormat from "../../../src/domain/mcp/McpFormat.js"
import type * as McpElicitation from "../../../src/domain/mcp/McpElicitation.js"
import { McpTransport } from "../../../src/ports/McpTransport.js"
import * as ForwardElicitation from "../../../src/serve/ForwardElicitation.js"

const root = path.resolve(import.meta.dirname, "../../..")
const everything = path.join(root, "node_modules/@modelcontextprotocol/server-everything/dist/index.js")
const misbehaving = path.join(root, "test/support/misbehaving-server.mjs")
const text = (c: McpFormat.McpContent) => McpFormat.content(c)
const servers = {
  bad: { command: process.execPath, args: [misbehaving] },
  crash: { command: process.execPath, args: [misbehaving, "crash"] },
  everything: { command: process.execPath, args: [everything, "stdio"] }
}

describe("server-to-client requests", () => {
  it.live("roots is the workspace; sampling, and elicitation without an answerer, are not declared (a server cannot offer what only fails)", () =>
    Effect.gen(function* () {
      const mcp = yield* McpTransport
      assert.deepStrictEqual(JSON.parse(text(yield* mcp.call("bad", "roots", {}))), [{ uri: pathToFileURL(root).href, name: path.basename(root) }])
      assert.deepStrictEqual(JSON.parse(text(yield* mcp.call("bad", "caps", {}))), { roots: { listChanged: false } })
      // A server that asks anyway gets JSON-RPC's "method not found", said once.
      const sampled = text(yield* mcp.call("bad", "sample", {}))
      assert.include(sampled, "Method not found")
      assert.notInclude(sampled, "MCP error -32601: MCP error -32601")
      assert.include(text(yield* mcp.call("bad", "elicit", {})), "Method not found")
    }).pipe(Effect.provide(SdkMcpTransport.layer({ servers, env: process.env, cwd: root })))
  )

  it.live("the elicitation modes declared are the answerer's: a terminal answers forms and URLs, mcp serve's forward only forms while its client has elicitation", () => {
    let upstream: { supported: () => boolean; elicit: () => Promise<never> } | undefined
    const forward = ForwardElicitation.forward(() => upstream)
    const caps = (elicit: McpElicitation.Elicit) =>
      Effect.gen(function* () {
        const mcp = yield* McpTransport
        return JSON.parse(text(yield* mcp.call("bad", "caps", {})))
      }).pipe(Effect.provide(SdkMcpTransport.layer({ servers, env: process.env, cwd: root, elicit })))
    return Effect.gen(function* () {
      const terminal = TtyElicitation.make({ input: new PassThrough(), output: new PassThrough() })
      assert.deepStrictEqual((yield* caps(terminal)).elicitation, { form: { applyDefaults: true }, url: {} })
      assert.notProperty(yield* caps(forward), "elicitation")
      upstream = { supported: () => true, elicit: () => Promise.reject(new Error("unused")) }
      assert.deepStrictEqual((yield* caps(forward)).elicitation, { form: { applyDefaults: true } })
      assert.notProperty(yield* caps(terminal), "sampling")
    })
  })

  it.live("elicitation is asked of whoever is given (the seam mcp serve forwards through)", () => {
    const asked: Array<McpElicitation.ElicitationRequest> = []
    const elicit: McpElicitation.Elicit = async (request) => {
      asked.push(request)
      return { action: "accept", content: { name: "Ada" } }
    }
    return Effect.gen(function* () {
      const mcp = yield* McpTransport
      assert.deepStrictEqual(JSON.parse(text(yield* mcp.call("bad", "elicit", {}))), { action: "accept", content: { name: "Ada" } })
      assert.strictEqual(asked[0]?.server, "bad")
      assert.strictEqual(asked[0]?.message, "Your name?")
    }).pipe(Effect.provide(SdkMcpTransport.layer({ servers, env: process.env, cwd: root, elicit })))
  })

  it.live("on a terminal the operator answers each field, and a bad answer is asked again", () => {
    const input = new PassThrough()
    const output = new PassThrough()
    let shown = ""
    // The operator: an empty name first (refused: it is required), then a name, then "send".
    const answers = ["", "Grace", "y"]
    output.on("data", (d: Buffer) => {
      shown += d.toString()
      if (shown.endsWith(": ") && answers.length > 0) input.write(`${answers.shift()}\n`)
    })
    return Effect.gen(function* () {
      const mcp = yield* McpTransport
      assert.deepStrictEqual(JSON.parse(text(yield* mcp.call("bad", "elicit", {}))), { action: "accept", content: { name: "Grace" } })
      assert.include(shown, "MCP server bad asks (not a minicode approval): Your name?")
      assert.include(shown, "name is required")
    }).pipe(Effect.provide(SdkMcpTransport.layer({ servers, env: process.env, cwd: root, elicit: TtyElicitation.make({ input, output }) })))
  })

  it.live("server-everything offers only what minicode answers: no sampling tool ever, elicitation tools only with an answerer; get-roots-list names the workspace", () => {
    const names = (elicit?: McpElicitation.Elicit) =>
      Effect.gen(function* () {
        const mcp = yield* McpTransport
        const [listing] = yield* mcp.list("everything")
        assert.include(text(yield* mcp.call("everything", "get-roots-list", {})), pathToFileURL(root).href)
        return listing?.tools.map((t) => t.name) ?? []
      }).pipe(Effect.provide(SdkMcpTransport.layer({ servers, env: process.env, cwd: root, ...(elicit === undefined ? {} : { elicit }) })))
    return Effect.gen(function* () {
      const bare = yield* names()
      assert.include(bare, "get-roots-list")
      for (const tool of ["trigger-elicitation-request", "trigger-sampling-request", "trigger-url-elicitation"]) assert.notInclude(bare, tool)
      const asked = yield* names(TtyElicitation.make({ input: new PassThrough(), output: new PassThrough() }))
      for (const tool of ["trigger-elicitation-request", "trigger-url-elicitation"]) assert.include(asked, tool)
      assert.notInclude(asked, "trigger-sampling-request")
    })
  })

  it.live("a server's log lines are shown with its failure; a server that crashes at start shows its stderr", () =>
    Effect.gen(function* () {
      const mcp = yield* McpTransport
      const failed = yield* mcp.call("bad", "log", {})
      assert.isTrue(failed.isError)
      assert.include(text(failed), "failed, see the log\nlast server log lines:\n  [error] db: database connection refused")
      const crashed = yield* Effect.either(mcp.call("crash", "anything", {}))
      assert.isTrue(crashed._tag === "Left")
      if (crashed._tag === "Left") assert.include(crashed.left.message, "boom: missing API_KEY")
      const [listed] = yield* mcp.list("crash")
      assert.include(listed?.error ?? "", "boom: missing API_KEY")
    }).pipe(Effect.provide(SdkMcpTransport.layer({ servers, env: process.env, cwd: root })))
  )
})

describe("long calls", () => {
  it.live("a progressToken is sent, progress is reported and resets the per-server time-out; a hang times out at it", () => {
    const seen: Array<string> = []
    return Effect.gen(function* () {
      const mcp = yield* McpTransport
      // 5 steps 400 ms apart is 2 s, past the 1 s time-out: each progress resets it.
      assert.strictEqual(text(yield* mcp.call("slow", "progress", { n: 5, delay: 400 })), "done after 5 steps; token present")
      // The last notification races the result on a loaded machine: the first four arrive before the call ends.
      assert.deepStrictEqual(seen.slice(0, 4), ["slow.progress: 1/5 step 1", "slow.progress: 2/5 step 2", "slow.progress: 3/5 step 3", "slow.progress: 4/5 step 4"])
      const hung = yield* Effect.either(mcp.call("slow", "hang", {}))
      assert.isTrue(hung._tag === "Left" && hung.left._tag === "ToolTimeout" && hung.left.millis === 1000)
    }).pipe(
      Effect.provide(
        SdkMcpTransport.layer({ servers: { slow: { ...servers.bad, timeout: 1 } }, env: process.env, cwd: root, onProgress: (p) => seen.push(McpFormat.progressLine(p)) })
      )
    )
  })
})
