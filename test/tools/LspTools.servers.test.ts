/**
 * More language servers for real, each through the whole chain with the same six-tool smoke test (diagnostics
 * after a write that breaks the file, definition, references, hover, symbols, workspace symbols): clangd,
 * vscode-json-language-server (pull diagnostics; it offers neither definitions nor references: "the server does not offer …"), the
 * CSS server's hover (its inline images dropped),
 * gopls (needs the go toolchain, which .ci/run installs). Cross-file definition and references cold (the first
 * request of a fresh server) and warm, for Python (pyright) and Go.
 */
import { execFileSync } from "node:child_process"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { write } from "../support/Workspace.js"
import { cacheWorkspace, devBin, lspChain, run } from "./support/LspChain.js"

const workspaces: Array<() => void> = []
const workspace = (prefix: string) => {
  const ws = cacheWorkspace(prefix)
  workspaces.push(ws.done)
  return ws.root
}
afterAll(() => workspaces.forEach((done) => done()))

const hasGo = (() => {
  try {
    execFileSync("go", ["version"], { stdio: "ignore" })
    return true
  } catch {
    return false
  }
})()

describe("language servers, six tools each", { timeout: 300_000 }, () => {
  it.live("clangd: C across a header", () => {
    const root = workspace("clangd-")
    write(root, "compile_flags.txt", "-std=c11\n")
    write(root, "math.h", "int add(int a, int b);\n")
    write(root, "math.c", '#include "math.h"\n/* add two */\nint add(int a, int b) { return a + b; }\n')
    write(root, "main.c", '#include "math.h"\nint main(void) { return add(1, 2); }\n')
    return Effect.gen(function* () {
      assert.strictEqual((yield* run("lsp_diagnostics", { path: "main.c" })).text, "main.c: no problems")
      const broken = yield* run("write_file", { path: "main.c", content: '#include "math.h"\nint main(void) { return add(1); }\n' })
      assert.match(broken.text, /main\.c:2:30 error typecheck_call_too_few_args: Too few arguments to function call, expected 2, have 1/)
      const def = yield* run("lsp_definition", { path: "main.c", symbol: "add" })
      assert.match(def.text, /^math\.h:1:5 {2}int add\(int a, int b\);$/m)
      // clangd knows the references in open files (and its background index's, once built).
      const refs = yield* run("lsp_references", { path: "main.c", symbol: "add", include_declaration: true })
      assert.match(refs.text, /^main\.c:2:25 {2}int main\(void\) \{ return add\(1\); \}$/m)
      const hover = yield* run("lsp_hover", { path: "main.c", symbol: "add" })
      assert.include(hover.text, "int add(int a, int b)")
      assert.match((yield* run("lsp_symbols", { path: "math.c" })).text, /^function add int \(int, int\) {2}3$/m)
      assert.match((yield* run("lsp_workspace_symbols", { query: "add" })).text, /function add {2}math\.(c:3|h:1)/)
    }).pipe(Effect.provide(Layer.orDie(lspChain(root, [".c", ".h"], "clangd", { args: ["--log=error"] }))))
  })

  it.live("vscode-json-language-server: pull diagnostics, an outline, clear errors for what it does not offer", () => {
    const root = workspace("json-")
    write(root, "a.json", '{\n  "name": "x",\n  "list": [1, 2]\n}\n')
    return Effect.gen(function* () {
      assert.strictEqual((yield* run("lsp_diagnostics", { path: "a.json" })).text, "a.json: no problems")
      const broken = yield* run("write_file", { path: "a.json", content: '{\n  "name": "x",\n  "list": [1, 2,]\n}\n' })
      assert.match(broken.text, /a\.json:3:16 error 519: Trailing comma \(json\)/)
      const def = yield* Effect.flip(run("lsp_definition", { path: "a.json", symbol: "name" }))
      assert.include(def.message, "the server does not offer definitions (textDocument/definition)")
      const refs = yield* Effect.flip(run("lsp_references", { path: "a.json", symbol: "name" }))
      assert.include(refs.message, "the server does not offer references (textDocument/references)")
      assert.strictEqual((yield* run("lsp_hover", { path: "a.json", symbol: "name" })).text, "hover of name (a.json:2:4): no hover information")
      assert.match((yield* run("lsp_symbols", { path: "a.json" })).text, /^string name x {2}2\narray list {2}3$/m)
      const ws = yield* Effect.flip(run("lsp_workspace_symbols", { query: "name" }))
      assert.include(ws.message, "the server does not offer workspace symbols (workspace/symbol)")
    }).pipe(Effect.provide(Layer.orDie(lspChain(root, ".json", devBin("vscode-json-language-server")))))
  })

  it.live("vscode-css-language-server: hover keeps the text and drops the inline Baseline images the server sends", () => {
    const root = workspace("css-")
    write(root, "a.css", ".a {\n  color: red;\n  display: flex;\n}\n")
    return Effect.gen(function* () {
      for (const symbol of ["color", "display"]) {
        const hover = (yield* run("lsp_hover", { path: "a.css", symbol })).text
        // The server's markdown carries `![Baseline icon](data:image/svg+xml;base64,…)` before this sentence.
        assert.include(hover, "available across major browsers (Baseline since")
        assert.include(hover, "MDN Reference")
        assert.notInclude(hover, "data:image")
        assert.notInclude(hover, "base64")
      }
    }).pipe(Effect.provide(Layer.orDie(lspChain(root, ".css", devBin("vscode-css-language-server")))))
  })

  it.live("pyright: cross-file definition and references, cold then warm", () => {
    const root = workspace("py-")
    write(root, "pyrightconfig.json", JSON.stringify({ include: ["app"] }))
    write(root, "app/__init__.py", "")
    write(root, "app/geometry.py", "# distance is defined below\ndef distance(a: float, b: float) -> float:\n    return abs(a - b)\n")
    write(root, "app/main.py", "from app.geometry import distance\n\nfar = distance(1.0, 4.0)\n")
    return Effect.gen(function* () {
      for (const round of ["cold", "warm"]) {
        const def = yield* run("lsp_definition", { path: "app/main.py", symbol: "distance", line: 3 })
        assert.match(def.text, /app\/geometry\.py:2:5 {2}def distance/, round)
        const refs = yield* run("lsp_references", { path: "app/geometry.py", symbol: "distance" })
        assert.include(refs.text, "app/main.py:3:7", round)
        assert.include(refs.text, "app/main.py:1:26", round)
      }
    }).pipe(Effect.provide(Layer.orDie(lspChain(root, ".py", devBin("pyright-langserver")))))
  })

  it.live.skipIf(!hasGo)("gopls: six tools, cross-file definition and references cold then warm (needs the go toolchain)", () => {
    const root = workspace("gopls-")
    write(root, "go.mod", "module example.com/m\n\ngo 1.19\n")
    write(root, "add.go", "package main\n\n// Add adds.\nfunc Add(a, b int) int { return a + b }\n")
    write(root, "main.go", "package main\n\nfunc main() { _ = Add(1, 2) }\n")
    return Effect.gen(function* () {
      for (const round of ["cold", "warm"]) {
        const def = yield* run("lsp_definition", { path: "main.go", symbol: "Add" })
        assert.match(def.text, /add\.go:4:6 {2}func Add/, round)
        const refs = yield* run("lsp_references", { path: "add.go", symbol: "Add" })
        assert.include(refs.text, "main.go:3:19", round)
      }
      assert.strictEqual((yield* run("lsp_diagnostics", { path: "main.go" })).text, "main.go: no problems")
      const broken = yield* run("write_file", { path: "main.go", content: 'package main\n\nfunc main() { _ = Add(1, "2") }\n' })
      assert.match(broken.text, /main\.go:3:\d+ error/)
      assert.include((yield* run("lsp_hover", { path: "add.go", symbol: "Add" })).text, "func Add(a int, b int) int")
      assert.match((yield* run("lsp_symbols", { path: "add.go" })).text, /function Add/)
      assert.match((yield* run("lsp_workspace_symbols", { query: "Add" })).text, /function Add\b[^\n]* {2}add\.go:4/)
    }).pipe(Effect.provide(Layer.orDie(lspChain(root, ".go", "gopls", { args: [] }))))
  })
})
