/**
 * The McpTransport contract on the SDK transport over both wires: stdio (test/support/stdio-server.mjs, a real
 * process) and Streamable HTTP (test/support/HttpMcpServer.ts, a real server on 127.0.0.1). There is no in-memory
 * McpTransport fake: kernel tests that need MCP run these real servers, and compositions without servers use
 * `Unavailable.mcpTransport`, checked below.
 *
 * The HTTP server answers with JSON bodies and with SSE streams (HttpMcpServer's default). Found while writing this
 * suite: over SSE, a reply over `maxMessageBytes` was not refused until the call's time-out (120 s), where the same
 * reply as a JSON body was refused at once; the cut stream now fails the calls in flight.
 */
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import * as SdkMcpTransport from "../../../src/adapters/mcp/SdkMcpTransport.js"
import * as Unavailable from "../../../src/adapters/Unavailable.js"
import { McpTransport } from "../../../src/ports/McpTransport.js"
import { contract } from "../../contracts/McpTransport.contract.js"
import * as HttpMcpServer from "../../support/HttpMcpServer.js"

const tiny = path.resolve(import.meta.dirname, "../../support/stdio-server.mjs")

contract("SDK over stdio", {
  server: "tiny",
  make: (callTimeoutMs) =>
    SdkMcpTransport.make({
      servers: { tiny: { command: process.execPath, args: [tiny] } },
      env: process.env,
      maxMessageBytes: 100_000,
      ...(callTimeoutMs === undefined ? {} : { callTimeoutMs })
    })
})

contract("SDK over Streamable HTTP (JSON replies)", {
  server: "web",
  make: (callTimeoutMs) =>
    Effect.gen(function* () {
      const running = yield* Effect.acquireRelease(Effect.promise(() => HttpMcpServer.start({ json: true })), (s) => Effect.promise(() => s.close()))
      return yield* SdkMcpTransport.make({ servers: { web: { url: running.url, allowPrivate: true } }, maxMessageBytes: 100_000, ...(callTimeoutMs === undefined ? {} : { callTimeoutMs }) })
    })
})

contract("SDK over Streamable HTTP (SSE replies)", {
  server: "web",
  make: (callTimeoutMs) =>
    Effect.gen(function* () {
      const running = yield* Effect.acquireRelease(Effect.promise(() => HttpMcpServer.start()), (s) => Effect.promise(() => s.close()))
      return yield* SdkMcpTransport.make({ servers: { web: { url: running.url, allowPrivate: true } }, maxMessageBytes: 100_000, ...(callTimeoutMs === undefined ? {} : { callTimeoutMs }) })
    })
})

describe("the explicit none adapter", () => {
  it.effect("names no server and refuses every call with a typed Unavailable", () =>
    Effect.gen(function* () {
      const none = yield* Effect.provide(McpTransport, Unavailable.mcpTransport)
      assert.deepStrictEqual(none.servers, [])
      const r = yield* Effect.either(none.call("x", "y", {}))
      assert.isTrue(Either.isLeft(r) && r.left._tag === "Unavailable")
    }))
})
