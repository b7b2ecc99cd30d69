/**
 * What the app gives `mcp serve`: however the configuration reads, the allowlist starts empty and stays in memory,
 * and nobody is asked (every ask is a "no"). `serve` itself no longer forces this, so the app's choice is checked here.
 */
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import * as ServeLayers from "../../src/app/ServeLayers.js"
import * as D from "../../src/domain/core/Decision.js"
import { Allowlist } from "../../src/ports/Allowlist.js"
import { Approver } from "../../src/ports/Approver.js"

describe("ServeLayers.kernelAdapters", () => {
  it.scoped("an empty in-memory allowlist and an approver that says no, with servers and SQL configured", () =>
    Effect.gen(function* () {
      const adapters = ServeLayers.kernelAdapters({
        sql: {},
        mcpServers: { other: { command: "/nonexistent/should-not-spawn" } },
        lsp: {},
        sandbox: "none"
      })
      const context = yield* Layer.build(Layer.merge(adapters.allowlist, adapters.approver))
      const allowlist = Context.get(context, Allowlist)
      const approver = Context.get(context, Approver)
      assert.deepStrictEqual(yield* allowlist.entries, [])
      const request = { tool: "git_push", summary: "git push origin main", decision: D.ask("permission", "test.ask", "gated") }
      assert.strictEqual(yield* approver.ask(request), "no")
      // An "always" recorded somewhere does not outlive this build: a fresh one is empty again.
      yield* allowlist.add({ tool: "git_push" })
      const again = Context.get(yield* Layer.build(adapters.allowlist), Allowlist)
      assert.deepStrictEqual(yield* again.entries, [])
    })
  )
})
