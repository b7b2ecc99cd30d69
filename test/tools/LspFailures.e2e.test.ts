/**
 * The shipped binary (dist/bin.js) with a language server that hangs or dies (test/support/lsp-fake-server.mjs),
 * configured as a user would (`minicode config lsp add`): lsp_* calls fail within their deadline with a clear
 * message and exit code 1, nothing is left running, writes are committed whatever the server does, SIGTERM ends a
 * call stuck on a hung server, doctor reports a hung server instead of hanging; and the same through `mcp serve`.
 */
import { spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { describe, expect, it } from "vitest"
import { fakeServer, pidsOf, reap, survivors } from "../support/LspFake.js"
import { tempDir } from "../support/Workspace.js"
import { isErrorResult, textOf } from "../serve/support/McpServeHarness.js"

const bin = path.resolve("dist/bin.js")

/** A workspace with a.fake, and its own config home where `.fake` is served by the fake in `modes`. */
const setup = (modes: string, timeouts: ReadonlyArray<string> = []) => {
  const home = tempDir("minicode-lspfail-home-")
  const ws = tempDir("minicode-lspfail-ws-")
  const marker = path.join(home, "fake")
  fs.writeFileSync(path.join(ws, "a.fake"), "hello\n")
  // The in-process path (the fallback when no broker answers); the broker has its own test (test/cli/LspBroker.e2e.test.ts).
  const env = { ...process.env, XDG_CONFIG_HOME: home, MINICODE_LSP_BROKER: "off" }
  const run = (args: ReadonlyArray<string>) => spawnSync(process.execPath, [bin, ...args], { encoding: "utf8", cwd: ws, env, timeout: 60_000 })
  const added = run(["config", "lsp", "add", ".fake", "--command", process.execPath, "--arg", fakeServer, "--arg", modes, "--arg", marker, ...timeouts.flatMap((t) => ["--timeout", t]), "--cwd", ws, "--no-sandbox"])
  expect(added.status, added.stderr).toBe(0)
  return { home, ws, marker, env, run }
}

const hover = ["tool", "lsp_hover", '{"path":"a.fake","line":1,"character":2}']

const noSurvivors = async (marker: string, started = 2) => {
  const pids = pidsOf(marker)
  expect(pids.length, "the server and its helper started").toBe(started)
  const left = await survivors(pids)
  reap(left)
  expect(left).toEqual([])
}

describe("language servers that hang or die, through the CLI", () => {
  it("a server that exits at start: no crash, its status and stderr, exit code 1; a write still succeeds", () => {
    const s = setup("exit-at-start")
    const r = s.run([...hover, "--cwd", s.ws])
    expect(r.status).toBe(1)
    expect(r.stderr).toContain("the language server exited at start (code 7): fake-lsp: cannot load the project | fake-lsp: giving up")
    expect(r.stderr).not.toMatch(/EPIPE|ConnectionError|Connection is closed|at .*\.js:\d+/)
    const w = s.run(["tool", "write_file", '{"path":"a.fake","content":"changed\\n"}', "--work-mode", "BUILD", "--cwd", s.ws])
    expect(w.status, w.stderr).toBe(0)
    expect(w.stdout).toContain("diagnostics unavailable: the language server exited at start (code 7): fake-lsp: cannot load the project")
    expect(fs.readFileSync(path.join(s.ws, "a.fake"), "utf8")).toBe("changed\n")
    const records = JSON.parse(s.run(["journal", "--json", "--cwd", s.ws]).stdout)
    expect(records.map((x: { tool: string; state: string }) => [x.tool, x.state])).toEqual([["write_file", "committed"]])
  })

  it("a server hung on initialize: lsp_hover fails within the deadline, exit code 1, its group is killed", async () => {
    const s = setup("hang-initialize,child,ignore-sigterm", ["initialize=1500"])
    const r = s.run([...hover, "--cwd", s.ws])
    expect(r.status).toBe(1)
    expect(r.stderr).toContain("language server node (.fake) (initialize) timed out after 1500 ms")
    await noSurvivors(s.marker)
  })

  it("a hung request: the same, with --json", async () => {
    const s = setup("hang-hover,child,ignore-sigterm,hang-shutdown", ["request=1200", "shutdown=500"])
    const r = s.run([...hover, "--json", "--cwd", s.ws])
    expect(r.status).toBe(1)
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: false, error: { _tag: "ToolTimeout", message: "language server node (.fake) (textDocument/hover) timed out after 1200 ms" } })
    await noSurvivors(s.marker)
  })

  it("write_file whose diagnostics hang: the write succeeds and is committed, the result says diagnostics unavailable", async () => {
    const s = setup("hang-diagnostics,child,ignore-sigterm,hang-shutdown", ["diagnostics=1500", "shutdown=500"])
    const w = s.run(["tool", "write_file", '{"path":"a.fake","content":"new\\n"}', "--work-mode", "BUILD", "--cwd", s.ws])
    expect(w.status, w.stderr).toBe(0)
    expect(w.stdout).toContain("[diagnostics unavailable: language server node (.fake) (diagnostics) timed out after 1500 ms]")
    expect(fs.readFileSync(path.join(s.ws, "a.fake"), "utf8")).toBe("new\n")
    const e = s.run(["tool", "edit_file", '{"path":"a.fake","old_string":"new","new_string":"newer"}', "--work-mode", "BUILD", "--cwd", s.ws])
    expect(e.status, e.stderr).toBe(0)
    expect(e.stdout).toContain("diagnostics unavailable")
    const records = JSON.parse(s.run(["journal", "--json", "--cwd", s.ws]).stdout)
    expect(records.map((x: { tool: string; state: string }) => [x.tool, x.state])).toEqual([["write_file", "committed"], ["edit_file", "committed"]])
    await noSurvivors(s.marker)
  })

  it("SIGTERM during a call hung on the server ends it within seconds, leaves nothing running, and a write it made committed", async () => {
    for (const call of [hover, ["tool", "write_file", '{"path":"a.fake","content":"sig\\n"}', "--work-mode", "BUILD"]]) {
      // Deadlines far away: only the signal can end these calls.
      const s = setup("hang-hover,hang-diagnostics,hang-shutdown,ignore-sigterm,child", ["request=120000", "diagnostics=120000"])
      const child = spawn(process.execPath, [bin, ...call, "--cwd", s.ws], { cwd: s.ws, env: s.env, stdio: "ignore" })
      const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)))
      const until = Date.now() + 20_000
      while (pidsOf(s.marker).length < 2 && Date.now() < until) await new Promise((r) => setTimeout(r, 50))
      await new Promise((r) => setTimeout(r, 800))
      const t0 = Date.now()
      child.kill("SIGTERM")
      const timer = new Promise<"hung">((r) => setTimeout(() => r("hung"), 10_000))
      const outcome = await Promise.race([exited, timer])
      if (outcome === "hung") child.kill("SIGKILL")
      expect(outcome, "the CLI exited after SIGTERM").not.toBe("hung")
      expect(Date.now() - t0).toBeLessThan(10_000)
      await noSurvivors(s.marker)
      if (call[1] === "write_file") {
        expect(fs.readFileSync(path.join(s.ws, "a.fake"), "utf8")).toBe("sig\n")
        const records = JSON.parse(s.run(["journal", "--json", "--cwd", s.ws]).stdout)
        expect(records.map((x: { tool: string; state: string }) => [x.tool, x.state])).toEqual([["write_file", "committed"]])
      }
    }
  }, 90_000)

  it("doctor reports a hung server and one that exits at start, and does not hang", async () => {
    const s = setup("hang-initialize,hang-shutdown,ignore-sigterm,child", ["initialize=1500"])
    const r = s.run(["doctor", "--json", "--cwd", s.ws])
    // A configured server that does not start is a failure of doctor's check (exit 1, the exit-code table).
    expect(r.status, r.stderr).toBe(1)
    const row = JSON.parse(r.stdout).servers.lsp[0]
    expect(row).toMatchObject({ initialised: false, error: "language server node (.fake) (initialize) timed out after 1500 ms" })
    await noSurvivors(s.marker)
    const dead = setup("exit-at-start")
    const d = dead.run(["doctor", "--cwd", dead.ws])
    expect(d.status, d.stderr).toBe(1)
    expect(d.stdout).toContain("does not start: language server node (.fake) failed: the language server exited at start (code 7)")
  })
})

