/** The tree-sitter outliner on small TypeScript, TSX, JavaScript and Python files, beside the regex fallback. */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as TreeSitterOutliner from "../../../src/adapters/treesitter/TreeSitterOutliner.js"
import * as RepoMap from "../../../src/domain/repomap/RepoMap.js"

const outline = (path: string, text: string) => Effect.flatMap(TreeSitterOutliner.make, (outliner) => outliner(path, text))
const lines = (o: RepoMap.Outline | undefined) => o?.symbols.map((s) => `${s.line}: ${s.text}`)

const typescript = [
  'import { a } from "./a.js"', //                                      1
  'import type { B } from "../b"', //                                    2
  'export * from "./all.js"', //                                         3
  'import fs = require("node:fs")', //                                   4
  "/** export function inDoc() {} */", //                                5
  "const banner = `", //                                                 6
  "export function fake() {}", //                                        7
  "class Phantom {}", //                                                 8
  "`", //                                                                9
  "export const answer = 42, other = 1", //                              10
  "const hidden = 1", //                                                 11
  "export interface Shape {", //                                         12
  "  area(): number", //                                                 13
  "}", //                                                                14
  "export type Id = string | number", //                                 15
  "export enum Color { Red, Green }", //                                 16
  "@sealed", //                                                          17
  "export class Circle implements Shape {", //                           18
  "  private cache = 0", //                                              19
  "  constructor(readonly r: number) {}", //                             20
  "  area(): number { return Math.PI * this.r ** 2 }", //                21
  "  private secret() {}", //                                            22
  "  #hidden() {}", //                                                   23
  "  get diameter() {", //                                               24
  "    return 2 * this.r", //                                            25
  "  }", //                                                              26
  "}", //                                                                27
  "abstract class Base {", //                                            28
  "  abstract draw(): void", //                                          29
  "}", //                                                                30
  "export async function load(id: Id): Promise<Shape> {", //             31
  '  const m = await import("./lazy.js")', //                            32
  "  return m.shape", //                                                 33
  "}", //                                                                34
  "function* ids() {}", //                                               35
  "declare function external(x: number): void", //                       36
  "namespace Legacy {", //                                               37
  "  export const x = 1", //                                             38
  "}", //                                                                39
  "export default function () {}", //                                    40
  ""
].join("\n")

