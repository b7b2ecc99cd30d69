/**
 * Red team (issue 19), git's configuration under another name: a remote's URL with its credentials is protected in
 * `.git/config` (read_file refuses it, bash sees a sanitized copy), but git also reads remotes from two legacy
 * folders it still honours, `.git/branches/<name>` (`URL#branch`) and `.git/remotes/<name>` (`URL: …`). read_file
 * showed `.git/branches/origin` (the jail lets file tools read `branches/` as names), and sandboxed bash showed both.
 * Now the jail refuses a file in either folder (domain/jail/Jail `gitReadReasonOf`) and the sandbox masks both
 * folders in every git folder bash may see, a nested repository's too (SecretObjects `remoteFolders`). Through the
 * built binary (allow-all).
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { title, unavailable } from "../support/Sandbox.js"
import { attackFile, attackWorkspace } from "./support/Attack.js"

const cleanups = attackFile()

describe.skipIf(unavailable !== undefined)(title("remotes defined in .git/branches and .git/remotes"), () => {
  it("their URLs' credentials are shown neither by read_file, grep nor bash; git still works in bash", () => {
    const ws = attackWorkspace(cleanups)
    fs.mkdirSync(path.join(ws.root, ".git/branches"), { recursive: true })
    fs.writeFileSync(path.join(ws.root, ".git/branches/origin"), "https://user:BRANCHESTOKENCANARY@example.com/r.git#main\n")
    fs.mkdirSync(path.join(ws.root, ".git/remotes"), { recursive: true })
    fs.writeFileSync(path.join(ws.root, ".git/remotes/up"), "URL: https://user:REMOTESTOKENCANARY@example.com/r.git\nPull: refs/heads/main:refs/heads/up\n")
    const outputs = [
      ws.tool("read_file", { path: ".git/branches/origin" }),
      ws.tool("read_file", { path: ".git/remotes/up" }),
      ws.tool("grep", { pattern: "CANARY", path: ".git/branches" }),
      ws.tool("grep", { pattern: "CANARY", path: ".git" })
    ].map((r) => r.stdout + r.stderr)
    outputs.push(ws.script("cat .git/branches/origin .git/remotes/up; grep -r CANARY .git 2>/dev/null; git log --oneline | head -1"))
    for (const out of outputs) {
      expect(out).not.toContain("BRANCHESTOKENCANARY")
      expect(out).not.toContain("REMOTESTOKENCANARY")
    }
    // Honest work: git in bash reads the history; the branches folder itself is listed.
    expect(outputs[4]).toContain("first")
    expect(ws.tool("list_dir", { path: ".git/branches" }).status).toBe(0)
  }, 120_000)

  it("a nested repository's .git/branches is not shown to bash either", () => {
    const ws = attackWorkspace(cleanups)
    const sub = path.join(ws.root, "vendor/lib")
    fs.mkdirSync(sub, { recursive: true })
    execFileSync("git", ["init", "-q", "-b", "main"], { cwd: sub })
    fs.mkdirSync(path.join(sub, ".git/branches"), { recursive: true })
    fs.writeFileSync(path.join(sub, ".git/branches/origin"), "https://user:NESTEDBRANCHESCANARY@example.com/r.git\n")
    const out = ws.script("cat vendor/lib/.git/branches/origin; grep -r CANARY vendor/lib/.git; echo done")
    expect(out).toContain("done")
    expect(out).not.toContain("NESTEDBRANCHESCANARY")
    expect(ws.tool("read_file", { path: "vendor/lib/.git/branches/origin" }).stdout).not.toContain("NESTEDBRANCHESCANARY")
  }, 120_000)
})
