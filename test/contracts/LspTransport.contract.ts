/**
 * One suite for every LspTransport adapter: what the LSP tools rely on. The configured servers are named and found
 * by extension; a hover, the diagnostics and a document's symbols are answered for the text given; a file with no
 * server, a server that is not installed, one that does not answer in time and one whose reply is over the cap are
 * each a typed error (ToolFailed, ToolTimeout, Unavailable), never a defect; a crashed server is not a lost
 * transport: the next use is served again.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Exit, type Scope } from "effect"
import type { LspTransportShape } from "../../src/ports/LspTransport.js"

/** `answers`: a server that answers; `hangs`: one that never answers a request; `missing`: not installed; `huge`: a reply over the cap; `crashes`: exits on its first hover. */
export type Kind = "answers" | "hangs" | "missing" | "huge" | "crashes"

export interface Fixture {
  /** A transport for `root` with one server for `extension`, behaving as `kind` says. */
  readonly make: (root: string, kind: Kind) => Effect.Effect<LspTransportShape, never, Scope.Scope>
  readonly extension: string
}

const typed = <A>(exit: Exit.Exit<A, { readonly _tag: string }>, tags: ReadonlyArray<string> = ["ToolFailed", "ToolTimeout", "Unavailable"]) => {
  assert.isTrue(Exit.isFailure(exit), String(exit))
  if (Exit.isFailure(exit)) {
    assert.isFalse(Cause.isDie(exit.cause), Cause.pretty(exit.cause))
    const error = Cause.failureOption(exit.cause)
    assert.include(tags, error._tag === "Some" ? error.value._tag : "none")
  }
}

export const contract = (name: string, fixture: Fixture) =>
  describe(`LspTransport contract: ${name}`, () => {
    const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "minicode-lsp-c-")))
    const doc = { path: path.join(root, `a${fixture.extension}`), text: "hello\n" }
    const at = { line: 0, character: 1 }
    afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

    it.scopedLive("names its server, finds it by extension, and answers for the text given", () =>
      Effect.gen(function* () {
        const lsp = yield* fixture.make(root, "answers")
        assert.strictEqual(lsp.servers.length, 1)
        assert.include(lsp.servers[0]!.extensions, fixture.extension)
        assert.deepStrictEqual(lsp.serverFor(doc.path), lsp.servers[0])
        assert.isUndefined(lsp.serverFor(path.join(root, "a.unserved-ext")))
        const hover = yield* lsp.hover(doc, at)
        assert.isAbove(hover.result.length, 0)
        const report = yield* lsp.diagnostics(doc)
        assert.isArray(report.diagnostics)
        const symbols = yield* Effect.exit(lsp.documentSymbols(doc))
        if (Exit.isFailure(symbols)) typed(symbols)
      }))

    it.scopedLive("a file with no server, a server not installed, one that hangs and one over the cap: typed errors, never defects", () =>
      Effect.gen(function* () {
        const lsp = yield* fixture.make(root, "answers")
        typed(yield* Effect.exit(lsp.hover({ path: path.join(root, "a.unserved-ext"), text: "x" }, at)))
        typed(yield* Effect.exit(lsp.diagnostics({ path: path.join(root, "a.unserved-ext"), text: "x" })))
        typed(yield* Effect.exit((yield* fixture.make(root, "missing")).hover(doc, at)))
        typed(yield* Effect.exit((yield* fixture.make(root, "hangs")).hover(doc, at)), ["ToolTimeout"])
        typed(yield* Effect.exit((yield* fixture.make(root, "huge")).hover(doc, at)))
        // Nothing lost: the first transport still answers.
        assert.isAbove((yield* lsp.hover(doc, at)).result.length, 0)
      }))

    it.scopedLive("a server that crashes mid-request is a typed error, and the next use is served again", () =>
      Effect.gen(function* () {
        const lsp = yield* fixture.make(root, "crashes")
        typed(yield* Effect.exit(lsp.hover(doc, at)))
        assert.isAbove((yield* lsp.hover(doc, at)).result.length, 0)
      }))
  })
