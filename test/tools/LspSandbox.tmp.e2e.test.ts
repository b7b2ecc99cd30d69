/**
 * typescript-language-server in the default sandbox, with the workspace (and the home) under /tmp, where the
 * sandbox mounts a private tmpfs: the workspace is bound over it, and the server is not told minicode's pid (inside
 * its own PID namespace that pid names nothing, and the server exited at once thinking its parent had died).
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, beforeAll, describe, expect, it } from "vitest"
import { bin, ensureBuilt, makeWorkspace } from "../serve/support/McpServeHarness.js"
import { runCli } from "../support/Cli.js"
import { mustRun, title, unavailable } from "../support/Sandbox.js"

/** A cold tsserver on a loaded machine can take longer than the default 15 s; these are deadlines, not speed. */
const slowMachine = ["--timeout", "initialize=90000", "--timeout", "request=90000", "--timeout", "diagnostics=90000"]
const repo = path.resolve(import.meta.dirname, "../..")
const cleanups: Array<() => unknown> = []
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c()
})
beforeAll(() => ensureBuilt())

if (unavailable !== undefined && mustRun) {
  describe("lsp sandbox under /tmp", () => {
    it("bwrap must be usable in CI (CI=true)", () => expect.fail(`sandbox unavailable in CI: ${unavailable}`))
  })
}

describe.skipIf(unavailable !== undefined)(title("a sandboxed language server with the workspace under /tmp"), () => {
  it("answers hover and diagnostics", async () => {
    const ws = makeWorkspace()
    cleanups.push(ws.cleanup)
    expect(ws.root.startsWith("/tmp/")).toBe(true)
    const home = path.join(ws.parent, "home")
    fs.mkdirSync(home)
    const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(home, ".config") }
    const server = fs.realpathSync(path.join(repo, "node_modules/.bin/typescript-language-server"))
    const add = spawnSync(process.execPath, [bin, "config", "lsp", "add", ".ts", "--global", "--command", server, "--arg", "--stdio", ...slowMachine], { env, encoding: "utf8" })
    expect(add.status, add.stderr).toBe(0)
    const list = spawnSync(process.execPath, [bin, "config", "lsp", "list"], { env, encoding: "utf8" })
    expect(list.stdout).toContain("sandboxed when bubblewrap is usable")
    fs.writeFileSync(path.join(ws.root, "tsconfig.json"), JSON.stringify({ compilerOptions: { strict: true, noEmit: true } }))
    fs.writeFileSync(path.join(ws.root, "a.ts"), "/** Adds two numbers. */\nexport function add(a: number, b: number): number {\n  return a + b\n}\nexport const t: string = add(1, 2)\n")
    const tool = (name: string, args: unknown) =>
      runCli(bin, ["tool", name, JSON.stringify(args), "--cwd", ws.root, "--work-mode", "BUILD", "--json"], { env, timeoutMs: 150_000 })
    const hover = await tool("lsp_hover", { path: "a.ts", symbol: "add", line: 5 })
    expect(hover.stdout + hover.stderr).toContain("add(a: number, b: number): number")
    const diagnostics = await tool("lsp_diagnostics", { path: "a.ts" })
    expect(diagnostics.stdout).toMatch(/a\.ts:5:\d+ error TS2322/)
  }, 400_000)
})
