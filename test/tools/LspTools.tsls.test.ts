/**
 * The language tools through the whole chain against a real typescript-language-server (with typescript), one
 * server shared by the whole file: diagnostics after an edit that breaks a type, definition across files,
 * references, hover, document and workspace symbols, a location outside the workspace.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { tempDir, write } from "../support/Workspace.js"
import { devBin, lspChain, run } from "./support/LspChain.js"

const root = tempDir("minicode-lsp-ts-")
write(root, "tsconfig.json", JSON.stringify({ compilerOptions: { strict: true, target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", noEmit: true, lib: ["ES2022"] }, include: ["src"] }))
write(root, "package.json", JSON.stringify({ type: "module" }))
write(root, "src/math.ts", "/** Adds two numbers. */\nexport function add(a: number, b: number): number {\n  return a + b\n}\n\nexport const twice = (x: number) => add(x, x)\n")
write(root, "src/uni.ts", '// twice is not used here\nexport const e = "😀😀"; export const z = e.length\nconst later = "twice"\nfunction later2() { return [1].map((n) => { const local = n; return local }) }\nexport const used = later + later2()\n')
write(root, "src/main.ts", 'import { add, twice } from "./math.js"\n\nexport const total: number = add(1, 2) + twice(3)\nexport const size = [total].length\n')

const chain = lspChain(root, ".ts", devBin("typescript-language-server"))

layer(Layer.orDie(chain), { timeout: 120_000, excludeTestServices: true })("typescript-language-server", (it) => {
  it.effect("diagnostics of a clean file, then the breakage an edit makes, in the edit's result", () =>
    Effect.gen(function* () {
      const clean = yield* run("lsp_diagnostics", { path: "src/main.ts" })
      assert.include(clean.text, "src/main.ts: no problems")
      const edited = yield* run("edit_file", { path: "src/math.ts", old_string: "return a + b", new_string: 'return `${a}${b}`' })
      assert.include(edited.text, "edited src/math.ts")
      assert.match(edited.text, /src\/math\.ts:3:3 error TS2322: Type 'string' is not assignable to type 'number'/)
      const fixed = yield* run("edit_file", { path: "src/math.ts", old_string: 'return `${a}${b}`', new_string: "return a + b" })
      assert.include(fixed.text, "src/math.ts: no problems")
      const broken = yield* run("write_file", { path: "src/extra.ts", content: 'import { add } from "./math.js"\nexport const bad: string = add(1, 2)\nexport const worse = add("x")\n' })
      assert.match(broken.text, /src\/extra\.ts: 2 errors/)
      assert.match(broken.text, /src\/extra\.ts:2:14 error TS2322/)
    })
  )

  it.effect("definition across files, by symbol and by position", () =>
    Effect.gen(function* () {
      const bySymbol = yield* run("lsp_definition", { path: "src/main.ts", symbol: "twice", line: 3 })
      assert.match(bySymbol.text, /src\/math\.ts:6:14 {2}export const twice = \(x: number\) => add\(x, x\)/)
      const byPosition = yield* run("lsp_definition", { path: "src/main.ts", line: 3, character: 30 })
      assert.match(byPosition.text, /src\/math\.ts:2:17 {2}export function add/)
    })
  )

  it.effect("a definition outside the workspace is a bare location", () =>
    Effect.gen(function* () {
      const out = yield* run("lsp_definition", { path: "src/main.ts", symbol: "length" })
      assert.match(out.text, /lib\.es5\.d\.ts:\d+:\d+ \(outside the workspace\)$/m)
      assert.notInclude(out.text, "readonly length")
    })
  )

  it.effect("references, with and without the declaration", () =>
    Effect.gen(function* () {
      const without = yield* run("lsp_references", { path: "src/math.ts", symbol: "add" })
      assert.include(without.text, "src/main.ts:3:30")
      assert.include(without.text, "src/math.ts:6:37")
      const withDecl = yield* run("lsp_references", { path: "src/math.ts", symbol: "add", include_declaration: true })
      assert.include(withDecl.text, "src/math.ts:2:17")
    })
  )

  it.effect("hover and document symbols", () =>
    Effect.gen(function* () {
      const hover = yield* run("lsp_hover", { path: "src/main.ts", symbol: "add", line: 3 })
      assert.include(hover.text, "add(a: number, b: number): number")
      assert.include(hover.text, "Adds two numbers.")
      const symbols = yield* run("lsp_symbols", { path: "src/math.ts" })
      assert.match(symbols.text, /^function add {2}2-4$/m)
      assert.match(symbols.text, /^(variable|constant|function) twice/m)
    })
  )

  it.effect("workspace symbols", () =>
    Effect.gen(function* () {
      const out = yield* run("lsp_workspace_symbols", { query: "twice" })
      assert.match(out.text, /twice {2}src\/math\.ts:6/)
    })
  )

  it.effect("columns are code points (after an emoji), a column past the end is clamped, names in comments and strings are skipped", () =>
    Effect.gen(function* () {
      const line = 'export const e = "😀😀"; export const z = e.length'
      const column = [...line.slice(0, line.indexOf("e.length"))].length + 1
      const def = yield* run("lsp_definition", { path: "src/uni.ts", line: 2, character: column })
      assert.match(def.text, new RegExp(`^definition of src/uni\\.ts:2:${column}: 1 location`))
      assert.match(def.text, /src\/uni\.ts:2:14 {2}export const e/)
      const refs = yield* run("lsp_references", { path: "src/uni.ts", symbol: "e", line: 2 })
      assert.include(refs.text, `src/uni.ts:2:${column}`)
      const past = yield* run("lsp_hover", { path: "src/uni.ts", line: 2, character: 500 })
      assert.match(past.text, /^hover of src\/uni\.ts:2:\d+/)
      const twice = yield* Effect.flip(run("lsp_definition", { path: "src/uni.ts", symbol: "twice" }))
      assert.include(twice.message, "only in comments or strings")
      const symbols = yield* run("lsp_symbols", { path: "src/uni.ts" })
      assert.notInclude(symbols.text, "local")
      assert.notInclude(symbols.text, "callback")
      assert.match(symbols.text, /function later2/)
      const all = yield* run("lsp_symbols", { path: "src/uni.ts", all: true })
      assert.include(all.text, "local")
    })
  )

  it.effect("jail and argument errors come before any server", () =>
    Effect.gen(function* () {
      const outside = yield* Effect.flip(run("lsp_hover", { path: "/etc/passwd", line: 1 }))
      assert.strictEqual(outside._tag, "ToolDenied")
      const noWhere = yield* Effect.flip(run("lsp_hover", { path: "src/main.ts" }))
      assert.include(noWhere.message, "give line (and character) or symbol")
      const none = yield* Effect.flip(run("lsp_diagnostics", { path: "tsconfig.json" }))
      assert.include(none.message, "no language server is configured for .json files")
    })
  )
})
