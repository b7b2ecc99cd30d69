/**
 * Red team 9 (issue 19, the third invariant): a process that dies while a sandboxed bash call runs. A writable call's
 * end puts back what it planted (a hook in a repository it made, a `folderOpen` task, a Claude hook), but that end
 * ran in the dying process: SIGHUP (the terminal closed) or SIGKILL of the CLI, or of `mcp serve`, left the plants,
 * and the user's `git commit` in the made repository ran the hook on the host. Now SIGHUP ends the process as
 * SIGTERM does, and a guardian (`adapters/shell/Recovery`) runs the call's end after any death. What the user had
 * before the call (their own `folderOpen` task) stays.
 */
import { spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { bin, connect } from "../serve/support/McpServeHarness.js"
import { title, unavailable } from "../support/Sandbox.js"
import { attackFile, attackWorkspace } from "./support/Attack.js"
import { stateOf } from "../support/StateHome.js"
import { liveSandbox, madeByCall } from "../support/Staged.js"

// The live sandbox's repair machinery (bash writing the tree where no overlay can be made) is what this file attacks;
// staged bash (the default) is attacked for the same families in test/adapters/staged/StagedBash.e2e.test.ts.
liveSandbox()

const cleanups = attackFile()
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

const folderOpen = (marker: string) =>
  JSON.stringify({ version: "2.0.0", tasks: [{ label: "x", type: "shell", command: `touch ${marker}`, runOptions: { runOn: "folderOpen" } }] })

/** Plants a hook in a repository it makes, a folderOpen task and a Claude hook, each writing into `outside`; then waits to be killed. */
const planter = (outside: string) =>
  [
    "git init -q sub",
    `printf '#!/bin/sh\\ntouch ${outside}/hook-ran\\n' > sub/.git/hooks/pre-commit && chmod +x sub/.git/hooks/pre-commit`,
    `mkdir -p .vscode .claude && printf '%s' '${folderOpen(`${outside}/task-ran`)}' > .vscode/tasks.json`,
    `printf '%s' '${JSON.stringify({ hooks: { PreToolUse: [{ hooks: [{ type: "command", command: `touch ${outside}/claude-ran` }] }] } })}' > .claude/settings.json`,
    "touch started; sleep 60"
  ].join("\n")

const until = async (what: () => boolean) => {
  for (let i = 0; i < 600 && !what(); i++) await sleep(100)
}

/** A workspace with an `outside` folder beside it, the user's own folderOpen task, and the planter written. */
const setUp = () => {
  const w = attackWorkspace(cleanups)
  const outside = fs.mkdtempSync(path.join(path.dirname(w.root), "outside-"))
  cleanups.push(() => fs.rmSync(outside, { recursive: true, force: true }))
  expect(w.tool("write_file", { path: "plant.sh", content: `${planter(outside)}\n` }).status).toBe(0)
  return { w, outside }
}

/** After the process died: the guardian's work done (no call's record left), then the user acts on the host. */
const afterwards = async (root: string, outside: string) => {
  await until(() => !["editorcontrols.json", "gitcontrol.json"].some((r) => fs.existsSync(path.join(stateOf(root), r))))
  expect(fs.existsSync(path.join(stateOf(root), "gitcontrol.json"))).toBe(false)
  // The user commits in every repository, and reads the editor's and Claude's command files.
  if (fs.existsSync(path.join(root, "sub/.git"))) {
    spawnSync("git", ["-c", "user.email=u@example.com", "-c", "user.name=u", "commit", "-q", "--allow-empty", "-m", "mine"], { cwd: path.join(root, "sub") })
  }
  const read = (p: string) => (fs.existsSync(path.join(root, p)) ? fs.readFileSync(path.join(root, p), "utf8") : "")
  expect(fs.readdirSync(outside)).toEqual([])
  expect(read(".vscode/tasks.json")).not.toContain(outside)
  expect(read(".claude/settings.json")).not.toContain(outside)
}

describe.skipIf(unavailable !== undefined)(title("a process killed while a sandboxed call runs"), () => {
  for (const signal of ["SIGKILL", "SIGHUP"] as const) {
    it(`the CLI (${signal}): nothing the call planted stays`, async () => {
      const { w, outside } = setUp()
      const child = spawn(process.execPath, [bin, "tool", "bash", JSON.stringify({ command: "sh plant.sh" }), "--cwd", w.root, "--work-mode", "BUILD", "--policy", "allow-all"], { stdio: "ignore" })
      const exited = new Promise((r) => child.on("exit", r))
      await until(() => madeByCall(w.root, "started"))
      child.kill(signal)
      await exited
      await afterwards(w.root, outside)
    }, 120_000)
  }

  it("mcp serve (SIGKILL) with a call in flight: nothing the call planted stays", async () => {
    const { w, outside } = setUp()
    const s = await connect(w.root, ["--allow-all", "--no-ask"])
    const call = s.client.callTool({ name: "bash", arguments: { command: "sh plant.sh" } }, undefined, { timeout: 120_000 }).catch(() => undefined)
    await until(() => madeByCall(w.root, "started"))
    process.kill(s.pid, "SIGKILL")
    await call
    await s.close().catch(() => undefined)
    await afterwards(w.root, outside)
  }, 120_000)

  it("honest: the user's own folderOpen task, there before the call, stays after a SIGKILL", async () => {
    const w = attackWorkspace(cleanups)
    const mine = folderOpen("/tmp/the-users-own-build")
    fs.mkdirSync(path.join(w.root, ".vscode"))
    fs.writeFileSync(path.join(w.root, ".vscode/tasks.json"), mine)
    expect(w.tool("write_file", { path: "wait.sh", content: "echo built > out.txt; touch started; sleep 60\n" }).status).toBe(0)
    const child = spawn(process.execPath, [bin, "tool", "bash", JSON.stringify({ command: "sh wait.sh" }), "--cwd", w.root, "--work-mode", "BUILD", "--policy", "allow-all"], { stdio: "ignore" })
    const exited = new Promise((r) => child.on("exit", r))
    await until(() => madeByCall(w.root, "started"))
    child.kill("SIGKILL")
    await exited
    await until(() => !fs.existsSync(path.join(stateOf(w.root), "editorcontrols.json")))
    expect(fs.readFileSync(path.join(w.root, ".vscode/tasks.json"), "utf8")).toBe(mine)
    expect(fs.readFileSync(path.join(w.root, "out.txt"), "utf8")).toBe("built\n")
  }, 120_000)
})
