/**
 * Red team: the per-workspace LSP broker (app/LspBroker.ts), a long-lived process outside the sandbox holding
 * sandboxed language servers. Through the built CLI, default sandbox, policy allow-all; the stand-in server
 * (support/lsp-file-reader.mjs) answers every hover with every file its sandbox lets it read, and the git store.
 *
 * Were holes:
 * - A server the broker started before a secret existed read it on a later hover (bwrap fixes its masks when the
 *   server starts; a session's servers die with the call, a broker's live on). Now the broker restarts its servers
 *   when what the sandbox hides changed (LspRenewal.ts `renewed`), a masked file replaced by a rename included.
 * - With `HOME` at the workspace and no `XDG_RUNTIME_DIR`, the broker's socket folder was `WS/.cache/minicode/lsp`:
 *   sandboxed bash (no network) connected to the broker and had it answer requests, past every gate. Now no socket
 *   folder inside the workspace is used (BrokerSocket.inWorkspace): those calls are answered in-process.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, beforeAll, describe, expect, it } from "vitest"
import { bin, ensureBuilt, makeGitWorkspace } from "../serve/support/McpServeHarness.js"
import { runCli } from "../support/Cli.js"
import { title, unavailable } from "../support/Sandbox.js"

const reader = path.resolve(import.meta.dirname, "support/lsp-file-reader.mjs")
const cleanups: Array<() => unknown> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})
beforeAll(() => ensureBuilt())

const setup = (homeInWorkspace: boolean) => {
  const ws = makeGitWorkspace()
  cleanups.push(ws.cleanup)
  const home = homeInWorkspace ? ws.root : path.join(ws.parent, "home")
  fs.mkdirSync(home, { recursive: true })
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(ws.parent, "config") }
  delete env["XDG_RUNTIME_DIR"]
  delete env["XDG_CACHE_HOME"]
  delete env["MINICODE_LSP_BROKER"]
  const add = spawnSync(process.execPath, [bin, "config", "lsp", "add", ".txt", "--global", "--command", process.execPath, "--arg", reader], { env, encoding: "utf8" })
  expect(add.status, add.stderr).toBe(0)
  fs.writeFileSync(path.join(ws.root, "a.txt"), "hello\n")
  const tool = (name: string, args: unknown) =>
    runCli(bin, ["tool", name, JSON.stringify(args), "--cwd", ws.root, "--work-mode", "BUILD", "--policy", "allow-all", "--json"], { env, timeoutMs: 90_000 })
  const hover = () => tool("lsp_hover", { path: "a.txt", line: 1, character: 1 })
  cleanups.push(() => runCli(bin, ["lsp", "stop", "--cwd", ws.root], { env, timeoutMs: 30_000 }))
  return { ...ws, env, home, tool, hover }
}

describe.skipIf(unavailable !== undefined)(title("the LSP broker"), () => {
  it("a secret created after the broker's server started never reaches a later hover", async () => {
    const { root, home, hover } = setup(false)
    fs.writeFileSync(path.join(root, ".envrc"), "export TOKEN=EARLY\n")
    const first = await hover()
    expect(first.stdout, first.stderr).toContain("hover of a.txt")
    // The broker is the one answering (its socket is in the home's cache folder).
    expect(fs.readdirSync(path.join(home, ".cache/minicode/lsp")).some((n) => n.endsWith(".sock"))).toBe(true)
    // Saved as editors do: a new file renamed over the masked one is not under the running sandbox's mount.
    fs.writeFileSync(path.join(root, "envrc.tmp"), "export TOKEN=RENAMEDCANARY\n")
    fs.renameSync(path.join(root, "envrc.tmp"), path.join(root, ".envrc"))
    fs.writeFileSync(path.join(root, "plain.txt"), "NOWPLAIN\n")
    const renamed = await hover()
    expect(renamed.stdout).toContain("NOWPLAIN")
    expect(renamed.stdout + renamed.stderr).not.toContain("RENAMEDCANARY")
    fs.writeFileSync(path.join(root, ".env"), "TOKEN=LATECANARY\n")
    fs.mkdirSync(path.join(root, "deep/x"), { recursive: true })
    fs.writeFileSync(path.join(root, "deep/x/prod.env"), "KEY=DEEPCANARY\n")
    const second = await hover()
    expect(second.stdout).toContain("hover of a.txt")
    expect(second.stdout + second.stderr).not.toMatch(/LATECANARY|DEEPCANARY/)
  }, 180_000)

  it("with HOME at the workspace, no socket is made there and sandboxed bash cannot reach a broker", async () => {
    const { root, hover, tool } = setup(true)
    const first = await hover()
    expect(first.stdout, first.stderr).toContain("hover of a.txt")
    expect(fs.existsSync(path.join(root, ".cache/minicode/lsp"))).toBe(false)
    fs.writeFileSync(
      path.join(root, "c.mjs"),
      `import * as net from "node:net"
import * as fs from "node:fs"
const socks = []
const walk = (d) => { for (const e of fs.readdirSync(d, { withFileTypes: true })) { const p = d + "/" + e.name; if (e.isSocket()) socks.push(p); else if (e.isDirectory()) walk(p) } }
walk(".")
console.log("sockets: " + socks.length)
for (const s of socks) {
  const c = net.connect(s)
  c.on("data", (d) => console.log("BROKER-ANSWERED " + d))
  c.on("error", () => undefined)
  c.write(JSON.stringify({ version: 2, root: process.cwd(), watched: false, operation: { op: "status" } }) + "\\n")
}
setTimeout(() => process.exit(0), 1500)
`
    )
    const r = await tool("bash", { command: "node c.mjs" })
    expect(r.stdout).toContain("sockets: 0")
    expect(r.stdout).not.toContain("BROKER-ANSWERED")
  }, 180_000)
})
