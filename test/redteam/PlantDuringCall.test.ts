/**
 * Red team (issue 19), planted git control files while the call still runs: GitControl puts a planted
 * `.git/commondir` back when the writable call ends. Until then the plant is live on the host: a bash call that
 * plants `commondir` → `../evil` (a `config` with core.fsmonitor) and then keeps running (a build, a `sleep`) lets
 * any git the user runs meanwhile (a terminal, an editor's git integration refreshing on file changes) run the
 * planted program on the host, outside any sandbox.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { attackFile, attackWorkspace } from "./support/Attack.js"
import { title, unavailable } from "../support/Sandbox.js"

const cleanups = attackFile()

describe.skipIf(unavailable !== undefined)(title("a planted commondir during a long bash call"), () => {
  it("the user's git status meanwhile runs nothing", async () => {
    const ws = attackWorkspace(cleanups)
    const marker = path.join(ws.parent, "PWNED")
    expect(ws.tool("write_file", { path: "plant.sh", content: `mkdir -p evil/hooks && cp -r .git/objects .git/refs .git/HEAD evil/
printf '[core]\\n\\trepositoryformatversion = 0\\n\\tfsmonitor = touch ${marker}\\n' > evil/config
echo ../evil > .git/commondir && sleep 6
` }).status).toBe(0)
    let pid = 0
    const run = ws.startScript("plant.sh", (p) => (pid = p))
    cleanups.push(() => {
      try {
        if (pid !== 0) process.kill(pid)
      } catch {
        // ended
      }
    })
    const commondir = path.join(ws.root, ".git/commondir")
    for (let i = 0; i < 100 && !fs.existsSync(commondir); i++) await new Promise((r) => setTimeout(r, 50))
    // The user's own git on the host while the call runs.
    spawnSync("git", ["status", "--short"], { cwd: ws.root, encoding: "utf8", env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" } })
    await run
    expect(fs.existsSync(commondir)).toBe(false)
    expect(fs.existsSync(marker)).toBe(false)
  }, 60_000)
})
