/** `config lsp add|list|remove` (mounted here under a stand-in root), and the doctor report on real servers. */
import * as fs from "node:fs"
import * as path from "node:path"
import { Command } from "@effect/cli"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Logger } from "effect"
import { lspConfig, lspDoctor } from "../../src/cli/LspCommands.js"
import { tempDir } from "../support/Workspace.js"

const home = tempDir("minicode-lspcfg-home-")
const workspace = tempDir("minicode-lspcfg-ws-")
process.env["XDG_CONFIG_HOME"] = home
const cli = Command.run(Command.make("minicode").pipe(Command.withSubcommands([Command.make("config").pipe(Command.withSubcommands([lspConfig]))])), { name: "minicode", version: "0" })

const run = (...argv: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const lines: Array<string> = []
    const capture = Logger.replace(Logger.defaultLogger, Logger.make(({ message }) => lines.push(String(message))))
    const log = console.log
    console.log = (...a: ReadonlyArray<unknown>) => void lines.push(a.map(String).join(" "))
    const exit = yield* cli(["node", "minicode", "config", "lsp", ...argv, "--cwd", workspace]).pipe(Effect.provide(NodeContext.layer), Effect.provide(capture), Effect.exit)
    console.log = log
    return { lines, exit }
  })

const globalFile = path.join(home, "minicode", "config.json")

describe("config lsp", () => {
  it.effect("the documented form works as written; list masks env; remove; other keys are kept", () =>
    Effect.gen(function* () {
      fs.mkdirSync(path.dirname(globalFile), { recursive: true })
      fs.writeFileSync(globalFile, JSON.stringify({ workMode: "PLAN" }))
      const added = yield* run("add", ".ts", "--command", "typescript-language-server", "--args", "--stdio")
      assert.strictEqual(added.exit._tag, "Success")
      yield* run("add", "py", "--command", "pyright-langserver", "--arg", "--stdio", "--env", "PYRIGHT_TOKEN=s3cret")
      const stored = JSON.parse(fs.readFileSync(globalFile, "utf8"))
      assert.deepStrictEqual(stored, {
        workMode: "PLAN",
        lsp: { ".ts": { command: "typescript-language-server", args: ["--stdio"] }, ".py": { command: "pyright-langserver", args: ["--stdio"], env: { PYRIGHT_TOKEN: "s3cret" } } }
      })
      assert.strictEqual(fs.statSync(globalFile).mode & 0o777, 0o600)
      const listed = yield* run("list")
      assert.deepStrictEqual(listed.lines, [".ts: stdio typescript-language-server --stdio [global; sandboxed when bubblewrap is usable]", ".py: stdio pyright-langserver --stdio env PYRIGHT_TOKEN=*** [global; sandboxed when bubblewrap is usable]"])
      yield* run("add", ".ts", "--command", "other-ls", "--local")
      const untrusted = yield* run("list")
      assert.include(untrusted.lines.join("\n"), ".ts: stdio other-ls [local; sandboxed when bubblewrap is usable] (ignored: pass --allow-local-config to trust local config)")
      const trusted = yield* run("list", "--allow-local-config")
      assert.include(trusted.lines.join("\n"), ".ts: stdio typescript-language-server --stdio [global; sandboxed when bubblewrap is usable] (overridden by local)")
      yield* run("remove", ".py")
      assert.deepStrictEqual(Object.keys(JSON.parse(fs.readFileSync(globalFile, "utf8")).lsp), [".ts"])
      const bad = yield* run("add", "not an ext", "--command", "x")
      assert.strictEqual(bad.exit._tag, "Failure")
      // Sandboxed by default; --no-sandbox opts out and says so; --sandbox requires it; both together are refused.
      yield* run("add", ".rs", "--command", "rust-analyzer", "--no-sandbox")
      yield* run("add", ".go", "--command", "gopls", "--sandbox")
      const modes = (yield* run("list")).lines.join("\n")
      assert.include(modes, ".rs: stdio rust-analyzer [global; not sandboxed (--no-sandbox)]")
      assert.include(modes, ".go: stdio gopls [global; sandbox required]")
      assert.strictEqual(JSON.parse(fs.readFileSync(globalFile, "utf8")).lsp[".rs"].sandbox, false)
      const both = yield* run("add", ".c", "--command", "clangd", "--sandbox", "--no-sandbox")
      assert.strictEqual(both.exit._tag, "Failure")
    })
  )

  it.live("doctor: found on PATH or not, starts and initialises or not", () =>
    Effect.gen(function* () {
      const bin = path.resolve(import.meta.dirname, "../../node_modules/.bin/typescript-language-server")
      const report = yield* lspDoctor(workspace, { ".ts": { command: bin, args: ["--stdio"] }, ".go": { command: "minicode-no-gopls" } })
      const ts = report.rows.find((r) => r.server.startsWith("typescript-language-server"))
      assert.deepInclude(ts, { found: bin, initialised: true, error: null })
      const go = report.rows.find((r) => r.server.startsWith("minicode-no-gopls"))
      assert.deepInclude(go, { found: null, initialised: false })
      assert.match(report.lines.join("\n"), /minicode-no-gopls \(\.go\): minicode-no-gopls NOT FOUND on PATH; does not start: .*was not found/)
    })
  )
})
