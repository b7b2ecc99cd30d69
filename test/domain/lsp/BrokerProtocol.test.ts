import { Schema } from "effect"
import { describe, expect, it } from "vitest"
import { ToolFailed, ToolTimeout } from "../../../src/domain/core/Errors.js"
import * as Protocol from "../../../src/domain/lsp/BrokerProtocol.js"

describe("the LSP broker's protocol", () => {
  it("a path is inside the root only below it (never a sibling that shares its prefix)", () => {
    expect(Protocol.inside("/w/app", "/w/app")).toBe(true)
    expect(Protocol.inside("/w/app", "/w/app/src/a.ts")).toBe(true)
    expect(Protocol.inside("/w/app", "/w/app2/a.ts")).toBe(false)
    expect(Protocol.inside("/w/app", "/etc/passwd")).toBe(false)
  })

  it("the documents of each operation are the ones the jail read", () => {
    const doc = { path: "/w/a.ts", text: "x" }
    expect(Protocol.documentsOf({ op: "hover", doc, at: { line: 0, character: 0 } })).toEqual([doc])
    expect(Protocol.documentsOf({ op: "callHierarchy", doc, at: { line: 0, character: 0 }, direction: "incoming" })).toEqual([doc])
    expect(Protocol.documentsOf({ op: "workspaceSymbols", query: "q", anchors: [doc, doc] })).toEqual([doc, doc])
    expect(Protocol.documentsOf({ op: "status" })).toEqual([])
  })

  it("failures cross the socket as the same typed errors, with the same message", () => {
    const encode = Schema.encodeSync(Protocol.LineJson)
    const decode = Schema.decodeUnknownSync(Protocol.LineJson)
    for (const error of [new ToolFailed({ tool: "language server x", reason: "it exited" }), new ToolTimeout({ tool: "language server x (hover)", millis: 1200 })]) {
      const back = decode(encode({ kind: "failed", error }))
      expect(back.kind).toBe("failed")
      if (back.kind === "failed") {
        expect(back.error).toBeInstanceOf(error.constructor)
        expect(back.error.message).toBe(error.message)
      }
    }
  })

  it("a request of another version or shape is refused", () => {
    expect(() => Schema.decodeUnknownSync(Protocol.RequestJson)(JSON.stringify({ version: 1, root: "/w", watched: false, operation: { op: "status" } }))).toThrow()
    expect(() => Schema.decodeUnknownSync(Protocol.RequestJson)(JSON.stringify({ version: 2, root: "/w", watched: false, operation: { op: "rm" } }))).toThrow()
    const at = { line: 0, character: 0 }
    expect(() => Schema.decodeUnknownSync(Protocol.RequestJson)(JSON.stringify({ version: 2, root: "/w", watched: false, operation: { op: "callHierarchy", doc: { path: "/w/a", text: "" }, at, direction: "sideways" } }))).toThrow()
    expect(Schema.decodeUnknownSync(Protocol.RequestJson)(JSON.stringify({ version: 2, root: "/w", watched: false, operation: { op: "status" } })).version).toBe(Protocol.version)
  })
})
