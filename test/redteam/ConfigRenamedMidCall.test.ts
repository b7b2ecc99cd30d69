/**
 * Red team 9 (issue 19, families 1 and 5): the sandbox shows `.git/config` as a read-only, sanitized copy bound over
 * it. The user's own `git config …` (or `git checkout -b x origin/x`, `git push -u`, `git remote add`) writes the
 * configuration to `config.lock` and renames it into place, and Linux detaches a bind mount whose mount point the
 * host renames over. A bash call running meanwhile then read the real configuration (a token in a remote's URL) and
 * wrote `core.fsmonitor` into it: the user's `git status` during the call ran it on the host. Now every bind the
 * sandbox makes in the workspace is guarded (MaskGuard), and a break stops the command at once and withholds its
 * output; the call's end puts the configuration back (GitControl).
 */
import { spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { bin, connect, textOf } from "../serve/support/McpServeHarness.js"
import { title, unavailable } from "../support/Sandbox.js"
import { attackFile, attackWorkspace } from "./support/Attack.js"
import { madeByCall } from "../support/Staged.js"
import * as StagedShell from "../../src/adapters/staged/StagedShell.js"

const cleanups = attackFile()
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const until = async (what: () => boolean) => {
  for (let i = 0; i < 600 && !what(); i++) await sleep(100)
}

/** Reads `.git/config` and tries to plant an fsmonitor in a loop, printing only at its end. */
const loop = (marker: string) =>
  [
    "touch started",
    `for i in $(seq 1 30); do cat .git/config >> /tmp/seen 2>&1; git config core.fsmonitor "touch ${marker}" 2>/dev/null && echo planted >> /tmp/seen; sleep 0.2; done`,
    "cat /tmp/seen; echo loop-done"
  ].join("\n")

const setUp = () => {
  const w = attackWorkspace(cleanups)
  w.git("remote", "add", "origin", "https://user:canary-url-token@example.com/r.git")
  const outside = fs.mkdtempSync(path.join(path.dirname(w.root), "outside-"))
  cleanups.push(() => fs.rmSync(outside, { recursive: true, force: true }))
  const marker = path.join(outside, "fsmonitor-ran")
  expect(w.tool("write_file", { path: "loop.sh", content: `${loop(marker)}\n` }).status).toBe(0)
  return { w, marker }
}

/**
 * The user, on the host: changes the configuration (lock and rename), then, a second later, runs `git status` a few
 * times while the call would still run (before, it had planted by then). Left: a `git status` in the few milliseconds
 * between the change and the command's stop (the guard is told by inotify) can still meet a plant, until the call's
 * end puts the configuration back.
 */
const userMeanwhile = async (root: string) => {
  spawnSync("git", ["config", "user.name", "someone-else"], { cwd: root })
  await sleep(1_000)
  for (let i = 0; i < 5; i++) {
    spawnSync("git", ["status", "--short"], { cwd: root })
    await sleep(200)
  }
}

describe.skipIf(unavailable !== undefined)(title("the user's git rewrites .git/config while a bash call runs"), () => {
  it("through the CLI: no token shown, no fsmonitor run or left", async () => {
    const { w, marker } = setUp()
    const child = spawn(process.execPath, [bin, "tool", "bash", JSON.stringify({ command: "sh loop.sh" }), "--cwd", w.root, "--work-mode", "BUILD", "--policy", "allow-all"], { stdio: ["ignore", "pipe", "pipe"] })
    let out = ""
    child.stdout.on("data", (d: Buffer) => (out += d.toString()))
    child.stderr.on("data", (d: Buffer) => (out += d.toString()))
    const done = new Promise((r) => child.on("close", r))
    await until(() => madeByCall(w.root, "started"))
    await sleep(300)
    await userMeanwhile(w.root)
    await done
    expect(out).not.toContain("canary-url-token")
    expect(fs.existsSync(marker)).toBe(false)
    // Live sandbox: the rename detached the sanitized copy, so the output is withheld. Staged bash (the default): the
    // copy is bound over the view, not the host's file, so it holds and the call runs to its end.
    expect(out).toMatch(!StagedShell.wanted() ? /withheld/ : /\[exit code: \d+\]/)
    spawnSync("git", ["status"], { cwd: w.root })
    expect(fs.existsSync(marker)).toBe(false)
    expect(fs.readFileSync(path.join(w.root, ".git/config"), "utf8")).not.toContain("fsmonitor")
  }, 120_000)

  it("through mcp serve: the same", async () => {
    const { w, marker } = setUp()
    const s = await connect(w.root, ["--allow-all", "--no-ask"])
    cleanups.push(() => s.close())
    const call = s.client.callTool({ name: "bash", arguments: { command: "sh loop.sh" } }, undefined, { timeout: 120_000 })
    await until(() => madeByCall(w.root, "started"))
    await sleep(300)
    await userMeanwhile(w.root)
    const text = textOf(await call)
    expect(text).not.toContain("canary-url-token")
    spawnSync("git", ["status"], { cwd: w.root })
    expect(fs.existsSync(marker)).toBe(false)
    expect(text).toMatch(!StagedShell.wanted() ? /withheld/ : /\[exit code: \d+\]/)
    // The server goes on serving.
    expect(textOf(await s.client.callTool({ name: "bash", arguments: { command: "echo still-serving" } }))).toContain("still-serving")
  }, 120_000)

  it("honest: a bash call that commits (its own index, refs and objects) while the user works elsewhere runs to its end", async () => {
    const w = attackWorkspace(cleanups)
    const script = "touch started; for i in 1 2 3; do echo $i > n.txt; git add n.txt; git commit -q -m n$i; sleep 0.5; done; git log --oneline | wc -l; echo committed"
    expect(w.tool("write_file", { path: "c.sh", content: `${script}\n` }).status).toBe(0)
    const call = w.toolAsync("bash", { command: "sh c.sh" })
    await until(() => madeByCall(w.root, "started"))
    fs.writeFileSync(path.join(w.root, "notes.tmp"), "mine\n")
    fs.renameSync(path.join(w.root, "notes.tmp"), path.join(w.root, "notes.md"))
    const r = await call
    expect(r.stdout).toContain("committed")
    expect(r.stdout).not.toContain("withheld")
  }, 120_000)
})
