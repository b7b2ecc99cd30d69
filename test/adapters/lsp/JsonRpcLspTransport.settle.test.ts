/**
 * Diagnostics are reported once the server has settled, against the scripted server's loading patterns: a
 * version-less server that publishes an empty report first and the real one while its work-done progress runs; one
 * that is still loading at the deadline (the report says so, it never says "no problems"); pull diagnostics with a
 * retrigger and a related document. Position requests wait for the load, or answer with the loading marker.
 */
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as JsonRpcLspTransport from "../../../src/adapters/lsp/JsonRpcLspTransport.js"
import * as Lsp from "../../../src/domain/lsp/Lsp.js"
import * as Reports from "../../../src/domain/lsp/Reports.js"
import { tempDir } from "../../support/Workspace.js"

const fake = path.resolve(import.meta.dirname, "../../support/lsp-fake-server.mjs")
const root = tempDir("minicode-lsp-settle-")
const doc = { path: path.join(root, "a.fake"), text: "hello\n" }

const transport = (mode: string, over: Partial<JsonRpcLspTransport.Options> = {}) =>
  JsonRpcLspTransport.make({ root, env: process.env, servers: { ".fake": { command: process.execPath, args: [fake, mode, path.join(root, mode)] } }, ...over })

describe("JsonRpcLspTransport settling", () => {
  it.live("an empty first report while the server's progress runs is not the answer: the real report is", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const lsp = yield* transport("loading")
        for (let i = 0; i < 2; i++) {
          const report = yield* lsp.diagnostics(doc)
          assert.deepStrictEqual(report.diagnostics.map((d) => d.message), ["fake warning"])
          assert.isUndefined(report.incompleteAfter)
        }
      })
    )
  )

  it.live("still loading at the deadline: 'may be incomplete', never 'no problems'; positions carry the marker", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const lsp = yield* transport("still-loading", { diagnosticsTimeoutMs: 1500, loadTimeoutMs: 1200 })
        const report = yield* lsp.diagnostics(doc)
        assert.deepStrictEqual(report.diagnostics, [])
        assert.isAtLeast(report.incompleteAfter ?? 0, 1)
        const text = Reports.formatReport({ root }, "a.fake", report).text
        assert.strictEqual(text, `a.fake: diagnostics may be incomplete: the server was still loading (${report.incompleteAfter} s)`)
        assert.notInclude(text, "no problems")
        const def = yield* lsp.definition(doc, { line: 0, character: 1 })
        assert.deepStrictEqual(def.result, [])
        assert.isAtLeast(def.loadingSeconds ?? 0, 1)
      })
    )
  )

  it.live("pull diagnostics: retriggered when the server cancels, with the errors of a related document", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const lsp = yield* transport("pull")
        const report = yield* lsp.diagnostics(doc, { changed: true })
        assert.deepStrictEqual(report.diagnostics.map((d) => d.message), ["fake warning"])
        const text = Reports.formatReport({ root }, "a.fake", report).text
        assert.strictEqual(
          text,
          "a.fake: 1 warning\na.fake:1:1 warning: fake warning\nerrors in files that depend on it:\ndependent.fake: 1 error\ndependent.fake:3:5 error: fake error in a dependent"
        )
        assert.strictEqual(Lsp.fileUri(path.join(root, "dependent.fake")), report.related?.[0]?.uri)
      })
    )
  )

  it.live("workspace/diagnostic, when offered: after a write, the errors it reports in other files", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const lsp = yield* transport("workspace-pull")
        const plain = yield* lsp.diagnostics(doc)
        assert.deepStrictEqual(plain.related ?? [], [])
        const report = yield* lsp.diagnostics(doc, { changed: true })
        assert.strictEqual(
          Reports.formatReport({ root }, "a.fake", report).text,
          "a.fake: 1 warning\na.fake:1:1 warning: fake warning\nerrors in files that depend on it:\nother.fake: 1 error\nother.fake:1:3 error: fake error in other.fake"
        )
      })
    )
  )
})
