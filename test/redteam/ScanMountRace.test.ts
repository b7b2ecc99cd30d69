/**
 * Red team (issue 19), the window between the sandbox's scan and bwrap's mounts: a call's scan finds `conf/.env`
 * and asks bwrap to mask that path, but a concurrent bash call (another CLI process here; `mcp serve` runs calls
 * concurrently too) keeps moving `conf/` to `x/conf` and back (`mv -T`; the masked file inside moves along, it is
 * not itself a mount point in the mover's sandbox). When the move lands between the scan and the mounts, bwrap
 * makes an empty `conf/.env` to mount over and the real file sits unmasked at `x/conf/.env`: the second call's
 * script reads it. Seen: about 1 call in 10 printed the canary.
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { bin } from "../serve/support/McpServeHarness.js"
import { attackFile, attackWorkspace } from "./support/Attack.js"
import { title, unavailable } from "../support/Sandbox.js"

const canary = "canary-scan-mount-race"
const cleanups = attackFile()

describe.skipIf(unavailable !== undefined)(title("a secret's folder moved by a concurrent bash call between another call's scan and its mounts"), () => {
  it("no bash call reads the secret", async () => {
    const { root, tool } = attackWorkspace(cleanups)
    fs.mkdirSync(path.join(root, "conf"))
    fs.mkdirSync(path.join(root, "x"))
    fs.writeFileSync(path.join(root, "conf/.env"), `SECRET=${canary}\n`)
    expect(tool("write_file", { path: "move.sh", content: "while [ ! -e stop ]; do mv -T conf x/conf 2>/dev/null; mv -T x/conf conf 2>/dev/null; done\n" }).status).toBe(0)
    expect(tool("write_file", { path: "read.sh", content: "find . -name '.e*' -type f -exec cat {} + 2>/dev/null; echo read-done\n" }).status).toBe(0)
    // Honest first: the reader runs, and finds nothing while nothing moves.
    const first = tool("bash", { command: "sh read.sh" })
    expect(first.stdout).toContain("read-done")
    expect(first.stdout).not.toContain(canary)
    const args = ["tool", "bash", JSON.stringify({ command: "sh move.sh", timeout_ms: 300_000 }), "--cwd", root, "--work-mode", "BUILD", "--policy", "allow-all", "--json"]
    const mover = spawn(process.execPath, [bin, ...args], { stdio: "ignore" })
    const done = new Promise((resolve) => mover.on("exit", resolve))
    cleanups.push(() => mover.kill())
    await new Promise((r) => setTimeout(r, 2_000))
    const leaks: Array<string> = []
    // 25 calls: with the old build about 1 in 10 leaked, so a regression shows in 93% of runs.
    for (let i = 0; i < 25 && leaks.length === 0; i++) {
      // Each call is a synchronous CLI run: let the test runner's own messages through between them.
      await new Promise((r) => setTimeout(r, 0))
      const r = tool("bash", { command: "sh read.sh" })
      if ((r.stdout + r.stderr).includes(canary)) leaks.push(`call ${i}: ${r.stdout}`)
    }
    fs.writeFileSync(path.join(root, "stop"), "")
    await done
    expect(leaks).toEqual([])
  }, 400_000)
})
