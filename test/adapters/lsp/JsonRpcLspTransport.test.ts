/**
 * The LSP client's failure paths against a scripted server (test/support/lsp-fake-server.mjs): a server that
 * crashes mid-request (clear error, restarted on next use after its back-off), one that is missing, one that never
 * answers initialize, one that is slow, one whose reply is over the message cap; and the requests servers send.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as JsonRpcLspTransport from "../../../src/adapters/lsp/JsonRpcLspTransport.js"
import { tempDir } from "../../support/Workspace.js"

const fake = path.resolve(import.meta.dirname, "../../support/lsp-fake-server.mjs")
const root = tempDir("minicode-lsp-fake-")
const doc = { path: path.join(root, "a.fake"), text: "hello\n" }
const at = { line: 0, character: 1 }

const transport = (mode: string, marker: string, over: Partial<JsonRpcLspTransport.Options> = {}) =>
  JsonRpcLspTransport.make({
    root,
    env: process.env,
    servers: { ".fake": { command: process.execPath, args: [fake, mode, marker] } },
    backoffBaseMs: 300,
    ...over
  })

describe("JsonRpcLspTransport", () => {
  it.live("answers the server's requests, crashes fail at once, the next use restarts after the back-off", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const marker = path.join(root, "crash-marker")
        const lsp = yield* transport("crash-on-hover", marker)
        const crashed = yield* Effect.flip(lsp.hover(doc, at))
        assert.strictEqual(crashed._tag, "ToolFailed")
        assert.match(crashed.message, /language server node \(\.fake\) failed: the server stopped during textDocument\/hover: it exited with code 3; it is restarted on next use/)
        const t0 = Date.now()
        const again = yield* lsp.hover(doc, at)
        assert.isAtLeast(Date.now() - t0, 250, "the restart waited for the back-off")
        assert.match(again.result, /^hover from \d+$/)
        assert.notStrictEqual(again.result, `hover from ${fs.readFileSync(marker, "utf8")}`)
        const answers = JSON.parse(fs.readFileSync(`${marker}.answers`, "utf8"))
        assert.deepStrictEqual(answers.config, [null, null])
        assert.deepStrictEqual(answers.folders, [{ uri: `file://${root}`, name: path.basename(root) }])
      })
    )
  )

  it.live("a missing server is a clear error, every time", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const lsp = yield* JsonRpcLspTransport.make({ root, env: process.env, backoffBaseMs: 10, servers: { ".fake": { command: "minicode-no-such-language-server", args: ["--stdio"] } } })
        for (let i = 0; i < 2; i++) {
          const e = yield* Effect.flip(lsp.hover(doc, at))
          assert.include(e.message, "minicode-no-such-language-server was not found (is it installed and on PATH?")
        }
      })
    )
  )

  it.live("a server that never answers initialize times out, and is killed", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const lsp = yield* transport("silent", path.join(root, "silent"), { initializeTimeoutMs: 700 })
        const e = yield* Effect.flip(lsp.hover(doc, at))
        assert.strictEqual(e._tag, "ToolTimeout")
        assert.strictEqual(e.message, "language server node (.fake) (initialize) timed out after 700 ms")
      })
    )
  )

  it.live("a slow request times out (and is cancelled with $/cancelRequest)", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const lsp = yield* transport("slow-hover", path.join(root, "slow"), { requestTimeoutMs: 500 })
        const t0 = Date.now()
        const e = yield* Effect.flip(lsp.hover(doc, at))
        assert.strictEqual(e.message, "language server node (.fake) (textDocument/hover) timed out after 500 ms")
        assert.isBelow(Date.now() - t0, 4000)
      })
    )
  )

  it.live("a reply over the message cap stops the server with a clear error", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const lsp = yield* transport("huge", path.join(root, "huge"), { maxMessageBytes: 1024 * 1024 })
        const e = yield* Effect.flip(lsp.hover(doc, at))
        assert.include(e.message, "it sent a message over 1048576 bytes")
      })
    )
  )

  it.live("a file with no configured server, and a document over the size cap, are refused before any server", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const lsp = yield* transport("crash-on-hover", path.join(root, "never"), { maxDocumentBytes: 10 })
        const none = yield* Effect.flip(lsp.hover({ path: path.join(root, "x.rs"), text: "" }, at))
        assert.strictEqual(none._tag, "Unavailable")
        assert.include(none.message, "no language server is configured for .rs files")
        const big = yield* Effect.flip(lsp.hover({ ...doc, text: "x".repeat(100) }, at))
        assert.include(big.message, "over 10 bytes")
      })
    )
  )
})
