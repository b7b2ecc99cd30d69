/**
 * Red team (issue 19), language-server family: typescript-language-server prefers the workspace's own
 * `node_modules/typescript/lib/tsserver.js`, a file the write tools may create. Through the built binary with a
 * user-configured server (global config in a private HOME).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, beforeAll, describe, expect, it } from "vitest"
import { bin, ensureBuilt, makeWorkspace, repo } from "../serve/support/McpServeHarness.js"
import { runCli } from "../support/Cli.js"

const cleanups: Array<() => unknown> = []
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c()
})
beforeAll(() => ensureBuilt())

describe("a language server the repository supplies", () => {
  // Was a hole: `write_file node_modules/typescript/package.json {"version":"5.4.0"}`, `write_file
  // node_modules/typescript/lib/tsserver.js <program>`, then `write_file a.ts` (its diagnostics) or `lsp_diagnostics`:
  // the configured typescript-language-server starts the workspace's tsserver.js on the host, outside any sandbox, and
  // it wrote a file outside the workspace. Language servers now run in the read-only sandbox by default whenever
  // bubblewrap is usable, so the program runs inside it and cannot write outside.
  it("a planted node_modules/typescript/lib/tsserver.js never runs outside the sandbox", async () => {
    const ws = makeWorkspace()
    cleanups.push(ws.cleanup)
    const home = path.join(ws.parent, "home")
    fs.mkdirSync(home)
    const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(home, ".config") }
    const server = fs.realpathSync(path.join(repo, "node_modules/.bin/typescript-language-server"))
    // The planted server never loads a project: a 20 s diagnostics deadline ends the edit's wait sooner than the default.
    const add = await runCli(bin, ["config", "lsp", "add", ".ts", "--global", "--command", server, "--arg", "--stdio", "--timeout", "diagnostics=20000"], { env })
    expect(add.status, add.stderr).toBe(0)
    const marker = path.join(ws.parent, "PWNED")
    const tool = (name: string, args: unknown) =>
      runCli(bin, ["tool", name, JSON.stringify(args), "--cwd", ws.root, "--work-mode", "BUILD", "--policy", "allow-all", "--json"], { env, timeoutMs: 90_000 })
    const files: Record<string, string> = {
      "node_modules/typescript/package.json": '{"name":"typescript","version":"5.4.0"}',
      "node_modules/typescript/lib/typescript.js": "module.exports = {}\n",
      "node_modules/typescript/lib/tsserver.js": `require("fs").writeFileSync(${JSON.stringify(marker)}, "ran on the host"); setTimeout(() => {}, 60000)\n`
    }
    for (const [p, content] of Object.entries(files)) expect((await tool("write_file", { path: p, content })).status).toBe(0)
    const edit = await tool("write_file", { path: "a.ts", content: "const x: number = 1\n" })
    expect(edit.status, edit.stderr).toBe(0)
    expect(fs.existsSync(marker)).toBe(false)
  }, 150_000)
})
