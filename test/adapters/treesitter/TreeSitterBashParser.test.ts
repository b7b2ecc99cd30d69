import { describe, expect, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import * as TreeSitterBashParser from "../../../src/adapters/treesitter/TreeSitterBashParser.js"
import { firstError } from "../../../src/domain/bash/BashAst.js"
import * as Judge from "../../../src/domain/bash/Judge.js"
import { BashParser } from "../../../src/ports/BashParser.js"

const context: Judge.GuardContext = {
  cwd: "/work/ws",
  jail: { root: "/work/ws", home: "/home/dev", unrestricted: false },
  allowlist: [],
  requireAllowlist: false,
  network: true
}

describe("TreeSitterBashParser", () => {
  it("converts to a plain tree with fields and offsets into the source", () => {
    const parse = TreeSitterBashParser.loadParser()
    const ast = parse("echo é > ü; ls -la")
    expect(ast).toBeDefined()
    if (ast === undefined) return
    const json: unknown = JSON.parse(JSON.stringify(ast))
    expect(json).toEqual(ast)
    const check = (n: typeof ast.root): void => {
      expect(ast.source.slice(n.start, n.end)).toBe(n.text)
      n.children.forEach(check)
    }
    check(ast.root)
    const redirected = ast.root.children[0]
    expect(redirected?.type).toBe("redirected_statement")
    expect(redirected?.children.find((c) => c.field === "redirect")?.type).toBe("file_redirect")
  })

  it("marks errors", () => {
    const ast = TreeSitterBashParser.loadParser()('echo "open')
    expect(ast !== undefined && firstError(ast.root) !== undefined).toBe(true)
  })

  it.effect("provides the BashParser port the judge runs on", () =>
    Effect.gen(function* () {
      const parser = yield* BashParser
      const guard = { judge: (command: string) => Judge.judgeWith(command, context, (source) => Effect.map(Effect.option(parser.parse(source)), Option.getOrUndefined)) }
      const ok = yield* guard.judge("npm test")
      const no = yield* guard.judge("rm -rf /")
      expect(ok.decision.decision).toBe("allow")
      expect(no.decision).toMatchObject({ decision: "deny", stage: "guard", rule: "guard.destruction" })
      const big = yield* guard.judge("echo " + "x".repeat(70_000))
      expect(big.decision.rule).toBe("guard.too-large")
    }).pipe(Effect.provide(TreeSitterBashParser.parserLayer))
  )
})
