/**
 * Red team (issue 19), protected content under another name through repo_map: read_file refuses a protected
 * symlink's target (`.env -> config/prod.ts`), a hard link to a protected file and a file below a protected folder
 * reached by a symlink (`.ssh -> dotfiles/ssh`). repo_map mapped every source file by its own path and showed
 * their definitions, the secret's content. Now each is left out, named in the coverage note as denied by the jail;
 * the other files are mapped as ever. Through the built CLI (the map is made in a worker process, and in-process
 * with MINICODE_REPOMAP_WORKER=off) and through `mcp serve`.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { bin, connect, textOf } from "../serve/support/McpServeHarness.js"
import { attackFile, attackWorkspace } from "./support/Attack.js"

const cleanups = attackFile()

const plant = () => {
  const ws = attackWorkspace(cleanups)
  const { root } = ws
  const write = (rel: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true })
    fs.writeFileSync(path.join(root, rel), text)
  }
  write("src/app.ts", "export function honestHandler() { return 1 }\n")
  // A protected symlink's target.
  write("config/prod.ts", "export const CANARY_LINKED_TARGET = 'k1'\nexport function canaryLinkedFn() {}\n")
  fs.symlinkSync("config/prod.ts", path.join(root, ".env"))
  // A hard link to a protected file.
  write(".env.local", "export const CANARY_HARD_LINK = 'k2'\n")
  fs.linkSync(path.join(root, ".env.local"), path.join(root, "src/notes.ts"))
  // A file below a protected folder reached through a symlink.
  write("dotfiles/ssh/agent.py", "def canary_ssh_folder():\n    return 'k3'\n")
  fs.symlinkSync("dotfiles/ssh", path.join(root, ".ssh"))
  return ws
}

const canaries = /CANARY_LINKED_TARGET|canaryLinkedFn|CANARY_HARD_LINK|canary_ssh_folder/

const expectHeld = (out: string) => {
  expect(out).toContain("honestHandler")
  expect(out).not.toMatch(canaries)
  expect(out).toMatch(/denied by the jail: .*config\/prod\.ts/)
  for (const f of ["src/notes.ts", "dotfiles/ssh/agent.py"]) expect(out).toContain(f)
}

describe("repo_map never shows protected content under another name", () => {
  it("through the CLI, in the worker process and in-process", () => {
    const { tool, root } = plant()
    // The refusals the map must agree with.
    for (const f of ["config/prod.ts", "src/notes.ts", "dotfiles/ssh/agent.py"]) expect(tool("read_file", { path: f }).status, f).not.toBe(0)
    const worker = tool("repo_map", {})
    expect(worker.status, worker.stdout).toBe(0)
    expectHeld(worker.stdout)
    const inProcess = spawnSync(process.execPath, [bin, "tool", "repo_map", "{}", "--cwd", root, "--work-mode", "BUILD", "--policy", "allow-all", "--json"], {
      encoding: "utf8",
      env: { ...process.env, MINICODE_REPOMAP_WORKER: "off" }
    })
    expect(inProcess.status, inProcess.stdout).toBe(0)
    expectHeld(inProcess.stdout)
    // A map of the folder alone, and one focused on the target, hold it too.
    expect(tool("repo_map", { path: "config" }).stdout).not.toMatch(canaries)
    expect(tool("repo_map", { focus: ["config/prod.ts"] }).stdout).not.toMatch(canaries)
    expect(fs.readFileSync(path.join(root, "config/prod.ts"), "utf8")).toContain("CANARY_LINKED_TARGET")
  }, 120_000)

  it("through mcp serve", async () => {
    const { root } = plant()
    const s = await connect(root, ["--allow-all", "--no-ask"])
    cleanups.push(() => s.close())
    const out = textOf(await s.client.callTool({ name: "repo_map", arguments: {} }, undefined, { timeout: 120_000 }))
    expectHeld(out)
  }, 120_000)
})
