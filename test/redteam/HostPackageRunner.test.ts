/**
 * Red team (issue 19, invariant 3), a hole: an MCP stdio server the user configured as an npm package (`config mcp
 * add fs --command npx --args "-y,<package>,."`, the README's own example) starts on the host, not sandboxed (the
 * default for MCP servers), in the workspace. npx takes the folder it starts in for its project: when the
 * workspace's `node_modules/.bin/<package>` exists, npx runs THAT, with the user's rights. A tool call plants it
 * (write_file of the script, sandboxed bash's `chmod +x`), and the next call that starts the server (`mcp_list`,
 * any `fs.*` tool, or the user's next session) runs a program the repository controls outside any sandbox. The same
 * for a language server added with `--no-sandbox` and started by npx. And for `python3 -m some_server`: Python puts the
 * folder it starts in first on its module path, so a workspace `some_server.py` ran instead of the installed module.
 *
 * Now a server started on the host has `npx` / `npm exec` pointed at `--prefix /` (domain/core/HostLaunch, wired in
 * app/NodeLayers `serverLauncher`): the package is the one npm resolves, the server still runs in the workspace; a
 * `python -m` run gets `PYTHONSAFEPATH=1`.
 * Through the built binary (allow-all, default sandbox; npx resolves a folder package offline).
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { bin } from "../serve/support/McpServeHarness.js"
import { runCli } from "../support/Cli.js"
import { title, unavailable } from "../support/Sandbox.js"
import { attackFile, attackWorkspace } from "./support/Attack.js"

const cleanups = attackFile()
const reader = path.resolve(import.meta.dirname, "support/mcp-file-reader.mjs")
const npx = spawnSync("npx", ["--version"], { encoding: "utf8" }).status === 0

/** A private home whose global config holds one MCP server, `id`, started as `npx -y <spec>` (or as `argv`). */
const configured = (parent: string, id: string, spec: string, argv: ReadonlyArray<string> = ["npx", "-y", spec]) => {
  const home = path.join(parent, "home")
  fs.mkdirSync(home, { recursive: true })
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(home, ".config"), npm_config_cache: path.join(parent, "npm-cache") }
  const [command = "", ...args] = argv
  const add = spawnSync(process.execPath, [bin, "config", "mcp", "add", id, "--global", "--command", command, ...args.flatMap((a) => ["--arg", a])], { env, encoding: "utf8" })
  expect(add.status, add.stderr).toBe(0)
  return env
}

