/**
 * Red team (issue 19), git_commit's paths as pathspec magic: the jail judges `:(glob)**` as a plain (harmless,
 * missing) file name, and git reads it as "every file". In a workspace that is a linked worktree (its git folder
 * outside the workspace), git_commit runs on the host, not in the sandbox that masks `.env`: `git add -- ':(glob)**'`
 * stages `.env` with its real content and the commit records it. The secret's content is then in the repository's
 * history (and `git_push` with a URL as its remote would carry it off the machine).
 */
import { execFileSync, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterEach, beforeAll, describe, expect, it } from "vitest"
import { bin, ensureBuilt } from "../serve/support/McpServeHarness.js"

const cleanups: Array<() => void> = []
afterEach(() => {
  for (const c of cleanups.splice(0)) c()
})
beforeAll(() => ensureBuilt())

describe("git_commit with a pathspec-magic path", () => {
  it("in a linked worktree, ':(glob)**' never commits .env", () => {
    const parent = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "minicode-pathspec-")))
    cleanups.push(() => fs.rmSync(parent, { recursive: true, force: true }))
    const main = path.join(parent, "main")
    const wt = path.join(parent, "wt")
    fs.mkdirSync(main)
    const git = (cwd: string, ...args: Array<string>) => execFileSync("git", args, { cwd, encoding: "utf8" })
    git(main, "init", "-q", "-b", "main")
    git(main, "config", "user.email", "dev@example.com")
    git(main, "config", "user.name", "Dev")
    fs.writeFileSync(path.join(main, "a.txt"), "a\n")
    git(main, "add", "a.txt")
    git(main, "commit", "-q", "-m", "first")
    git(main, "worktree", "add", "-q", wt, "-b", "work")
    fs.writeFileSync(path.join(wt, ".env"), "SECRET=canary-pathspec-commit\n")
    fs.writeFileSync(path.join(wt, "b.txt"), "b\n")
    const tool = (name: string, args: unknown) =>
      spawnSync(process.execPath, [bin, "tool", name, JSON.stringify(args), "--cwd", wt, "--work-mode", "BUILD", "--policy", "allow-all"], { encoding: "utf8" })
    // The direct way is refused.
    expect(tool("git_commit", { message: "direct", paths: [".env"] }).stderr).toContain("protected")
    tool("git_commit", { message: "everything", paths: [":(glob)**"] })
    const committed = git(main, "log", "--all", "--name-only", "--format=")
    expect(committed.split("\n")).not.toContain(".env")
  })
})