describe("TreeSitterOutliner", () => {
  it("picks a grammar by extension", () => {
    const cases: ReadonlyArray<readonly [string, TreeSitterOutliner.Grammar | undefined]> = [
      ["a.ts", "typescript"], ["a.mts", "typescript"], ["a.cts", "typescript"], ["src/A.TSX", "tsx"],
      ["a.js", "javascript"], ["a.mjs", "javascript"], ["a.cjs", "javascript"], ["a.jsx", "javascript"],
      ["a.py", "python"], ["a.pyi", "python"], ["a.go", "go"], ["a.rs", "rust"], ["a.kt", undefined], ["Makefile", undefined], [".ts", undefined]
    ]
    for (const [path, grammar] of cases) assert.strictEqual(TreeSitterOutliner.grammarOf(path), grammar, path)
  })

  it.effect("outlines TypeScript declarations and class methods, skipping private members", () =>
    Effect.gen(function* () {
      const o = yield* outline("src/shapes.ts", typescript)
      assert.deepStrictEqual(lines(o), [
        "10: export const answer = 42, other = 1",
        "12: export interface Shape",
        "15: export type Id = string | number",
        "16: export enum Color",
        "18: export class Circle implements Shape",
        "20: constructor(readonly r: number)",
        "21: area(): number",
        "24: get diameter()",
        "28: abstract class Base",
        "29: abstract draw(): void",
        "31: export async function load(id: Id): Promise<Shape>",
        "35: function* ids()",
        "36: declare function external(x: number): void",
        "37: namespace Legacy",
        "40: export default function ()"
      ])
      assert.deepStrictEqual(o?.imports, ["./a.js", "../b", "./all.js", "node:fs", "./lazy.js"])
    })
  )

  it.effect("never takes a declaration inside a string or a comment, where the regex does", () =>
    Effect.gen(function* () {
      const text = "const x = 1 /*\nexport class Ghost {}\n*/\nconst sql = `\nexport function fake() {}\n`\nexport function real() {}\n"
      const regex = RepoMap.extractRegex("a.ts", text).symbols.map((s) => s.text)
      assert.deepStrictEqual(regex, ["export class Ghost {}", "export function fake() {}", "export function real() {}"])
      assert.deepStrictEqual(lines(yield* outline("a.ts", text)), ["7: export function real()"])
    })
  )

  it.effect("outlines TSX with JSX in it", () =>
    Effect.gen(function* () {
      const text = [
        'import React from "react"',
        "export function App(props: { name: string }) {",
        "  return <div>",
        "export function notAFunction() {}",
        "  </div>",
        "}",
        "export const Button = <T,>(p: T) => <button />",
        ""
      ].join("\n")
      const o = yield* outline("src/App.tsx", text)
      assert.deepStrictEqual(lines(o), ["2: export function App(props: { name: string })", "7: export const Button = <T,>(p: T) => <button />"])
      assert.deepStrictEqual(o?.imports, ["react"])
      assert.include(RepoMap.extractRegex("src/App.tsx", text).symbols.map((s) => s.text), "export function notAFunction() {}")
    })
  )

  it.effect("outlines JavaScript (with JSX and require) and counts lines past non-ASCII text", () =>
    Effect.gen(function* () {
      const text = [
        'const path = require("node:path")',
        'const greeting = "héllo 🙂"; class Widget extends Base {',
        "  render() { return <p>{greeting}</p> }",
        "  static create() {}",
        "}",
        "async function main() {",
        '  const { run } = await import("./run.mjs")',
        '  console.log("function inString() {}")',
        "}",
        "export const VERSION = '1'",
        ""
      ].join("\n")
      const o = yield* outline("lib/widget.jsx", text)
      assert.deepStrictEqual(lines(o), ["2: class Widget extends Base", "3: render()", "4: static create()", "6: async function main()", "10: export const VERSION = '1'"])
      assert.deepStrictEqual(o?.imports, ["node:path", "./run.mjs"])
      assert.deepStrictEqual(lines(yield* outline("lib/widget.cjs", "module.exports = function f() {}\nfunction g() {}\n")), ["2: function g()"])
    })
  )

  it.effect("outlines Python: functions, classes with their public methods, decorators, imports", () =>
    Effect.gen(function* () {
      const text = [
        "from __future__ import annotations",
        "import os.path, sys as system",
        "from . import models, views as v",
        "from .geometry import (Point,",
        "    distance)",
        "from .. import *",
        '"""',
        "def in_docstring():",
        "class NotAClass:",
        "import not_a_module",
        '"""',
        "@dataclass",
        "class Shape(Base):",
        "    def __init__(self, x):",
        "        def inner():",
        "            pass",
        "    @property",
        "    def area(self) -> float:",
        "        return 0.0",
        "    async def fetch(self): ...",
        "    def _private(self): ...",
        "    def __repr__(self): ...",
        "",
        "async def main(argv: list[str]) -> int:",
        "    import json",
        "    return 0",
        "def _helper(): pass",
        ""
      ].join("\n")
      const o = yield* outline("app/shapes.py", text)
      assert.deepStrictEqual(lines(o), [
        "13: class Shape(Base)",
        "14: def __init__(self, x)",
        "18: def area(self) -> float",
        "20: async def fetch(self)",
        "24: async def main(argv: list[str]) -> int",
        "27: def _helper()"
      ])
      assert.deepStrictEqual(o?.imports, ["os.path", "sys", ".models", ".views", ".geometry", "..", "json"])
      // The regex takes the docstring's lines for declarations and an import.
      const regex = RepoMap.extractRegex("app/shapes.py", text)
      assert.includeMembers(regex.symbols.map((s) => s.text), ["def in_docstring()", "class NotAClass"])
      assert.include(regex.imports, "not_a_module")
    })
  )

  it.effect("leaves files it cannot parse, and languages it has no grammar for, to the fallback", () =>
    Effect.gen(function* () {
      assert.isUndefined(yield* outline("broken.ts", "export function f( {\n"))
      assert.isUndefined(yield* outline("broken.py", "def f(:\n    pass\n"))
      assert.isUndefined(yield* outline("main.kt", "fun main() {}\n"))
      assert.isUndefined(yield* outline("lib.swift", "public func f() {}\n"))
      assert.isUndefined(yield* outline("broken.go", "package main\nfunc Main( {\n"))
      assert.deepStrictEqual(yield* outline("empty.ts", ""), { symbols: [], imports: [] })
    })
  )
})
