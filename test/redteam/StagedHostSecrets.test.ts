/**
 * Red team of staged bash (issue 41): a masked file saved by rename on the host while a staged call runs. The view
 * masks `.env` by name in a layer of its own, so the rename changes nothing `cat .env` shows; but the editor (vim's
 * backup, JetBrains' safe write) first writes the new secret under another name in the same folder (`.env.tmp`),
 * and the view's lower layer is the live workspace: a loop reading `.env*` printed the new secret, and its copy
 * (`cp .env* copied.txt`) was merged into the workspace, where read_file showed it. The live sandbox withheld the
 * output once `.env`'s mask broke (MaskGuard); the staged shell ignored the guard. Now a break withholds the call's
 * result and merges nothing (its writes stay in staging for `recover --staged`).
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { bin, textOf } from "../serve/support/McpServeHarness.js"
import { title, unavailable } from "../support/Sandbox.js"
import { madeByCall } from "../support/Staged.js"
import { attackFile, attackWorkspace, loopInServe } from "./support/Attack.js"

// Staged bash is what this file attacks (MINICODE_BASH_STAGED=1; the CLI and mcp serve this file starts inherit it).
process.env["MINICODE_BASH_STAGED"] = "1"

const cleanups = attackFile()
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const loop = "touch started; for i in $(seq 1 30); do cat .env* 2>/dev/null; cat .env* > copied.txt 2>/dev/null; sleep 0.1; done; echo loop-done\n"

const started = async (root: string) => {
  for (let i = 0; i < 600 && !madeByCall(root, "started"); i++) await sleep(100)
  await sleep(300)
}

/** The host's editor saving `.env` by rename, its temporary file there for a second. */
const save = async (root: string, n: number) => {
  fs.writeFileSync(path.join(root, ".env.tmp"), `NEW=canary-saved-${n}\n`)
  await sleep(1000)
  fs.renameSync(path.join(root, ".env.tmp"), path.join(root, ".env"))
}

describe.skipIf(unavailable !== undefined)(title("staged bash: a masked file saved by rename on the host mid-call"), () => {
  it("the CLI's result (--json) shows no canary and no copy is merged; read_file of the copy shows none", async () => {
    const w = attackWorkspace(cleanups)
    fs.writeFileSync(path.join(w.root, ".env"), "OLD=canary-old\n")
    expect(w.tool("write_file", { path: "loop.sh", content: loop }).status).toBe(0)
    const args = ["tool", "bash", JSON.stringify({ command: "sh loop.sh" }), "--cwd", w.root, "--work-mode", "BUILD", "--policy", "allow-all", "--json"]
    const child = spawn(process.execPath, [bin, ...args], { stdio: ["ignore", "pipe", "pipe"] })
    let out = ""
    child.stdout.on("data", (d: Buffer) => (out += d.toString()))
    child.stderr.on("data", (d: Buffer) => (out += d.toString()))
    const done = new Promise<void>((r) => child.on("close", () => r()))
    await started(w.root)
    await save(w.root, 1)
    await done
    expect(out).not.toContain("canary-")
    expect(out).toContain("output is withheld: .env was replaced")
    expect(out).toContain("nothing merged")
    expect(fs.existsSync(path.join(w.root, "copied.txt"))).toBe(false)
    expect(w.tool("read_file", { path: "copied.txt" }).stdout).not.toContain("canary-")
  }, 120_000)
  it("through mcp serve: the result shows no canary and no copy is merged", async () => {
    const { w, call } = await loopInServe(cleanups, loop)
    await started(w.root)
    await save(w.root, 2)
    const text = textOf(await call)
    expect(text).not.toContain("canary-")
    expect(text).toContain("withheld")
    expect(fs.existsSync(path.join(w.root, "copied.txt"))).toBe(false)
  }, 120_000)
  it("a masked file written in place keeps its mask: the output is shown and the call merges", async () => {
    const w = attackWorkspace(cleanups)
    fs.writeFileSync(path.join(w.root, ".env"), "OLD=canary-old\n")
    expect(w.tool("write_file", { path: "loop.sh", content: "touch started; for i in $(seq 1 20); do cat .env; sleep 0.1; done; echo kept > kept.txt; echo loop-done\n" }).status).toBe(0)
    const args = ["tool", "bash", JSON.stringify({ command: "sh loop.sh" }), "--cwd", w.root, "--work-mode", "BUILD", "--policy", "allow-all", "--json"]
    const child = spawn(process.execPath, [bin, ...args], { stdio: ["ignore", "pipe", "pipe"] })
    let out = ""
    child.stdout.on("data", (d: Buffer) => (out += d.toString()))
    const done = new Promise<void>((r) => child.on("close", () => r()))
    await started(w.root)
    fs.writeFileSync(path.join(w.root, ".env"), "NEW=canary-in-place\n")
    await done
    expect(out).toContain("loop-done")
    expect(out).not.toContain("canary-")
    expect(fs.readFileSync(path.join(w.root, "kept.txt"), "utf8")).toBe("kept\n")
  }, 120_000)
})
