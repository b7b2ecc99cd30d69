import { describe, expect, it } from "vitest"
import * as Dependents from "../../../src/domain/lsp/Dependents.js"

describe("Dependents", () => {
  it("finds the modules whose imports resolve to the edited one, absolute and relative, and nothing else", () => {
    const files = new Map([
      ["pkg/__init__.py", ""],
      ["pkg/shapes.py", "def area(): ...\n"],
      ["pkg/report.py", "from pkg.shapes import area\n"],
      ["pkg/cli.py", "from . import shapes\n"],
      ["pkg/sub/deep.py", "from ..shapes import area\n"],
      ["pkg/other.py", "import os\nimport pkg.report\n"],
      ["pkg/mention.py", "# shapes is mentioned, not imported\nx = 'pkg.shapes'\n"]
    ])
    expect(Dependents.importersOf("pkg/shapes.py", files)).toEqual(["pkg/cli.py", "pkg/report.py", "pkg/sub/deep.py"])
    expect(Dependents.importersOf("pkg/report.py", files)).toEqual(["pkg/other.py"])
    expect(Dependents.importersOf("pkg/mention.py", files)).toEqual([])
  })

  it("only languages whose servers check open files only are checked by opening", () => {
    expect(Dependents.checkedByOpening("/w/a.py")).toBe(true)
    expect(Dependents.checkedByOpening("/w/a.ts")).toBe(false)
    expect(Dependents.checkedByOpening("/w/a.go")).toBe(false)
  })

  it("says when dependents were not checked, or not all of them", () => {
    expect(Dependents.notCheckedNote({ tooManyFiles: 2500 })).toBe("[dependents not checked: the workspace has 2500 files of this language, over the 2000 read to find importers]")
    expect(Dependents.notCheckedNote({ importers: 12 })).toBe("[2 more files that import it were not checked (10 at most per write)]")
    expect(Dependents.notCheckedNote({ importers: 10 })).toBeUndefined()
  })
})
