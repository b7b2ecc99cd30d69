/**
 * Red team (issue 19), plain copies of secrets git leaves in its own folder, read with read_file: the sandbox masks
 * `.git/lost-found` always and a message file holding a secret's patch (SecretObjects), but read_file runs on the
 * host and the jail protects only `.git/config` and `.git/hooks` there. `git commit -v` keeps the patch of a
 * committed `.env` in `.git/COMMIT_EDITMSG`; `git fsck --lost-found` writes a dangling `.env` blob (staged, then
 * unstaged and rotated) as a plain file in `.git/lost-found/other/`. Both are shown by read_file.
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { attackFile, attackWorkspace } from "./support/Attack.js"

const cleanups = attackFile()

describe("copies of secrets in .git read with read_file", () => {
  it("COMMIT_EDITMSG after the user's git commit -v of .env", () => {
    const ws = attackWorkspace(cleanups)
    fs.writeFileSync(path.join(ws.root, ".env"), "SECRET=canary-editmsg-read\n")
    ws.git("add", ".env")
    execFileSync("git", ["commit", "-q", "-v"], { cwd: ws.root, env: { ...process.env, GIT_EDITOR: "sed -i '1s/^/add config/'" } })
    const r = ws.tool("read_file", { path: ".git/COMMIT_EDITMSG" })
    expect(r.stdout + r.stderr).not.toContain("canary-editmsg-read")
  })

  it("a dangling .env blob written to .git/lost-found by git fsck --lost-found", () => {
    const ws = attackWorkspace(cleanups)
    fs.writeFileSync(path.join(ws.root, ".env"), "SECRET=canary-lost-found-read\n")
    ws.git("add", ".env")
    ws.git("reset", "-q", ".env")
    fs.writeFileSync(path.join(ws.root, ".env"), "SECRET=rotated\n")
    ws.git("fsck", "--lost-found")
    const found = fs.readdirSync(path.join(ws.root, ".git/lost-found/other"))
    expect(found.length).toBeGreaterThan(0)
    const out = found.map((f) => {
      const r = ws.tool("read_file", { path: `.git/lost-found/other/${f}` })
      return r.stdout + r.stderr
    })
    expect(out.join("\n")).not.toContain("canary-lost-found-read")
  })
})
