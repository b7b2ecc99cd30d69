/** The MCP client from the shipped CLI: `config mcp add --timeout`, progress of a long call on stderr. */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect, it } from "vitest"

const bin = path.resolve("dist/bin.js")
const misbehaving = path.resolve("test/support/misbehaving-server.mjs")

describe("minicode CLI as an MCP client", () => {
  it("a server added with --timeout keeps it; a long call shows progress on stderr and its result on stdout", () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), "mcpcli-"))
    const env = { ...process.env, XDG_CONFIG_HOME: home }
    const run = (args: ReadonlyArray<string>) => spawnSync(process.execPath, [bin, ...args], { encoding: "utf8", env, timeout: 60_000 })
    const added = run(["config", "mcp", "add", "bad", "--command", process.execPath, "--arg", misbehaving, "--timeout", "1"])
    expect(added.status, added.stderr).toBe(0)
    expect(run(["config", "mcp", "list"]).stdout).toContain("timeout 1s")
    const zero = run(["config", "mcp", "add", "x", "--command", "y", "--timeout", "0"])
    expect(zero.status).not.toBe(0)
    expect(zero.stdout + zero.stderr).toContain("--timeout is in seconds")
    const call = run(["tool", "--work-mode", "BUILD", "--policy", "allow-all", "mcp_call", JSON.stringify({ server: "bad", tool: "progress", arguments: { n: 3, delay: 600 } })])
    expect(call.stdout).toContain("done after 3 steps; token present")
    // The last notification may arrive in the same read as the result, which the SDK's client then handles first (it
    // runs notification handlers a microtask later, and drops a finished request's progress): the steps before it show.
    expect(call.stderr).toContain("bad.progress: 1/3 step 1\nbad.progress: 2/3 step 2")
    fs.rmSync(home, { recursive: true, force: true })
  })
  it("config mcp list says which stdio server is sandboxed (opt-in --sandbox) and which runs with the user's rights", () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), "mcpcli-"))
    const env = { ...process.env, XDG_CONFIG_HOME: home }
    const run = (args: ReadonlyArray<string>) => spawnSync(process.execPath, [bin, ...args], { encoding: "utf8", env, timeout: 60_000 })
    expect(run(["config", "mcp", "add", "boxed", "--command", "node", "--arg", "s.mjs", "--sandbox"]).status).toBe(0)
    expect(run(["config", "mcp", "add", "open", "--command", "node", "--arg", "s.mjs"]).status).toBe(0)
    expect(run(["config", "mcp", "add", "web", "--url", "https://mcp.example.com/mcp"]).status).toBe(0)
    const lines = run(["config", "mcp", "list"]).stdout.split("\n")
    expect(lines.find((l) => l.startsWith("boxed:"))).toContain("sandboxed (--sandbox)")
    expect(lines.find((l) => l.startsWith("open:"))).toContain("not sandboxed: runs with your rights")
    expect(lines.find((l) => l.startsWith("web:"))).toContain("remote (HTTP)")
    const listed = JSON.parse(run(["config", "mcp", "list", "--json"]).stdout) as Array<{ id: string; sandbox: string }>
    expect(Object.fromEntries(listed.map((r) => [r.id, r.sandbox]))).toEqual({ boxed: "sandboxed (--sandbox)", open: "not sandboxed: runs with your rights", web: "remote (HTTP)" })
    fs.rmSync(home, { recursive: true, force: true })
  })
})
