/**
 * The language tools on a large real TypeScript project: a copy of this repository (its node_modules linked), with
 * typescript-language-server. A type error an edit introduces is reported by the edit's own diagnostics (with the
 * error it causes in a file that imports the edited one) and by lsp_diagnostics, warm and cold (a fresh server, whose
 * project has not loaded); definition across files, cold and warm. Never "no problems" while the server loads.
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { cacheWorkspace, devBin, lspChain, run } from "./support/LspChain.js"

const repo = path.resolve(import.meta.dirname, "../..")
const ws = cacheWorkspace("repo-copy-")
const root = ws.root
for (const f of execFileSync("git", ["ls-files", "-z"], { cwd: repo, encoding: "utf8" }).split("\0")) {
  if (f === "" || !fs.existsSync(path.join(repo, f)) || !fs.lstatSync(path.join(repo, f)).isFile()) continue
  fs.mkdirSync(path.dirname(path.join(root, f)), { recursive: true })
  fs.copyFileSync(path.join(repo, f), path.join(root, f))
}
fs.symlinkSync(path.join(repo, "node_modules"), path.join(root, "node_modules"))
afterAll(() => ws.done())

// The machine may be loaded: a cold project of this size can take most of a minute to load and check.
const chain = () =>
  Layer.orDie(lspChain(root, ".ts", devBin("typescript-language-server"), { args: ["--stdio"], timeouts: { diagnosticsMs: 240_000, loadMs: 240_000, requestMs: 240_000 } }))
const inChain = <A, E>(effect: Effect.Effect<A, E, Layer.Layer.Success<ReturnType<typeof chain>>>) => Effect.provide(effect, chain())

const broken = "export const defaultMaxOutputBytes: string = 256 * 1024"
// The line of the declaration, as the copied repository has it.
const line = fs.readFileSync(path.join(repo, "src/kernel/Kernel.ts"), "utf8").split("\n").findIndex((l) => l.startsWith("export const defaultMaxOutputBytes")) + 1
const ownError = new RegExp(`src/kernel/Kernel\\.ts:${line}:14 error TS2322: Type 'number' is not assignable to type 'string'`)

describe("typescript-language-server on a copy of this repository", { timeout: 900_000 }, () => {
  it.live("definition across files cold, then an edit's type error: in the edit's result, its dependents, and lsp_diagnostics warm", () =>
    inChain(
      Effect.gen(function* () {
        const cold = yield* run("lsp_definition", { path: "src/serve/Server.ts", symbol: "defaultMaxOutputBytes" })
        assert.match(cold.text, new RegExp(`src/kernel/Kernel\\.ts:${line}:14 {2}export const defaultMaxOutputBytes = 256 \\* 1024`))
        assert.notInclude(cold.text, "still loading")
        const edited = yield* run("edit_file", { path: "src/kernel/Kernel.ts", old_string: "export const defaultMaxOutputBytes = 256 * 1024", new_string: broken })
        assert.match(edited.text, ownError)
        assert.notInclude(edited.text, "no problems")
        assert.match(edited.text, /errors in files that depend on it:\n(.*\n)*src\/serve\/Server\.ts:\d+:\d+ error TS2345/)
        const warm = yield* run("lsp_diagnostics", { path: "src/kernel/Kernel.ts" })
        assert.match(warm.text, /^src\/kernel\/Kernel\.ts: 2 errors/)
        assert.match(warm.text, ownError)
        const again = yield* run("lsp_definition", { path: "src/serve/Server.ts", symbol: "defaultMaxOutputBytes" })
        assert.match(again.text, new RegExp(`src/kernel/Kernel\\.ts:${line}:14 {2}export const defaultMaxOutputBytes: string`))
        const refs = yield* run("lsp_references", { path: "src/kernel/Kernel.ts", symbol: "defaultMaxOutputBytes" })
        assert.include(refs.text, "src/serve/Server.ts:")
      })
    )
  )

  it.live("lsp_diagnostics on a cold server reports the error (the file as the last test left it)", () =>
    inChain(
      Effect.gen(function* () {
        assert.include(fs.readFileSync(path.join(root, "src/kernel/Kernel.ts"), "utf8"), broken)
        const symbols = yield* run("lsp_workspace_symbols", { query: "defaultMaxOutputBytes" })
        assert.match(symbols.text, new RegExp(`defaultMaxOutputBytes {2}src/kernel/Kernel\\.ts:${line}`))
        const cold = yield* run("lsp_diagnostics", { path: "src/kernel/Kernel.ts" })
        assert.match(cold.text, ownError)
        const refs = yield* run("lsp_references", { path: "src/kernel/Kernel.ts", symbol: "defaultMaxOutputBytes" })
        assert.include(refs.text, "src/serve/Server.ts:")
      })
    )
  )
})
