/**
 * `mcp config --write` into a project file, which is shared with the repository (issue 44 item 6): with this
 * installation's `minicode` on PATH the entry starts `minicode` by name (portable), and it still starts this
 * installation; without it the absolute Node and script paths are written as before, and a note names every path
 * that holds only on this machine and what to do. A user file (Claude Desktop's) gets no note. Built CLI.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { describe, expect, it } from "vitest"
import { machineLocal } from "../../src/domain/mcp/McpClientConfig.js"
import { scratchFolders } from "../support/Scratch.js"

const bin = path.resolve("dist/bin.js")
const tmp = scratchFolders()
const nodeDir = path.dirname(process.execPath)
const minicode = (args: ReadonlyArray<string>, cwd: string, home: string, pathDirs: ReadonlyArray<string>) =>
  spawnSync(process.execPath, [bin, ...args], { encoding: "utf8", cwd, env: { HOME: home, PATH: [...pathDirs, nodeDir, "/usr/bin", "/bin"].join(path.delimiter) } })

describe("mcp config --write: a project file gets the portable command, or a note", () => {
  it("machineLocal names the absolute command, script and workspace", () => {
    expect(machineLocal({ command: "/usr/bin/node", args: ["--x", "/opt/m/dist/bin.js", "mcp", "serve", "--cwd", "/w"] })).toEqual([
      "the command /usr/bin/node",
      "the script /opt/m/dist/bin.js",
      "the workspace /w"
    ])
    expect(machineLocal({ command: "minicode", args: ["mcp", "serve", "--cwd", "/w"] })).toEqual(["the workspace /w"])
    expect(machineLocal({ command: "minicode", args: ["mcp", "serve"] })).toEqual([])
  })

  it("minicode on PATH: `minicode` by name in .mcp.json, which starts this installation; the note names only the workspace", async () => {
    const ws = tmp("ws")
    const home = tmp("home")
    const binDir = tmp("bin")
    fs.symlinkSync(bin, path.join(binDir, "minicode"))
    fs.writeFileSync(path.join(ws, "hello.txt"), "hello\n")
    const run = minicode(["mcp", "config", "--for", "claude-code", "--cwd", ws, "--write"], ws, home, [binDir])
    expect(run.status, run.stderr).toBe(0)
    const entry = JSON.parse(fs.readFileSync(path.join(ws, ".mcp.json"), "utf8")).mcpServers.minicode
    expect([entry.command, ...entry.args]).toEqual(["minicode", "mcp", "serve", "--cwd", ws])
    expect(run.stdout).toContain(`note: ${path.join(ws, ".mcp.json")} is shared with the repository, but the workspace ${ws} is a path of this machine`)
    expect(run.stdout).not.toContain("Put minicode on PATH")
    const transport = new StdioClientTransport({ command: entry.command, args: entry.args, cwd: home, env: { HOME: home, PATH: [binDir, nodeDir, "/usr/bin", "/bin"].join(path.delimiter) }, stderr: "pipe" })
    const client = new Client({ name: "portable", version: "1.0.0" })
    await client.connect(transport)
    try {
      const read = await client.callTool({ name: "read_file", arguments: { path: "hello.txt" } })
      expect(JSON.stringify(read)).toContain("hello")
    } finally {
      await client.close()
    }
  })

  it("not on PATH: absolute paths as before, and a note naming each and how to make it portable; a user file gets none", () => {
    const ws = tmp("ws")
    const home = tmp("home")
    const run = minicode(["mcp", "config", "--for", "cursor", "--cwd", ws, "--write"], ws, home, [])
    expect(run.status, run.stderr).toBe(0)
    const entry = JSON.parse(fs.readFileSync(path.join(ws, ".cursor/mcp.json"), "utf8")).mcpServers.minicode
    expect(entry.command).toBe(process.execPath)
    const note = run.stdout.split("\n").find((l) => l.startsWith("note:")) ?? ""
    expect(note).toContain(`the command ${process.execPath}`)
    expect(note).toContain(`the script ${fs.realpathSync(bin)}`)
    expect(note).toContain(`the workspace ${ws}`)
    expect(note).toContain("Put minicode on PATH")
    expect(note).toContain("minicode mcp config --for cursor --write")
    const user = minicode(["mcp", "config", "--for", "claude-desktop", "--cwd", ws, "--write"], ws, home, [])
    expect(user.status, user.stderr).toBe(0)
    expect(user.stdout).not.toContain("note:")
  })
})
