/**
 * Red team (issue 19), a workspace whose git folder is not named `.git`: `git init --separate-git-dir=.repo` leaves a
 * `.git` file (`gitdir: …/.repo`) and the repository in `.repo/`. The jail protects `config` and `hooks` only below a
 * `.git` segment, and the scan sanitizes git's config only there, so `.repo/config` (a remote URL with its token
 * here) is shown whole by read_file and by sandboxed bash; and write_file (on the host, where no GitControl looks)
 * replaces `.repo/config` with one naming core.fsmonitor, which the user's next `git status` runs.
 */
import { execFileSync, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
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
    // Nor by grep, glob or list_dir's neighbours: the folder is left out as .git is.
    const grep = ws.tool("grep", { pattern: canary })
    expect(grep.stdout + grep.stderr).not.toContain(`bob:${canary}`)
    const glob = ws.tool("glob", { pattern: "**/config" })
    expect(glob.stdout).not.toContain(".repo/config")
    // A bare clone by any name is a git folder too: its config is neither read nor written.
    execFileSync("git", ["clone", "-q", "--bare", ws.root, path.join(ws.root, "backup")])
    expect(ws.tool("read_file", { path: "backup/config" }).stdout).not.toContain("[core]")
    expect(ws.tool("write_file", { path: "backup/hooks/post-update", content: "#!/bin/sh\n" }).stdout).toContain("git folder")
  })
  it("write_file cannot replace its config: the user's git status runs nothing", () => {
    const ws = attackWorkspace(cleanups)
    execFileSync("git", ["init", "-q", "--separate-git-dir=.repo"], { cwd: ws.root })
    const marker = path.join(ws.parent, "PWNED")
    ws.tool("write_file", { path: ".repo/config", content: `[core]\n\trepositoryformatversion = 0\n\tfsmonitor = touch ${marker}\n` })
    spawnSync("git", ["status", "--short"], { cwd: ws.root, encoding: "utf8", env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" } })
    expect(fs.existsSync(marker)).toBe(false)
  })
})
