/**
 * The LspTransport contract on the JSON-RPC transport, against the scripted language server
 * (test/support/lsp-fake-server.mjs: a real process speaking LSP over stdio; not an in-memory fake). The transport
 * is the one adapter: compositions without language servers use `Unavailable.lspTransport` (checked below). Real
 * language servers (typescript-language-server) are exercised by the LSP tool tests, too slow for a contract.
 */
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import * as JsonRpcLspTransport from "../../../src/adapters/lsp/JsonRpcLspTransport.js"
import * as Unavailable from "../../../src/adapters/Unavailable.js"
import { LspTransport } from "../../../src/ports/LspTransport.js"
import { contract, type Kind } from "../../contracts/LspTransport.contract.js"

const fake = path.resolve(import.meta.dirname, "../../support/lsp-fake-server.mjs")
const modes: Record<Exclude<Kind, "missing">, string> = { answers: "plain", hangs: "hang-hover", huge: "huge", crashes: "crash-on-hover" }
let n = 0

contract("JSON-RPC over stdio", {
  extension: ".fake",
  make: (root, kind) =>
    JsonRpcLspTransport.make({
      root,
      env: process.env,
      backoffBaseMs: 50,
      requestTimeoutMs: 1_000,
      maxMessageBytes: 1024 * 1024,
      servers: {
        ".fake": kind === "missing"
          ? { command: "minicode-no-such-language-server", args: ["--stdio"] }
          : { command: process.execPath, args: [fake, modes[kind], path.join(root, `marker-${process.pid}-${n++}`)] }
      }
    })
})

describe("the explicit none adapter", () => {
  it.effect("names no server and refuses every request with a typed Unavailable", () =>
    Effect.gen(function* () {
      const none = yield* Effect.provide(LspTransport, Unavailable.lspTransport)
      assert.deepStrictEqual([none.servers, none.serverFor("/x/a.ts")], [[], undefined])
      const r = yield* Effect.either(none.hover({ path: "/x/a.ts", text: "" }, { line: 0, character: 0 }))
      assert.isTrue(Either.isLeft(r) && r.left._tag === "Unavailable")
    }))
})