describe.skipIf(unavailable !== undefined || !npx)(title("an MCP server started by npx on the host"), () => {
  it("a node_modules/.bin planted in the workspace under the package's name never runs", async () => {
    const ws = attackWorkspace(cleanups)
    const name = `mcp-rt7-${Math.random().toString(36).slice(2, 8)}`
    const marker = path.join(ws.parent, "PWNED")
    const env = configured(ws.parent, "fs", name)
    const tool = (t: string, args: unknown) =>
      runCli(bin, ["tool", t, JSON.stringify(args), "--cwd", ws.root, "--work-mode", "BUILD", "--policy", "allow-all"], { env, timeoutMs: 120_000 })
    // The agent's calls: the package's manifest and bin, made executable from sandboxed bash.
    expect((await tool("write_file", { path: `node_modules/${name}/package.json`, content: JSON.stringify({ name, version: "1.0.0", bin: { [name]: "x.js" } }) })).status).toBe(0)
    const script = `#!/bin/sh\ntouch ${marker}\n`
    expect((await tool("write_file", { path: `node_modules/.bin/${name}`, content: script })).status).toBe(0)
    expect((await tool("write_file", { path: "s.sh", content: `chmod +x node_modules/.bin/${name} && echo ready\n` })).status).toBe(0)
    expect((await tool("bash", { command: "sh s.sh" })).stdout).toContain("ready")
    // The call that starts the server.
    await tool("mcp_list", {})
    expect(fs.existsSync(marker)).toBe(false)
  }, 240_000)

  it("honest: a server package npx resolves (a folder outside the workspace) starts, in the workspace", async () => {
    const ws = attackWorkspace(cleanups)
    const pkg = path.join(ws.parent, "honest-mcp")
    fs.mkdirSync(pkg)
    fs.writeFileSync(path.join(pkg, "package.json"), JSON.stringify({ name: "honest-mcp", version: "1.0.0", bin: { "honest-mcp": "server.mjs" } }))
    fs.writeFileSync(path.join(pkg, "server.mjs"), `#!/usr/bin/env node\n${fs.readFileSync(reader, "utf8")}`, { mode: 0o755 })
    const env = configured(ws.parent, "honest", pkg)
    const r = await runCli(bin, ["tool", "honest.dump", "{}", "--cwd", ws.root, "--work-mode", "BUILD", "--policy", "allow-all"], { env, timeoutMs: 120_000 })
    // It runs in the workspace: it lists the workspace's own files.
    expect(r.stdout + r.stderr).toContain("a.txt: a")
  }, 240_000)

  it("python3 -m <module>: a module of that name planted in the workspace never runs", async () => {
    const ws = attackWorkspace(cleanups)
    const name = `mcp_rt7_${Math.random().toString(36).slice(2, 8)}`
    const marker = path.join(ws.parent, "PWNED")
    const env = configured(ws.parent, "py", name, ["python3", "-m", name])
    const tool = (t: string, args: unknown) =>
      runCli(bin, ["tool", t, JSON.stringify(args), "--cwd", ws.root, "--work-mode", "BUILD", "--policy", "allow-all"], { env, timeoutMs: 120_000 })
    expect((await tool("write_file", { path: `${name}.py`, content: `open(${JSON.stringify(marker)}, "w").write("ran")\n` })).status).toBe(0)
    await tool("mcp_list", {})
    expect(fs.existsSync(marker)).toBe(false)
  }, 240_000)
})

/** yarn 2+ (berry), which reads `.yarnrc.yml` where it starts: the only yarn with `dlx`. */
const berry = /^[2-9]\./.test(spawnSync("yarn", ["--version"], { encoding: "utf8", cwd: "/" }).stdout ?? "")

describe.skipIf(unavailable !== undefined || !berry)(title("an MCP server started by yarn dlx on the host"), () => {
  // Red team 8, a hole on 1f02486: `.yarnrc.yml` is a secret's name (the file tools refuse it), but sandboxed bash
  // could make it (nothing masks a file that is absent when the sandbox starts), and yarn ran its `yarnPath`.
  it("a .yarnrc.yml planted by sandboxed bash (yarnPath: workspace code) never runs when the server starts", async () => {
    const ws = attackWorkspace(cleanups)
    const marker = path.join(ws.parent, "PWNED")
    const env = configured(ws.parent, "yx", "some-mcp-server", ["yarn", "dlx", "some-mcp-server"])
    const tool = (t: string, args: unknown) =>
      runCli(bin, ["tool", t, JSON.stringify(args), "--cwd", ws.root, "--work-mode", "BUILD", "--policy", "allow-all"], { env, timeoutMs: 120_000 })
    expect((await tool("write_file", { path: "tools/y.cjs", content: `require("fs").writeFileSync(${JSON.stringify(marker)}, "ran")\n` })).status).toBe(0)
    expect((await tool("write_file", { path: ".yarnrc.yml", content: "yarnPath: tools/y.cjs\n" })).status).not.toBe(0)
    expect((await tool("write_file", { path: "s.sh", content: `printf 'yarnPath: tools/y.cjs\\n' > .yarnrc.yml && echo planted\n` })).status).toBe(0)
    expect((await tool("bash", { command: "sh s.sh" })).stdout).toContain("planted")
    await tool("mcp_list", {})
    expect(fs.existsSync(marker)).toBe(false)
  }, 240_000)
})
