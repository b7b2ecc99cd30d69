/**
 * Issue 46 item 9: after an edit, errors in the files that import the edited one, for pyright (which publishes
 * diagnostics for open files only): the importers (the repo map's import resolution) are opened and checked, and
 * the edit's report lists their errors; a module nobody imports reports only itself. Real pyright, whole chain.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { tempDir, write } from "../support/Workspace.js"
import { devBin, lspChain, run } from "./support/LspChain.js"

const root = tempDir("minicode-lsp-py-deps-")
write(root, "pyrightconfig.json", JSON.stringify({ include: ["pkg"], typeCheckingMode: "standard" }))
write(root, "pkg/__init__.py", "")
write(root, "pkg/shapes.py", "def area(w: float, h: float) -> float:\n    return w * h\n")
write(root, "pkg/report.py", "from pkg.shapes import area\n\n\ndef total() -> float:\n    return area(1, 2) + area(3, 4)\n")
write(root, "pkg/cli.py", "from . import shapes\n\nprint(shapes.area(2, 2))\n")
write(root, "pkg/alone.py", "def other() -> int:\n    return 1\n")

layer(Layer.orDie(lspChain(root, ".py", devBin("pyright-langserver"))), { timeout: 180_000, excludeTestServices: true })("pyright dependents", (it) => {
  it.effect("a rename that breaks the modules importing it shows their errors in the edit's report", () =>
    Effect.gen(function* () {
      const edited = yield* run("edit_file", { path: "pkg/shapes.py", old_string: "def area(", new_string: "def surface(" })
      assert.match(edited.text, /pkg\/shapes\.py: no problems\nerrors in files that depend on it:/)
      assert.match(edited.text, /pkg\/report\.py:1:24 error reportAttributeAccessIssue: "area" is unknown import symbol/)
      assert.match(edited.text, /pkg\/cli\.py:3:14 error reportAttributeAccessIssue: "area" is not a known attribute of module "\.\.shapes"/)
      assert.notInclude(edited.text, "alone.py")
      const fixed = yield* run("edit_file", { path: "pkg/shapes.py", old_string: "def surface(", new_string: "def area(" })
      assert.notInclude(fixed.text, "errors in files that depend on it")
      assert.include(fixed.text, "pkg/shapes.py: no problems")
    })
  )
})
