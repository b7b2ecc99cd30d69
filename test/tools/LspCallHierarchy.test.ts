/**
 * Issue 46 item 11: go-to-implementation and call hierarchy (`lsp_implementation`, `lsp_incoming_calls`,
 * `lsp_outgoing_calls`) through the whole chain against real servers: typescript-language-server and gopls, by
 * symbol and by position, each call site with its source line; a position on no function, and a server that does
 * not offer them, answered plainly.
 */
import { spawnSync } from "node:child_process"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { write } from "../support/Workspace.js"
import { cacheWorkspace, devBin, lspChain, run } from "./support/LspChain.js"

const done: Array<() => void> = []
afterAll(() => done.forEach((d) => d()))
const workspace = (prefix: string) => {
  const ws = cacheWorkspace(prefix)
  done.push(ws.done)
  return ws.root
}
const hasGopls = spawnSync("gopls", ["version"], { stdio: "ignore" }).status === 0 && spawnSync("go", ["version"], { stdio: "ignore" }).status === 0

describe("implementations and call hierarchy", { timeout: 300_000 }, () => {
  it.live("typescript-language-server: implementations of an interface, callers and callees with their call sites", () => {
    const root = workspace("calls-ts-")
    write(root, "tsconfig.json", JSON.stringify({ compilerOptions: { strict: true, target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", noEmit: true, lib: ["ES2022"] }, include: ["src"] }))
    write(root, "package.json", JSON.stringify({ type: "module" }))
    write(root, "src/shapes.ts", [
      "export interface Shape {",
      "  area(): number",
      "}",
      "export class Square implements Shape {",
      "  constructor(private readonly s: number) {}",
      "  area(): number { return this.s * this.s }",
      "}",
      "export class Circle implements Shape {",
      "  constructor(private readonly r: number) {}",
      "  area(): number { return 3 * this.r * this.r }",
      "}",
      ""
    ].join("\n"))
    write(root, "src/main.ts", [
      'import { Circle, Square, type Shape } from "./shapes.js"',
      "",
      "export function total(shapes: ReadonlyArray<Shape>): number {",
      "  return shapes.reduce((n, s) => n + s.area(), 0)",
      "}",
      "",
      "export function report(): string {",
      "  const all = total([new Square(2), new Circle(1)])",
      "  return `${all} ${total([])}`",
      "}",
      ""
    ].join("\n"))
    return Effect.gen(function* () {
      const impl = yield* run("lsp_implementation", { path: "src/shapes.ts", symbol: "Shape" })
      assert.match(impl.text, /^implementations of Shape \(src\/shapes\.ts:1:18\): 2 locations$/m)
      assert.match(impl.text, /^src\/shapes\.ts:4:14 {2}export class Square implements Shape \{$/m)
      assert.match(impl.text, /^src\/shapes\.ts:8:14 {2}export class Circle implements Shape \{$/m)
      // By position: the interface's method, implemented by both classes.
      const method = yield* run("lsp_implementation", { path: "src/shapes.ts", line: 2, character: 3 })
      assert.match(method.text, /src\/shapes\.ts:6:3 {2}area\(\): number \{ return this\.s \* this\.s \}/)
      assert.match(method.text, /src\/shapes\.ts:10:3 {2}area\(\): number \{ return 3 \* this\.r \* this\.r \}/)

      const incoming = yield* run("lsp_incoming_calls", { path: "src/main.ts", symbol: "total" })
      assert.match(incoming.text, /^incoming calls of total \(src\/main\.ts:3:17\): 2 calls from 1 function$/m)
      assert.match(incoming.text, /^function report {2}src\/main\.ts:7:17$/m)
      assert.match(incoming.text, /^ {2}src\/main\.ts:8:15 {2}const all = total\(\[new Square\(2\), new Circle\(1\)\]\)$/m)
      assert.match(incoming.text, /^ {2}src\/main\.ts:9:20 {2}return `\$\{all\} \$\{total\(\[\]\)\}`$/m)

      const outgoing = yield* run("lsp_outgoing_calls", { path: "src/main.ts", symbol: "report" })
      // The constructors it calls are calls too.
      assert.match(outgoing.text, /^outgoing calls of report \(src\/main\.ts:7:17\): 3 functions called, at 4 sites$/m)
      assert.match(outgoing.text, /^class Square {2}src\/shapes\.ts:4:14 {2}export class Square implements Shape \{\n {2}called at src\/main\.ts:8:26 /m)
      assert.match(outgoing.text, /^function total {2}src\/main\.ts:3:17 {2}export function total/m)
      assert.match(outgoing.text, /^ {2}called at src\/main\.ts:8:15 {2}const all = total/m)
      assert.match(outgoing.text, /^ {2}called at src\/main\.ts:9:20 /m)

      const nothing = yield* run("lsp_incoming_calls", { path: "src/main.ts", line: 2, character: 1 })
      assert.match(nothing.text, /^incoming calls of src\/main\.ts:2:1: no function or method here/)
      const notCalled = yield* run("lsp_incoming_calls", { path: "src/main.ts", symbol: "report" })
      assert.match(notCalled.text, /^incoming calls of report \(src\/main\.ts:7:17\): no callers found$/)
      const unknown = yield* Effect.flip(run("lsp_outgoing_calls", { path: "src/main.ts", symbol: "nowhere" }))
      assert.include(unknown.message, '"nowhere" does not occur in this file')
    }).pipe(Effect.provide(Layer.orDie(lspChain(root, ".ts", devBin("typescript-language-server")))))
  })

  it.live.skipIf(!hasGopls)("gopls: implementations of an interface across files, callers and callees (needs the go toolchain)", () => {
    const root = workspace("calls-go-")
    write(root, "go.mod", "module example.com/shapes\n\ngo 1.19\n")
    write(root, "shape.go", "package main\n\n// Shape has an area.\ntype Shape interface {\n\tArea() int\n}\n")
    write(root, "square.go", "package main\n\ntype Square struct{ S int }\n\nfunc (q Square) Area() int { return q.S * q.S }\n")
    write(root, "main.go", [
      "package main",
      "",
      "func total(shapes []Shape) int {",
      "\tn := 0",
      "\tfor _, s := range shapes {",
      "\t\tn += s.Area()",
      "\t}",
      "\treturn n",
      "}",
      "",
      "func main() {",
      "\tprintln(total([]Shape{Square{2}}), total(nil))",
      "}",
      ""
    ].join("\n"))
    return Effect.gen(function* () {
      const impl = yield* run("lsp_implementation", { path: "shape.go", symbol: "Shape" })
      assert.match(impl.text, /^square\.go:3:6 {2}type Square struct\{ S int \}$/m)
      const incoming = yield* run("lsp_incoming_calls", { path: "main.go", symbol: "total" })
      assert.match(incoming.text, /: 2 calls from 1 function$/m)
      assert.match(incoming.text, /^function main .*main\.go:11:6$/m)
      assert.match(incoming.text, /^ {2}main\.go:12:10 {2}println\(total/m)
      assert.match(incoming.text, /^ {2}main\.go:12:37 /m)
      const outgoing = yield* run("lsp_outgoing_calls", { path: "main.go", symbol: "total" })
      assert.match(outgoing.text, /^function Area .*shape\.go:5:2 {2}Area\(\) int$/m)
      assert.match(outgoing.text, /^ {2}called at main\.go:6:10 {2}n \+= s\.Area\(\)$/m)
    }).pipe(Effect.provide(Layer.orDie(lspChain(root, ".go", "gopls", { args: [] }))))
  })

  it.live("a server that offers neither says so plainly", () => {
    const root = workspace("calls-json-")
    write(root, "a.json", '{\n  "name": "x"\n}\n')
    return Effect.gen(function* () {
      const impl = yield* Effect.flip(run("lsp_implementation", { path: "a.json", symbol: "name" }))
      assert.include(impl.message, "the server does not offer implementations (textDocument/implementation)")
      const calls = yield* Effect.flip(run("lsp_incoming_calls", { path: "a.json", symbol: "name" }))
      assert.include(calls.message, "the server does not offer call hierarchy (textDocument/prepareCallHierarchy)")
    }).pipe(Effect.provide(Layer.orDie(lspChain(root, ".json", devBin("vscode-json-language-server")))))
  })
})
