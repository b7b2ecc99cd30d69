/**
 * The git tools run inside the sandbox when bubblewrap is usable: reads with the workspace read-only and a
 * private /tmp, git_commit in bash's profile. Observed through what git can see: a configuration file included
 * from a host folder outside the workspace (harmless: it sets `core.abbrev`) is read on the host, never inside.
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { runTool } from "../../src/index.js"
import { mustRun, title, unavailable } from "../support/Sandbox.js"

let ws: string
let outside: string
const git = (cwd: string, ...args: Array<string>) => execFileSync("git", args, { cwd, encoding: "utf8" })

beforeEach(() => {
  ws = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "minicode-gits-")))
  outside = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "minicode-gits-out-")))
  git(ws, "init", "-q", "-b", "main")
  git(ws, "config", "user.email", "dev@example.com")
  git(ws, "config", "user.name", "Dev")
  fs.writeFileSync(path.join(ws, "a.txt"), "one\n")
  git(ws, "add", "a.txt")
  git(ws, "commit", "-q", "-m", "first")
})
afterEach(() => {
  fs.rmSync(ws, { recursive: true, force: true })
  fs.rmSync(outside, { recursive: true, force: true })
})

const run = (workspace: string, tool: string, args: unknown, sandbox: "auto" | "none" = "auto") =>
  runTool({ workspace, workMode: "BUILD", tool, args, policy: "allow-all", sandbox })

if (unavailable !== undefined && mustRun) {
  describe("git sandbox", () => {
    it("bwrap must be usable in CI (CI=true)", () => expect.fail(`sandbox unavailable in CI: ${unavailable}`))
  })
}

describe.skipIf(unavailable !== undefined)(title("git tools inside the sandbox"), () => {
  it("reads and commits cannot see a host folder outside the workspace; without a sandbox they can", async () => {
    fs.writeFileSync(path.join(outside, "abbrev.cfg"), "[core]\n\tabbrev = 16\n")
    git(ws, "config", "include.path", path.join(outside, "abbrev.cfg"))
    const hash = (text: string) => /^([0-9a-f]+) /.exec(text)?.[1]?.length
    const inside = await run(ws, "git_log", { limit: 1 })
    expect(inside.ok && hash(inside.text)).toBe(7)
    const onHost = await run(ws, "git_log", { limit: 1 }, "none")
    expect(onHost.ok && hash(onHost.text)).toBe(16)
    fs.writeFileSync(path.join(ws, "a.txt"), "two\n")
    const commit = await run(ws, "git_commit", { message: "second", paths: ["a.txt"] })
    expect(commit.ok && /\[main ([0-9a-f]+)\]/.exec(commit.text)?.[1]?.length).toBe(7)
    expect(git(ws, "log", "-1", "--format=%s").trim()).toBe("second")
  })

  it("a tracked secret, masked inside, is still reported by name when it changes, never by content", async () => {
    fs.writeFileSync(path.join(ws, ".env"), "TOKEN=abc-secret-1\n")
    git(ws, "add", ".env")
    git(ws, "commit", "-q", "-m", "env")
    const clean = await run(ws, "git_status", {})
    expect(clean.ok && clean.text).toBe("## main")
    expect(await run(ws, "git_diff", {})).toMatchObject({ ok: true, text: "no changes" })
    fs.writeFileSync(path.join(ws, ".env"), "TOKEN=abc-secret-2\n")
    const status = await run(ws, "git_status", {})
    expect(status.ok && status.text).toContain(" M .env")
    const diff = await run(ws, "git_diff", {})
    expect(diff.ok && diff.text).toBe("[minicode: diff of secret file .env hidden]")
    git(ws, "add", ".env")
    const staged = await run(ws, "git_status", {})
    expect(staged.ok && staged.text).toContain("M  .env")
    fs.rmSync(path.join(ws, ".env"))
    const gone = await run(ws, "git_status", {})
    expect(gone.ok && gone.text).toContain("MD .env")
  })

  it("a linked worktree whose git folder is outside the workspace: reads inside, the commit on the host", async () => {
    const linked = path.join(outside, "linked")
    git(ws, "worktree", "add", "-q", "-b", "topic", linked)
    fs.writeFileSync(path.join(linked, "a.txt"), "topic\n")
    const status = await run(linked, "git_status", {})
    expect(status.ok && status.text).toContain(" M a.txt")
    const diff = await run(linked, "git_diff", {})
    expect(diff.ok && diff.text).toContain("+topic")
    const commit = await run(linked, "git_commit", { message: "on topic", paths: ["a.txt"] })
    expect(commit.ok).toBe(true)
    expect(git(ws, "log", "-1", "--format=%s", "topic").trim()).toBe("on topic")
  })
})
