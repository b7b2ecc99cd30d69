/**
 * The regex outline walks the text line end to line end and tries one sticky pattern per language at each line's
 * start (`extractRegex`). Its oracle is the extraction it replaced (RegexOutlineOracle: the text split into lines,
 * every rule of the language tried on each line alone, the import rules run over the whole text). Both
 * must give the same outline, symbol for symbol and import for import, on real files of every language and on
 * generated texts full of the rules' edge cases (blanks other than spaces, `\r`, `\u2028`, block comments opened
 * and closed on the same or other lines, lines of exactly 1,000 and 1,001 characters, missing final newlines).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { FastCheck as fc } from "effect"
import { assert, describe, it } from "@effect/vitest"
import * as RepoMap from "../../../src/domain/repomap/RepoMap.js"
import { reference } from "./RegexOutlineOracle.js"

type Language = RepoMap.Language

const extensions: ReadonlyArray<readonly [Language, string]> = [
  ["ts", "a.ts"], ["py", "a.py"], ["go", "a.go"], ["rs", "a.rs"], ["sh", "a.sh"], ["java", "A.java"], ["cs", "A.cs"],
  ["c", "a.c"], ["cpp", "a.cpp"], ["rb", "a.rb"], ["php", "a.php"], ["generic", "a.kt"]
]

/** Source files below `dir` (no symlinks followed), at most `max` of them, in name order. */
const sources = (dir: string, max: number): Array<string> => {
  const out: Array<string> = []
  const visit = (d: string) => {
    let entries: Array<fs.Dirent>
    try {
      entries = fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))
    } catch {
      return
    }
    for (const e of entries) {
      if (out.length >= max) return
      const full = path.join(d, e.name)
      if (e.isDirectory()) visit(full)
      else if (e.isFile() && RepoMap.languageOf(full) !== undefined && fs.statSync(full).size < 512 * 1024) out.push(full)
    }
  }
  visit(dir)
  return out
}

// Pieces that exercise the rules: their keywords, every kind of blank, comment openings and closings, brackets.
const pieces = [
  "export ", "default ", "declare ", "async ", "function ", "function* ", "class ", "abstract ", "interface ", "type ", "enum ",
  "namespace ", "const ", "let ", "var ", "def ", "func ", "fn ", "pub ", "pub(crate) ", "impl ", "trait ", "struct ", "union ",
  "mod ", "static ", "public ", "protected ", "internal ", "private ", "final ", "sealed ", "override ", "module ", "record ",
  "typedef ", "template<", "return ", "if ", "#define ", "void ", "int *", "char ", "const ", "self.", "__init__", "Foo", "bar",
  "Baz_1", "x", "$y", "<T>", "List<T>", "[]", "(", ")", "{", "}", ";", ":", "=", "=>", ",", ".", "*", "&", "~", "?", "!", "-",
  " ", "  ", "    ", "\t", "\r", "\u2028", "\u00a0", "\ufeff", "\v", "\f", "\n", "\n", "\n", "/*", "*/", "/* c */", "//",
  "from ", "import ", "require(", "'./m.js'", '"./n"', "using ", "#include ", '"h.h"', "use ", "crate::a::b", "source ",
  "require_relative ", "'x'", "__DIR__ . ", "include_once ", "package ", "object ", "fun ", "protocol ", "defmodule ",
  // Declarations that a match running on past its line's end would complete.
  "func (", ") Foo", "int foo(", "(a, b", ") {", ") const", "public <T", "> void bar(", "  pub fn f(", "\n)", "a".repeat(995),
  "b".repeat(1000), "c".repeat(1001)
]
// Each text draws on a few pieces only, so that their combinations (across line ends too) come up often.
const generated = fc
  .shuffledSubarray(pieces, { minLength: 3, maxLength: 12 })
  .chain((some) => fc.array(fc.constantFrom(...some, "\n"), { maxLength: 80 }))
  .map((parts) => parts.join(""))

describe("the regex outline", () => {
  it("equals the line-by-line rules on generated texts, in every language", () => {
    fc.assert(
      fc.property(generated, fc.constantFrom(...extensions), (text, [, file]) => {
        assert.deepStrictEqual(RepoMap.extractRegex(file, text), reference(file, text))
      }),
      { numRuns: 5000 }
    )
  })

  it("equals the line-by-line rules on every pair of lines that could run into each other", () => {
    const fragments = [
      "", " ", "\r", "\t", "\u2028", "{", "}", ")", ") {", ") const {", ");", "b) {", "(a, b", "x", "Foo", ") Foo", ") Foo {",
      "func (", "func (r *T", "func (r *T) Run() {", "type Foo", "int foo(", "int foo(a,", "int\r", "char *", "main(void)",
      "void bar(int a)", "static int s(", "typedef struct", "struct s", "template <", "namespace n", "public <T", "> void bar(",
      "public static", "void run() {", "public class A", "  pub fn f(", "pub", " fn g()", "impl", "trait T", "export", " function f",
      "export function f", "export default", "class A", "def f(", "    def g(self):", "function f {", "f() {", "/*", "  /* c",
      "/* c */", "x */ y", "*/", "module M", "def self.x", "fun f", "a".repeat(1000), "b".repeat(1001), "  /*" + "c".repeat(1000)
    ]
    for (const [, file] of extensions) {
      for (const a of fragments) {
        for (const b of fragments) {
          const text = `${a}\n${b}`
          assert.deepStrictEqual(RepoMap.extractRegex(file, text), reference(file, text), JSON.stringify([file, text]))
          const three = `${b}\n${a}\n${b}\n`
          assert.deepStrictEqual(RepoMap.extractRegex(file, three), reference(file, three), JSON.stringify([file, three]))
        }
      }
    }
  })

  it("equals the line-by-line rules on real files: this repository, its fixtures and its dependencies", () => {
    const files = [...sources("src", 2000), ...sources("test", 2000), ...sources("node_modules", 3000)]
    assert.isAbove(files.length, 3000)
    const languages = new Set<Language>()
    for (const file of files) {
      const text = fs.readFileSync(file, "utf8")
      languages.add(RepoMap.languageOf(file) ?? "generic")
      assert.deepStrictEqual(RepoMap.extractRegex(file, text), reference(file, text), file)
      // The same text as another language (every rule set on real code).
      for (const [, other] of extensions) assert.deepStrictEqual(RepoMap.extractRegex(other, text), reference(other, text), `${file} as ${other}`)
    }
    // (No Python file among them: the generated texts cover its rules.)
    for (const language of ["ts", "go", "rs", "java", "cs", "c", "cpp", "rb", "php"] as const) assert.isTrue(languages.has(language), language)
  })

  it("a rule moved to a line's start keeps to its line", () => {
    assert.strictEqual(RepoMap.atLineStart(/^\s*a[^b]*$/), "[\\t\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff]*a[^\\nb]*(?![^\\n])")
    // A C declaration split over two lines is not one line's match.
    assert.deepStrictEqual(RepoMap.extractRegex("a.c", "int\nmain(void)\n").symbols.map((s) => s.line), reference("a.c", "int\nmain(void)\n").symbols.map((s) => s.line))
  })
})