describe("language servers that hang or die, through mcp serve", () => {
  it("lsp_hover is a tool error; write_file is committed with diagnostics unavailable; the session goes on", async () => {
    const s = setup("hang-hover,hang-diagnostics,child,ignore-sigterm", ["request=1000", "diagnostics=1000", "shutdown=500"])
    const transport = new StdioClientTransport({ command: process.execPath, args: [bin, "mcp", "serve", "--cwd", s.ws, "--allow-all"], env: { ...s.env }, stderr: "pipe", cwd: s.ws })
    const client = new Client({ name: "minicode-lsp-e2e", version: "1.0.0" })
    await client.connect(transport)
    try {
      const h = await client.callTool({ name: "lsp_hover", arguments: { path: "a.fake", line: 1, character: 2 } })
      expect(isErrorResult(h)).toBe(true)
      expect(textOf(h)).toContain("(textDocument/hover) timed out after 1000 ms")
      const w = await client.callTool({ name: "write_file", arguments: { path: "a.fake", content: "mcp\n" } })
      expect(isErrorResult(w)).toBe(false)
      expect(textOf(w)).toContain("diagnostics unavailable")
      const read = await client.callTool({ name: "read_file", arguments: { path: "a.fake" } })
      expect(textOf(read)).toContain("mcp")
    } finally {
      await client.close()
    }
    const records = JSON.parse(s.run(["journal", "--json", "--cwd", s.ws]).stdout)
    expect(records.filter((x: { tool: string }) => x.tool === "write_file").map((x: { state: string }) => x.state)).toEqual(["committed"])
    // The server started for the write (the one hung on hover was killed at its deadline) ends with the session.
    await noSurvivors(s.marker)
  }, 60_000)
})
