/**
 * Issue 19's git holes through the shipped binary: `minicode tool git_* … --policy allow-all` and `mcp serve` with
 * the SDK's real client. A planted filter never runs (the canary writes outside the workspace), committed and
 * live secrets never print, honest git work still runs.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { bin, connect, gitWorkspaces, isErrorResult, textOf } from "../serve/support/McpServeHarness.js"

const { cleanups, workspace } = gitWorkspaces()

const setup = () => {
  const ws = workspace()
  const { root, git } = ws
  const marker = path.join(ws.parent, "ran")
  const canary = path.join(ws.parent, "canary.sh")
  fs.writeFileSync(canary, `#!/bin/sh\necho ran >> ${marker}\ncat\n`, { mode: 0o755 })
  fs.writeFileSync(path.join(root, "a.js"), "one\n")
  fs.writeFileSync(path.join(root, ".env"), "API_KEY=sk-live-e2e-secret\n")
  git("add", "a.js", ".env")
  git("commit", "-q", "-m", "first")
  const cli = (tool: string, args: unknown) =>
    spawnSync(process.execPath, [bin, "tool", tool, JSON.stringify(args), "--cwd", root, "--work-mode", "BUILD", "--policy", "allow-all"], { encoding: "utf8" })
  return { root, marker, canary, git, cli }
}

/**
 * The attacker's chain: move .git away, edit its config, move it back, then attributes and a changed file. The file
 * tools now refuse the moves (the jail protects `.git` as a subtree), so the config is then planted the way a process
 * outside the file tools could (sandboxed bash, the user's own tools): git's own refusal is the second layer under test.
 */
const plant = (cli: ReturnType<typeof setup>["cli"], root: string, canary: string) => {
  expect(cli("move_file", { from: ".git", to: "gitbak" }).status).toBe(3)
  expect(fs.existsSync(path.join(root, ".git/config"))).toBe(true)
  const config = fs.readFileSync(path.join(root, ".git/config"), "utf8")
  fs.writeFileSync(path.join(root, ".git/config"), `${config}[filter "x"]\n\tclean = ${canary}\n`)
  expect(cli("write_file", { path: ".gitattributes", content: "*.js filter=x\n" }).status).toBe(0)
  expect(cli("write_file", { path: "a.js", content: "two\n" }).status).toBe(0)
}

describe("git containment through the built CLI", () => {
  it("honest diff works; a planted filter is refused and never runs; secrets never print", () => {
    const { root, marker, canary, cli } = setup()
    fs.writeFileSync(path.join(root, "a.js"), "honest\n")
    const honest = cli("git_diff", {})
    expect(honest.status).toBe(0)
    expect(honest.stdout).toContain("+honest")
    for (const rev of ["HEAD:.env", ":.env"]) {
      const r = cli("git_show", { rev })
      expect(r.status).not.toBe(0)
      expect(`${r.stdout}${r.stderr}`).toContain("which is protected")
      expect(`${r.stdout}${r.stderr}`).not.toContain("sk-live")
    }
    const patch = cli("git_show", { rev: "HEAD" })
    expect(patch.stdout).toContain("[minicode: diff of secret file .env hidden]")
    expect(patch.stdout).not.toContain("sk-live")
    plant(cli, root, canary)
    const r = cli("git_diff", {})
    expect(r.status).not.toBe(0)
    expect(`${r.stdout}${r.stderr}`).toContain("git tools refuse repository-controlled programs: filter.x.clean")
    expect(fs.existsSync(marker)).toBe(false)
  })
})

describe("git containment through mcp serve", () => {
  it("the same holes stay closed for an MCP client", async () => {
    const { root, marker, canary, cli } = setup()
    const s = await connect(root, ["--allow-all", "--all-tools", "--scope", "git=write"])
    cleanups.push(() => s.close().catch(() => undefined))
    const call = (name: string, args: Record<string, unknown>) => s.client.callTool({ name, arguments: args })
    const secret = await call("git_show", { rev: "HEAD:.env" })
    expect(isErrorResult(secret)).toBe(true)
    expect(textOf(secret)).not.toContain("sk-live")
    fs.writeFileSync(path.join(root, ".env"), "API_KEY=sk-live-changed\n")
    const diff = await call("git_diff", {})
    expect(textOf(diff)).toContain("[minicode: diff of secret file .env hidden]")
    expect(textOf(diff)).not.toContain("sk-live")
    plant(cli, root, canary)
    for (const name of ["git_status", "git_diff", "git_log"]) {
      const r = await call(name, {})
      expect(isErrorResult(r), name).toBe(true)
      expect(textOf(r), name).toContain("filter.x.clean")
    }
    expect(fs.existsSync(marker)).toBe(false)
  })
})
