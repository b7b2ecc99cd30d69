import { describe, expect, it } from "@effect/vitest"
import { Either, FastCheck as fc } from "effect"
import * as ExactName from "../../../src/domain/files/ExactName.js"
import * as Tools from "../../../src/domain/core/Tools.js"

/** What Node does with a path string: UTF-8 with U+FFFD for what cannot be encoded. */
const roundTrips = (s: string) => Buffer.from(s, "utf8").toString("utf8") === s

describe("ExactName", () => {
  it("accepts a path exactly when it encodes to UTF-8 and back unchanged and holds no U+FFFD", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (s) => {
        expect(ExactName.problem(s) === undefined).toBe(roundTrips(s) && !s.includes("\uFFFD"))
      }),
      { numRuns: 500 }
    )
  })

  it("names the character and where it is", () => {
    expect(ExactName.problem("a\uD800b")).toMatch(/unpaired surrogate \(U\+D800\) at character 2/)
    expect(ExactName.problem("ab\uDC00")).toMatch(/unpaired surrogate \(U\+DC00\) at character 3/)
    expect(ExactName.problem("x\uFFFD.txt")).toMatch(/U\+FFFD .* at character 2/)
    expect(ExactName.problem("caf\u00e9/\u{1F600}.txt")).toBeUndefined()
  })

  it("every path argument of every tool refuses it (the tool schemas share one Path)", () => {
    const calls: ReadonlyArray<readonly [string, Record<string, unknown>]> = [
      ["read_file", { path: "@" }],
      ["write_file", { path: "@", content: "" }],
      ["edit_file", { path: "@", old_string: "a", new_string: "b" }],
      ["move_file", { from: "@", to: "b" }],
      ["move_file", { from: "a", to: "@" }],
      ["delete_file", { path: "@" }],
      ["list_dir", { path: "@" }],
      ["glob", { pattern: "*", path: "@" }],
      ["grep", { pattern: "x", path: "@" }],
      ["bash", { command: "ls", cwd: "@" }],
      ["git_diff", { path: "@" }],
      ["git_commit", { message: "m", paths: ["ok", "@"] }],
      ["lsp_hover", { path: "@", line: 1, character: 1 }],
      ["repo_map", { path: "@" }]
    ]
    for (const [tool, args] of calls) {
      for (const bad of ["x\uD800", "x\uFFFD"]) {
        const decoded = Tools.decode(tool, JSON.parse(JSON.stringify(args).replace("@", bad.replace("\uD800", "\\ud800"))))
        expect(Either.isLeft(decoded), `${tool} ${JSON.stringify(bad)}`).toBe(true)
        if (Either.isLeft(decoded) && decoded.left._tag === "InvalidArguments") expect(decoded.left.details).toMatch(/unpaired surrogate|U\+FFFD/)
      }
    }
  })
})
