/**
 * Deadlines and process groups against the scripted server (test/support/lsp-fake-server.mjs): a server that hangs
 * on initialize, on a request, on diagnostics or on shutdown is killed with its helper (a process it spawned, that
 * ignores SIGTERM); one that exits at start is a clear error, never a crash; an interrupted call leaves nothing running.
 */
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import * as JsonRpcLspTransport from "../../../src/adapters/lsp/JsonRpcLspTransport.js"
import { fakeServer, pidsOf, reap, survivors } from "../../support/LspFake.js"
import { tempDir } from "../../support/Workspace.js"

const root = tempDir("minicode-lsp-deadlines-")
const doc = { path: path.join(root, "a.fake"), text: "hello\n" }
const at = { line: 0, character: 1 }
let n = 0
const marker = () => path.join(root, `m${++n}`)

const transport = (modes: string, mark: string, over: Partial<JsonRpcLspTransport.Options> = {}) =>
  JsonRpcLspTransport.make({
    root,
    env: process.env,
    servers: { ".fake": { command: process.execPath, args: [fakeServer, modes, mark] } },
    backoffBaseMs: 50,
    ...over
  })

/** Every process the server recorded is gone (after the kill's own grace); whatever is left is killed. */
const allGone = (mark: string) =>
  Effect.promise(async () => {
    const pids = pidsOf(mark)
    const left = await survivors(pids)
    reap(left)
    return { pids, left }
  })

describe("JsonRpcLspTransport deadlines", () => {
  it.live("a server hung on initialize fails within its deadline, and its group (helper included) is killed", () =>
    Effect.gen(function* () {
      const mark = marker()
      const t0 = Date.now()
      const e = yield* Effect.scoped(Effect.flatMap(transport("hang-initialize,child,ignore-sigterm", mark, { initializeTimeoutMs: 800 }), (lsp) => Effect.flip(lsp.hover(doc, at))))
      assert.strictEqual(e.message, "language server node (.fake) (initialize) timed out after 800 ms")
      assert.isBelow(Date.now() - t0, 8000)
      const { pids, left } = yield* allGone(mark)
      assert.strictEqual(pids.length, 2, "the server and its helper started")
      assert.deepStrictEqual(left, [])
    })
  )

  it.live("a request that is never answered: timeout, the hung server is killed at once, the next use starts a new one", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const mark = marker()
        const lsp = yield* transport("hang-hover,child,ignore-sigterm", mark, { requestTimeoutMs: 700 })
        const e = yield* Effect.flip(lsp.hover(doc, at))
        assert.strictEqual(e.message, "language server node (.fake) (textDocument/hover) timed out after 700 ms")
        // Killed before the timeout was reported, not when the session ends.
        const first = pidsOf(mark)
        const { left } = yield* allGone(mark)
        assert.deepStrictEqual(left, [])
        const again = yield* Effect.flip(lsp.hover(doc, at))
        assert.strictEqual(again._tag, "ToolTimeout")
        assert.notDeepEqual(pidsOf(mark), first, "a new server was started")
        assert.deepStrictEqual((yield* allGone(mark)).left, [])
      })
    )
  )

  it.live("a server that exits at start: its status and last stderr lines, for requests and diagnostics alike", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const lsp = yield* transport("exit-at-start", marker())
        const hover = yield* Effect.flip(lsp.hover(doc, at))
        assert.strictEqual(hover._tag, "ToolFailed")
        assert.strictEqual(
          hover.message,
          "language server node (.fake) failed: the language server exited at start (code 7): fake-lsp: cannot load the project | fake-lsp: giving up"
        )
        for (let i = 0; i < 3; i++) {
          const diag = yield* Effect.flip(lsp.diagnostics(doc, { changed: true }))
          assert.include(diag.message, "the language server exited at start (code 7): fake-lsp: cannot load the project")
        }
      })
    )
  )

  it.live("a server that crashes mid-session fails diagnostics at once, not at the deadline", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const lsp = yield* transport("crash-mid-session,child", marker(), { diagnosticsTimeoutMs: 60_000 })
        const t0 = Date.now()
        const e = yield* Effect.flip(lsp.diagnostics(doc, { changed: true }))
        assert.include(e.message, "it exited with code 5")
        assert.isBelow(Date.now() - t0, 30_000)
      })
    )
  )

  it.live("after a hang, writes stop waiting on the server (said in full once) until an lsp call starts it and it answers", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const mark = marker()
        const lsp = yield* transport("hang-hover", mark, { requestTimeoutMs: 700 })
        assert.strictEqual((yield* Effect.flip(lsp.hover(doc, at)))._tag, "ToolTimeout")
        const started = pidsOf(mark).length
        const t0 = Date.now()
        const first = yield* Effect.flip(lsp.diagnostics(doc, { changed: true }))
        assert.include(first.message, "skipped: it hung earlier (it did not answer textDocument/hover within 700 ms, and was killed)")
        assert.include(first.message, "until an lsp_* call starts it again")
        const second = yield* Effect.flip(lsp.diagnostics(doc, { changed: true }))
        assert.include(second.message, "skipped: it hung earlier")
        assert.notInclude(second.message, "textDocument/hover")
        // Neither write started the server again, nor waited for it.
        assert.strictEqual(pidsOf(mark).length, started)
        assert.isBelow(Date.now() - t0, 700)
        // An lsp call starts it again; it answers initialize, so writes ask it again.
        const report = yield* lsp.diagnostics(doc)
        assert.isAbove(report.diagnostics.length, 0)
        assert.isAbove((yield* lsp.diagnostics(doc, { changed: true })).diagnostics.length, 0)
      })
    )
  )

  it.live("diagnostics from a server that neither publishes nor answers: timeout, and the server is killed", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const mark = marker()
        const lsp = yield* transport("hang-diagnostics,child,ignore-sigterm", mark, { diagnosticsTimeoutMs: 900 })
        const e = yield* Effect.flip(lsp.diagnostics(doc))
        assert.strictEqual(e.message, "language server node (.fake) (diagnostics) timed out after 900 ms")
        assert.deepStrictEqual((yield* allGone(mark)).left, [])
      })
    )
  )

  it.live("closing the session with a server hung on everything (shutdown too) is bounded and kills the group", () =>
    Effect.gen(function* () {
      const mark = marker()
      const modes = "hang-hover,hang-shutdown,ignore-sigterm,child"
      const t0 = Date.now()
      yield* Effect.scoped(
        Effect.gen(function* () {
          const lsp = yield* transport(modes, mark, { shutdownTimeoutMs: 400 })
          // Started and initialised, then interrupted while it hangs on a hover.
          const call = yield* Effect.fork(lsp.hover(doc, at))
          yield* Effect.sleep("1 second")
          yield* Fiber.interrupt(call)
        })
      )
      assert.isBelow(Date.now() - t0, 8000)
      const { pids, left } = yield* allGone(mark)
      assert.strictEqual(pids.length, 2)
      assert.deepStrictEqual(left, [])
    })
  )
})
