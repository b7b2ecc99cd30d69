/**
 * Protected paths hold across sequences of calls (issue 19): every attack chain of test/kernel/support/Containment.ts
 * through the BUILT binary, once as the CLI (`dist/bin.js tool … --work-mode BUILD --policy allow-all`) and once
 * through `mcp serve` with the SDK's real client. No output carries a canary, nothing protected moves or changes,
 * nothing outside the workspace changes, and honest work (edits, moving folders, git_commit) still runs.
 */
import { execFile, spawnSync } from "node:child_process"
import { afterEach, beforeAll, describe, expect, it } from "vitest"
import { bin, connect, ensureBuilt, isErrorResult, textOf } from "../serve/support/McpServeHarness.js"
import { canary, expectIntact, type Outcome, runAll, setUp } from "./support/Containment.js"

const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})
beforeAll(() => ensureBuilt())

const workspace = () => {
  const ws = setUp()
  cleanups.push(ws.cleanup)
  return ws
}

describe("protected paths through the CLI", () => {
  it("every attack chain is refused, leaves no trace and no canary, and honest work runs", async () => {
    const ws = workspace()
    const call = (tool: string, args: Record<string, unknown>) =>
      new Promise<Outcome>((resolve) => {
        const argv = [bin, "tool", tool, JSON.stringify(args), "--cwd", ws.root, "--work-mode", "BUILD", "--policy", "allow-all"]
        execFile(process.execPath, argv, { encoding: "utf8", cwd: ws.root }, (error, stdout, stderr) =>
          resolve({ ok: error === null, text: `${stdout}\n${stderr}` })
        )
      })
    await runAll(ws, call)
    // Every chain through a CLI process of its own: ~3 min at the CI machine's load, over 4 on this one.
  }, 600_000)

  it("a refusal names the rule and the protected entry", async () => {
    const ws = workspace()
    const run = (tool: string, args: Record<string, unknown>) =>
      spawnSync(process.execPath, [bin, "tool", tool, JSON.stringify(args), "--cwd", ws.root, "--work-mode", "BUILD", "--policy", "allow-all", "--json"], { encoding: "utf8" })
    const moved = run("move_file", { from: "a", to: "b" })
    expect(moved.status).toBe(3)
    expect(moved.stdout + moved.stderr).toContain("jail.protected-inside")
    expect(moved.stdout + moved.stderr).toContain("a/.git")
    const git = run("write_file", { path: ".git/commondir", content: "x" })
    expect(git.stdout + git.stderr).toContain("jail.git-internals")
    const bash = run("bash", { command: "cat config/prod.env" })
    expect(bash.status).not.toBe(0)
    expect(bash.stdout + bash.stderr).not.toContain(canary)
    expectIntact(ws)
  }, 60_000)
})

describe("protected paths through mcp serve", () => {
  it("every attack chain is refused, leaves no trace and no canary, and honest work runs", async () => {
    const ws = workspace()
    const s = await connect(ws.root, ["--allow-all", "--all-tools", "--scope", "git=write"])
    cleanups.push(() => s.close().catch(() => undefined))
    const call = async (tool: string, args: Record<string, unknown>): Promise<Outcome> => {
      const result = await s.client.callTool({ name: tool, arguments: args })
      return { ok: !isErrorResult(result), text: textOf(result) }
    }
    await runAll(ws, call)
  }, 120_000)
})
