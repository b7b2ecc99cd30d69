/**
 * Red team (issue 19), a workspace whose git folder is not named `.git`: `git init --separate-git-dir=.repo` leaves a
 * `.git` file (`gitdir: …/.repo`) and the repository in `.repo/`. The jail protects `config` and `hooks` only below a
 * `.git` segment, and the scan sanitizes git's config only there, so `.repo/config` (a remote URL with its token
 * here) is shown whole by read_file and by sandboxed bash, and `.repo/hooks` is open to bash.
 */
import { execFileSync } from "node:child_process"
import { describe, expect, it } from "vitest"
import { attackFile, attackWorkspace } from "./support/Attack.js"
import { title, unavailable } from "../support/Sandbox.js"

const canary = "canary-separate-gitdir-token"
const cleanups = attackFile()

describe.skipIf(unavailable !== undefined)(title("a separate git folder inside the workspace"), () => {
  it("its config is shown neither by read_file nor by bash", () => {
    const ws = attackWorkspace(cleanups)
    // The workspace's repository moved to .repo/ as git does it (the .git folder becomes a gitdir: file).
    execFileSync("git", ["init", "-q", "--separate-git-dir=.repo"], { cwd: ws.root })
    ws.git("config", "remote.origin.url", `https://bob:${canary}@example.com/r.git`)
    const read = ws.tool("read_file", { path: ".repo/config" })
    const out = ws.script("cat .repo/config; echo read-done")
    expect(out).toContain("read-done")
    expect(read.stdout + read.stderr).not.toContain(canary)
    expect(out).not.toContain(canary)
  })
})
