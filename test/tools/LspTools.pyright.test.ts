/**
 * The same client against pyright (a server that sends versioned diagnostics and asks for configuration), one
 * server for the whole file: diagnostics after a write that breaks a type, definition across files, references,
 * hover, document and workspace symbols.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { tempDir, write } from "../support/Workspace.js"
import { devBin, lspChain, run } from "./support/LspChain.js"

const pyright = devBin("pyright-langserver")

const root = tempDir("minicode-lsp-py-")
write(root, "pyrightconfig.json", JSON.stringify({ include: ["app"], typeCheckingMode: "standard" }))
write(root, "app/__init__.py", "")
write(root, "app/geometry.py", 'class Point:\n    """A point in the plane."""\n\n    def __init__(self, x: float, y: float) -> None:\n        self.x = x\n        self.y = y\n\n\ndef distance(a: Point, b: Point) -> float:\n    return ((a.x - b.x) ** 2 + (a.y - b.y) ** 2) ** 0.5\n')
write(root, "app/main.py", "from app.geometry import Point, distance\n\norigin = Point(0, 0)\nfar: float = distance(origin, Point(3, 4))\n")

const chain = lspChain(root, ".py", pyright)

layer(Layer.orDie(chain), { timeout: 120_000, excludeTestServices: true })("pyright", (it) => {
  it.effect("diagnostics: clean, then what a write breaks (in the write's result), then fixed", () =>
    Effect.gen(function* () {
      const clean = yield* run("lsp_diagnostics", { path: "app/main.py" })
      assert.strictEqual(clean.text, "app/main.py: no problems")
      const broken = yield* run("write_file", { path: "app/main.py", content: 'from app.geometry import Point, distance\n\norigin = Point(0, 0)\nfar: str = distance(origin, Point(3, 4))\nnone = distance(origin)\n' })
      assert.match(broken.text, /diagnostics from pyright-langserver \(\.py\) after this change:\napp\/main\.py: 2 errors/)
      assert.match(broken.text, /app\/main\.py:4:12 error reportAssignmentType: Type "float" is not assignable to declared type "str"/)
      assert.match(broken.text, /app\/main\.py:5:8 error reportCallIssue: Argument missing for parameter "b"/)
      const fixed = yield* run("edit_file", { path: "app/main.py", old_string: "far: str", new_string: "far: float" })
      assert.include(fixed.text, "app/main.py: 1 error")
    })
  )

  it.effect("definition across files, references, hover", () =>
    Effect.gen(function* () {
      const def = yield* run("lsp_definition", { path: "app/main.py", symbol: "distance", line: 4 })
      assert.match(def.text, /app\/geometry\.py:9:5 {2}def distance\(a: Point, b: Point\) -> float:/)
      const refs = yield* run("lsp_references", { path: "app/geometry.py", symbol: "Point", include_declaration: true })
      assert.include(refs.text, "app/geometry.py:1:7")
      assert.include(refs.text, "app/main.py:3:10")
      const hover = yield* run("lsp_hover", { path: "app/main.py", symbol: "distance", line: 4 })
      assert.match(hover.text, /def distance\(\s*a: Point,\s*b: Point\s*\) -> float/)
    })
  )

  it.effect("document and workspace symbols", () =>
    Effect.gen(function* () {
      const symbols = yield* run("lsp_symbols", { path: "app/geometry.py" })
      assert.match(symbols.text, /^class Point {2}1-6$/m)
      assert.match(symbols.text, /^ {2}method __init__/m)
      assert.match(symbols.text, /^function distance {2}9-10$/m)
      const ws = yield* run("lsp_workspace_symbols", { query: "distance" })
      assert.match(ws.text, /function distance {2}app\/geometry\.py:9/)
    })
  )
})
