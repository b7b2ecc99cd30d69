/**
 * Red team (issue 19), the hooks folder that `core.hooksPath` names and that is made empty for each writable call
 * (`TreeControlsMade`): attacked as a sequence of allowed calls (stage a hook elsewhere, move it in, by file tools
 * and by bash, then the user's commit), and by sandboxed bash in a call of its own that keeps swapping the folder
 * above it with a symlink to a folder outside (`RENAME_EXCHANGE`) while other calls start and end. The invariants: the user's
 * commit runs nothing planted, and nothing is made or removed outside the workspace.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { snapshot } from "../serve/support/McpServeHarness.js"
import { attackFile, attackWorkspace } from "./support/Attack.js"
import { title, unavailable } from "../support/Sandbox.js"

const cleanups = attackFile()

const hostGit = (cwd: string, ...args: Array<string>) =>
  spawnSync("git", args, { cwd, encoding: "utf8", env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" } })

describe.skipIf(unavailable !== undefined)(title("the hooks folder made for each call"), () => {
  it("stage a hook elsewhere, move it in (file tools, then bash), commit: nothing runs", () => {
    const ws = attackWorkspace(cleanups)
    const { root, tool, script } = ws
    const marker = path.join(ws.parent, "PWNED")
    ws.git("config", "core.hooksPath", "tools/githooks")
    expect(tool("write_file", { path: "stage/githooks/pre-commit", content: `#!/bin/sh\ntouch ${marker}\n` }).status).toBe(0)
    const moved = tool("move_file", { from: "stage", to: "tools" })
    expect(moved.status, moved.stdout).not.toBe(0)
    const out = script(`chmod +x stage/githooks/pre-commit
mv stage/githooks tools/githooks; echo "into $?"
rm -rf tools; echo "rm $?"
mv stage tools; echo "whole $?"
cp stage/githooks/pre-commit tools/githooks/; echo "copy $?"`)
    expect(out).toMatch(/into [1-9]/)
    expect(out).toMatch(/rm [1-9]/)
    expect(out).toMatch(/copy [1-9]/)
    // `mv stage tools` may only have put it inside tools/ (tools exists for the call), never at tools/githooks.
    expect(fs.existsSync(path.join(root, "tools/githooks/pre-commit"))).toBe(false)
    fs.appendFileSync(path.join(root, "a.txt"), "more\n")
    expect(hostGit(root, "-c", "user.name=a", "-c", "user.email=a@b", "commit", "-qam", "user commit").status).toBe(0)
    expect(fs.existsSync(marker)).toBe(false)
  }, 120_000)

  // The swapper runs where the model can run it, in sandboxed bash, in a call of its own while other calls start and
  // end. (A swapper on the host, outside any sandbox, can win against bwrap itself, which resolves a bind's source
  // through a symlink swapped in at mount time: seen once under load. That is not the model's reach; see the note.)
  it("sandboxed bash swapping the folder above it with a symlink outside while calls run: nothing made or removed outside", async () => {
    const ws = attackWorkspace(cleanups)
    const { root, parent } = ws
    ws.git("config", "core.hooksPath", "tools/githooks")
    const outside = path.join(parent, "outdir")
    fs.mkdirSync(outside)
    fs.writeFileSync(path.join(outside, "keep.txt"), "outside\n")
    fs.mkdirSync(path.join(root, "tools"))
    fs.writeFileSync(path.join(root, "tools/notes.txt"), "inside\n")
    const before = snapshot(parent, root)
    const swapper = [
      "import ctypes, os, time",
      "libc = ctypes.CDLL(None, use_errno=True)",
      `os.symlink(${JSON.stringify(outside)}, "tl")`,
      "n = ok = 0",
      'open("ready", "w").close()',
      'while not os.path.exists("stop") and n < 2000000:',
      '    ok += libc.renameat2(-100, b"tools", -100, b"tl", 2) == 0; n += 1',
      'if os.path.islink("tools"): libc.renameat2(-100, b"tools", -100, b"tl", 2)',
      'print("tries", n, "swapped", ok)'
    ].join("\n")
    expect(ws.tool("write_file", { path: "swap.py", content: `${swapper}\n` }).status).toBe(0)
    expect(ws.tool("write_file", { path: "swap.sh", content: "python3 swap.py\n" }).status).toBe(0)
    let pid = 0
    const swapping = ws.startScript("swap.sh", (p) => (pid = p))
    cleanups.push(() => {
      try {
        if (pid !== 0) process.kill(pid)
      } catch {
        // ended
      }
    })
    for (let i = 0; i < 300 && !fs.existsSync(path.join(root, "ready")); i++) await new Promise((r) => setTimeout(r, 50))
    for (let i = 0; i < 12; i++) await ws.scriptAsync("true")
    fs.writeFileSync(path.join(root, "stop"), "")
    const out = (await swapping).stdout
    expect(out).toMatch(/tries [1-9]/)
    expect(snapshot(parent, root)).toEqual(before)
    expect(fs.readdirSync(outside)).toEqual(["keep.txt"])
    expect(fs.readFileSync(path.join(root, "tools/notes.txt"), "utf8")).toBe("inside\n")
    expect(fs.existsSync(path.join(root, "tools/githooks"))).toBe(false)
  }, 240_000)
})
