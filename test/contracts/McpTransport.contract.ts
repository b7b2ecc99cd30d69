/**
 * One suite for every McpTransport adapter: what the MCP tools rely on. The configured servers are named; a
 * listing names the server's tools; a call answers with the server's content; an unknown server, an unknown tool,
 * arguments the tool's schema refuses, a reply over the cap and a call past its time-out are each a typed error
 * (ToolFailed, ToolTimeout, Unavailable) or an error result, never a defect; interrupting a call stops the wait, and
 * the transport still serves the next call (nothing lost).
 */
import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Exit, Fiber, type Scope } from "effect"
import * as McpFormat from "../../src/domain/mcp/McpFormat.js"
import type { McpTransportShape } from "../../src/ports/McpTransport.js"

export interface Fixture {
  /** A transport to one server named `server` with tools `echo` (text), `slow` (never answers) and `big` (n chars), its cap on a reply 100,000 bytes. */
  readonly make: (callTimeoutMs?: number) => Effect.Effect<McpTransportShape, never, Scope.Scope>
  readonly server: string
}

/** Fails the test when `exit` is a defect; true when it is a typed failure or an error result. */
const refused = (exit: Exit.Exit<McpFormat.McpContent, { readonly _tag: string }>): boolean => {
  if (Exit.isSuccess(exit)) return exit.value.isError === true
  assert.isFalse(Cause.isDie(exit.cause), Cause.pretty(exit.cause))
  const error = Cause.failureOption(exit.cause)
  return error._tag === "Some" && ["ToolFailed", "ToolTimeout", "Unavailable"].includes(error.value._tag)
}

export const contract = (name: string, fixture: Fixture) =>
  describe(`McpTransport contract: ${name}`, () => {
    it.scopedLive("names its server, lists its tools and calls one", () =>
      Effect.gen(function* () {
        const mcp = yield* fixture.make()
        assert.deepStrictEqual([...mcp.servers], [fixture.server])
        const [listing] = yield* mcp.list(fixture.server)
        assert.strictEqual(listing?.server, fixture.server)
        assert.isUndefined(listing?.error)
        for (const tool of ["echo", "slow", "big"]) assert.isTrue(listing?.tools.some((t) => t.name === tool), tool)
        const all = yield* mcp.list()
        assert.deepStrictEqual(all.map((l) => l.server), [fixture.server])
        const out = yield* mcp.call(fixture.server, "echo", { text: "contract-hello" })
        assert.isFalse(out.isError === true)
        assert.include(McpFormat.content(out), "contract-hello")
      }))

    it.scopedLive("an unknown server, an unknown tool, refused arguments and an oversized reply are refused, never a defect", () =>
      Effect.gen(function* () {
        const mcp = yield* fixture.make()
        const unknownServer = yield* Effect.exit(mcp.call("no-such-server", "echo", { text: "x" }))
        assert.isTrue(Exit.isFailure(unknownServer) && refused(unknownServer), String(unknownServer))
        assert.isTrue(refused(yield* Effect.exit(mcp.call(fixture.server, "no_such_tool", {}))))
        assert.isTrue(refused(yield* Effect.exit(mcp.call(fixture.server, "echo", { text: 42 }))))
        assert.isTrue(refused(yield* Effect.exit(mcp.call(fixture.server, "big", { n: 200_000 }))))
        assert.isTrue(refused(yield* Effect.exit(mcp.read(fixture.server, "nothing://here"))))
        assert.isTrue(refused(yield* Effect.exit(mcp.prompt(fixture.server, "no-such-prompt", {}))))
        // Nothing lost: the same transport still answers.
        assert.include(McpFormat.content(yield* mcp.call(fixture.server, "echo", { text: "after" })), "after")
      }))

    it.scopedLive("interrupting a call stops the wait; a call past its time-out is a typed ToolTimeout; the next call is served", () =>
      Effect.gen(function* () {
        const mcp = yield* fixture.make()
        yield* mcp.list(fixture.server)
        const fiber = yield* Effect.fork(mcp.call(fixture.server, "slow", {}))
        yield* Effect.sleep("100 millis")
        const stopped = yield* Fiber.interrupt(fiber)
        assert.isTrue(Exit.isInterrupted(stopped))
        assert.include(McpFormat.content(yield* mcp.call(fixture.server, "echo", { text: "again" })), "again")

        const short = yield* fixture.make(300)
        const timedOut = yield* Effect.exit(short.call(fixture.server, "slow", {}))
        assert.isTrue(Exit.isFailure(timedOut))
        if (Exit.isFailure(timedOut)) {
          assert.isFalse(Cause.isDie(timedOut.cause))
          const error = Cause.failureOption(timedOut.cause)
          assert.strictEqual(error._tag === "Some" ? error.value._tag : "none", "ToolTimeout")
        }
        assert.include(McpFormat.content(yield* short.call(fixture.server, "echo", { text: "later" })), "later")
      }))
  })
