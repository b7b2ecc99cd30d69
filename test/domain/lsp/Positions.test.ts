/** Positions: code-point columns to UTF-16 and back, clamping, symbol lookup in code only; hover images; outlines. */
import { assert, describe, it } from "@effect/vitest"
import { Either } from "effect"
import * as Lsp from "../../../src/domain/lsp/Lsp.js"

const at = (text: string, where: Parameters<typeof Lsp.locate>[1], ext = ".go") => Either.getOrThrow(Lsp.locate(text, where, ext))

describe("positions", () => {
  it("a column past the end of the line is clamped to its end; code points become UTF-16 units and back", () => {
    assert.deepStrictEqual(at("ab\ncdef\n", { line: 1, character: 99 }), { line: 0, character: 2 })
    const line = 'const s = "😀é😀"; s'
    const cp = [...line].lastIndexOf("s")
    const p = at(line, { line: 1, character: [...line].length }) // the last character, the second `s`
    assert.strictEqual(p.character, line.lastIndexOf("s"))
    assert.strictEqual(Lsp.codePointsOf(line, p.character), [...line].length - 1)
    assert.strictEqual(Lsp.utf16Of(line, cp), line.lastIndexOf("s"))
    assert.strictEqual(Lsp.codePointsOf(undefined, 7), 7)
    assert.strictEqual(Lsp.codePointsOf("ab", 5), 5)
  })

  it("symbol lookup skips comments and strings", () => {
    const go = '// Put adds a value to the map.\npackage m\n\nvar s = "Put"\n/* Put */\nfunc Put(k string) {}\n'
    assert.deepStrictEqual(at(go, { symbol: "Put" }), { line: 5, character: 5 })
    assert.deepStrictEqual(at(go, { symbol: "Put", line: 6 }), { line: 5, character: 5 })
    assert.match(Either.getLeft(Lsp.locate(go, { symbol: "Put", line: 1 }, ".go")).pipe((o) => (o._tag === "Some" ? o.value : "")), /only in a comment or string/)
    const py = '# Point is a point\n"""Point docs"""\nx = Point()\nclass Point: pass\n'
    assert.deepStrictEqual(at(py, { symbol: "Point" }, ".py"), { line: 3, character: 6 })
    const rust = "fn f<'a>(x: &'a str) -> Put<'a> { x }\n"
    assert.deepStrictEqual(at(rust, { symbol: "Put" }, ".rs"), { line: 0, character: 24 })
    const only = Lsp.locate("// Missing here\nconst x = 1\n", { symbol: "Missing" }, ".ts")
    assert.isTrue(Either.isLeft(only))
    const multi = "const t = `a\nPut\n`\nfunction Put() {}\n"
    assert.deepStrictEqual(at(multi, { symbol: "Put" }, ".ts"), { line: 3, character: 9 })
  })

  it("hover drops inline base64 images, keeps the text", () => {
    const css = "```css\n.a { color: red }\n```\n\n![](data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk)\n\n<img src=\"data:image/svg+xml;base64,PHN2Zz4=\">[MDN Reference](https://developer.mozilla.org/docs/Web/CSS/color)"
    const out = Lsp.formatHover("hover of a.css:1:5", css).text
    assert.notInclude(out, "base64")
    assert.include(out, ".a { color: red }")
    assert.include(out, "[MDN Reference](https://developer.mozilla.org/docs/Web/CSS/color)")
  })

  it("the outline leaves out locals and callbacks, in the server's order; all keeps them", () => {
    const r = (l: number) => ({ start: { line: l, character: 0 }, end: { line: l, character: 1 } })
    const sym = (name: string, kind: number, line: number, children?: ReadonlyArray<Lsp.DocumentSymbol>): Lsp.DocumentSymbol => ({ name, kind, range: r(line), selectionRange: r(line), ...(children ? { children } : {}) })
    const symbols = [
      sym("zeta", 12, 0, [sym("local", 13, 1)]),
      sym("describe() callback", 12, 2, [sym("inner", 13, 3)]),
      sym("Alpha", 5, 4, [sym("method", 6, 5, [sym("tmp", 13, 6)]), sym("field", 8, 7)])
    ]
    const text = Lsp.formatDocumentSymbols("a.ts", Lsp.outline(symbols)).text
    assert.strictEqual(text, "a.ts: 4 symbols\nfunction zeta  1\nclass Alpha  5\n  method method  6\n  field field  8")
    assert.include(Lsp.formatDocumentSymbols("a.ts", symbols).text, "variable local")
  })
})
