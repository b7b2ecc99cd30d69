/** Which file a server is asked with for workspace symbols: one the project includes, never a tool's config file. */
import { assert, describe, it } from "@effect/vitest"
import * as Lsp from "../../../src/domain/lsp/Lsp.js"

describe("anchors", () => {
  it("include prefixes from a tsconfig with comments, trailing commas and globs that look like comments", () => {
    const tsconfig = '{\n  // the project\n  "compilerOptions": { "strict": true, /* no emit */ "noEmit": true, },\n  "include": ["src/**/*", "./test", "scripts/*.ts",],\n}\n'
    assert.deepStrictEqual(Lsp.includedPrefixes(tsconfig), ["src", "test", "scripts"])
    assert.deepStrictEqual(Lsp.includedPrefixes('{"compilerOptions": {}}'), [""])
    assert.deepStrictEqual(Lsp.includedPrefixes("not json"), [])
    assert.deepStrictEqual(Lsp.includedPrefixes('{"include": "src"}'), [])
  })

  it("an included file beats a shallower one outside the project, and a tool's config file", () => {
    const files = ["vitest.config.ts", "eslint.config.ts", "src/kernel/Kernel.ts", "src/index.ts", "bench/x.ts"]
    assert.strictEqual(Lsp.pickAnchor(files, ["src"]), "src/index.ts")
    assert.strictEqual(Lsp.pickAnchor(files, []), "bench/x.ts")
    assert.strictEqual(Lsp.pickAnchor(["vitest.config.ts"], ["src"]), "vitest.config.ts")
    assert.strictEqual(Lsp.pickAnchor([], ["src"]), undefined)
  })
})
