/**
 * `minicode mcp config --for …` offers a session's common choices as flags (issue 44 item 4): `--no-ask`, `--ask`,
 * `--allow-all`, `--all-tools`, `--scope NAME=LEVEL`, `--sandbox MODE` are carried into the printed line and the
 * written entry as `mcp serve` flags, and the entry as written starts a server that has them (spawned by the SDK's
 * real client from the file); contradictions and bad scopes are usage errors that write nothing.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { serveFlags } from "../../src/domain/mcp/McpClientConfig.js"
import { scratchFolders } from "../support/Scratch.js"

const bin = path.resolve("dist/bin.js")
const tmp = scratchFolders()
const minicode = (args: ReadonlyArray<string>, cwd: string, home: string) =>
  spawnSync(process.execPath, [bin, ...args], { encoding: "utf8", cwd, env: { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(home, ".config"), PATH: "/usr/bin:/bin" } })

const none = { ask: false, noAsk: false, allowAll: false, allTools: false, scope: [], sandbox: undefined }

describe("mcp config: the session's choices as flags", () => {
  it("serveFlags: one canonical order; contradictions and bad scopes are refused", () => {
    expect(serveFlags(none)).toEqual(Either.right([]))
    expect(serveFlags({ ...none, noAsk: true, scope: ["Git=Write"], sandbox: "bwrap" })).toEqual(Either.right(["--no-ask", "--scope", "git=write", "--sandbox", "bwrap"]))
    expect(serveFlags({ ...none, allowAll: true, allTools: true, scope: ["mcp=read"] })).toEqual(Either.right(["--allow-all", "--all-tools", "--scope", "mcp=read"]))
    for (const bad of [{ ...none, ask: true, noAsk: true }, { ...none, ask: true, allowAll: true }, { ...none, scope: ["git=all"] }, { ...none, scope: ["mcp=write"] }]) {
      expect(Either.isLeft(serveFlags(bad)), JSON.stringify(bad)).toBe(true)
    }
  })

  it("the printed line carries the choices; without any, a comment offers them", () => {
    const ws = tmp("ws")
    const home = tmp("home")
    const plain = minicode(["mcp", "config", "--for", "claude-code", "--cwd", ws], ws, home)
    expect(plain.status).toBe(0)
    expect(plain.stdout).toContain("# Session choices")
    expect(plain.stdout).toContain("--no-ask")
    const chosen = minicode(["mcp", "config", "--for", "claude-code", "--cwd", ws, "--no-ask", "--scope", "git=write"], ws, home)
    expect(chosen.status).toBe(0)
    const line = chosen.stdout.split("\n").find((l) => l.startsWith("claude mcp add")) ?? ""
    expect(line).toMatch(new RegExp(`mcp serve --cwd ${ws} --no-ask --scope git=write$`))
  })

  it("--write: the entry in the file carries them, and the server it starts has them", async () => {
    const ws = tmp("ws")
    const home = tmp("home")
    fs.writeFileSync(path.join(ws, "a.txt"), "a\n")
    const written = minicode(["mcp", "config", "--for", "cursor", "--cwd", ws, "--write", "--allow-all", "--scope", "git=write"], ws, home)
    expect(written.status, written.stderr).toBe(0)
    expect(written.stdout).toContain("--allow-all --scope git=write")
    const entry = JSON.parse(fs.readFileSync(path.join(ws, ".cursor/mcp.json"), "utf8")).mcpServers.minicode
    expect(entry.args.slice(-3)).toEqual(["--allow-all", "--scope", "git=write"])
    const transport = new StdioClientTransport({ command: entry.command, args: entry.args, stderr: "pipe", cwd: home, env: { HOME: home, PATH: "/usr/bin:/bin" } })
    const client = new Client({ name: "choices", version: "1.0.0" })
    await client.connect(transport)
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toContain("git_commit")
      expect(client.getInstructions()).toContain("Asks (--allow-all)")
      expect(client.getInstructions()).toContain("git=write")
    } finally {
      await client.close()
    }
  })

  it("contradictory or bad choices: exit 2 with a sentence, and nothing is written", () => {
    const ws = tmp("ws")
    const home = tmp("home")
    for (const flags of [["--ask", "--no-ask"], ["--ask", "--allow-all"], ["--scope", "git=all"], ["--scope", "mcp=write"]]) {
      const run = minicode(["mcp", "config", "--for", "cursor", "--cwd", ws, "--write", ...flags], ws, home)
      expect(run.status, flags.join(" ")).toBe(2)
      expect(run.stderr, flags.join(" ")).toMatch(/^minicode: --(ask|scope)/)
      expect(fs.existsSync(path.join(ws, ".cursor"))).toBe(false)
    }
  })
})
