import { assert, describe, it } from "@effect/vitest"
import * as Canonical from "../../../src/domain/core/Canonical.js"
import * as Summary from "../../../src/domain/core/Summary.js"
import * as Tools from "../../../src/domain/core/Tools.js"

const facts = (call: Tools.ToolCall) => Tools.facts(call)

describe("what the operator is shown", () => {
  it("bash shows the command, SQL its header and text, file tools their paths", () => {
    assert.strictEqual(Summary.summary(facts({ tool: "bash", args: { command: "npm test" } })), "$ npm test")
    assert.strictEqual(
      Summary.summary(facts({ tool: "sql_query", args: { sql: "DELETE FROM t", write: true, params: [1] } })),
      "WRITE SQL on the default connection with parameters [1]:\nDELETE FROM t"
    )
    assert.strictEqual(Summary.summary(facts({ tool: "move_file", args: { from: "a.txt", to: "b.txt" } })), "move_file a.txt → b.txt")
  })
})

describe("a call's canonical text", () => {
  it("sorts keys at every depth and drops undefined, so equal calls give equal text", () => {
    assert.strictEqual(Canonical.canonical({ b: 1, a: { d: [1, { z: 1, y: undefined }], c: null } }), '{"a":{"c":null,"d":[1,{"z":1}]},"b":1}')
    assert.strictEqual(
      Canonical.canonicalArgs({ tool: "write_file", args: { path: "a", content: "x" } }),
      Canonical.canonicalArgs({ tool: "write_file", args: { content: "x", path: "a" } })
    )
    assert.notStrictEqual(
      Canonical.canonicalArgs({ tool: "write_file", args: { path: "a", content: "x" } }),
      Canonical.canonicalArgs({ tool: "write_file", args: { path: "a", content: "y" } })
    )
  })
})
