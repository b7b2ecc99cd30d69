import { describe, expect, it } from "vitest"
import * as RustRegex from "../../../src/domain/files/RustRegex.js"

describe("RustRegex.fromJs: a JavaScript regex for ripgrep, with the same meaning, or undefined", () => {
  it("keeps what means the same, makes ASCII classes ASCII, and narrows '.' as JavaScript does", () => {
    expect(RustRegex.fromJs("createHandler")).toBe("createHandler")
    expect(RustRegex.fromJs("a|b+c*?")).toBe("a|b+c*?")
    expect(RustRegex.fromJs("\\w+\\d\\b")).toBe("(?-u:\\w)+(?-u:\\d)(?-u:\\b)")
    expect(RustRegex.fromJs("[\\w-]")).toBe("[0-9A-Za-z_-]")
    expect(RustRegex.fromJs("a.b")).toBe("a[^\\n\\r\\x{2028}\\x{2029}]b")
    expect(RustRegex.fromJs("\\u00e9\\x41\\s")).toBe("\\x{00e9}\\x41\\s")
    expect(RustRegex.fromJs("x{2,3}")).toBe("x{2,3}")
  })

  it("escapes what is literal in JavaScript but syntax in Rust", () => {
    expect(RustRegex.fromJs("\\/path")).toBe("/path")
    expect(RustRegex.fromJs("{x}")).toBe("\\{x\\}")
    expect(RustRegex.fromJs("[a[&~]")).toBe("[a\\[\\&\\~]")
  })

  it("gives up on what has no faithful rewrite", () => {
    for (const p of ["a(?=b)", "a(?!b)", "(?<=a)b", "(?<n>a)", "(a)\\1", "[]", "[^]", "\\cA", "\\p{L}", "[\\D]", "[a--b]"]) {
      expect(RustRegex.fromJs(p), p).toBeUndefined()
    }
  })
})
