/**
 * git_commit of a folder that holds secret files (issue 19, family 4). `.env` given by name is refused by the jail,
 * but `config` took in `config/.env` (tracked, changed) and an untracked `config/.env.local`: on the host, for a
 * linked worktree whose git folder is outside the workspace, the secrets went into history (the user's next push
 * sends them); inside the sandbox git failed on the masked file and nothing at all was committed. Now every protected
 * file under the given paths (by name, or a hard link to one) is left out, said in the result, and the rest is
 * committed.
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { bin } from "../serve/support/McpServeHarness.js"
import { title, unavailable } from "../support/Sandbox.js"
import { attackFile } from "./support/Attack.js"

const cleanups = attackFile()
const gitEnv = { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" }
const git = (cwd: string, ...args: Array<string>) => execFileSync("git", args, { cwd, env: gitEnv, encoding: "utf8" })
const tool = (cwd: string, name: string, args: unknown) =>
  execFileSync(process.execPath, [bin, "tool", name, JSON.stringify(args), "--cwd", cwd, "--work-mode", "BUILD", "--policy", "allow-all"], { encoding: "utf8" })

/** A repository under `dir` with `config/.env`, `config/c.txt` and a hard link to `.env` committed. */
const repository = (dir: string) => {
  git(dir, "init", "-q", "-b", "main")
  git(dir, "config", "user.email", "dev@example.com")
  git(dir, "config", "user.name", "Dev")
  fs.mkdirSync(path.join(dir, "config"))
  fs.writeFileSync(path.join(dir, "config/.env"), "P=old\n")
  fs.writeFileSync(path.join(dir, "config/c.txt"), "c\n")
  git(dir, "add", "-A")
  git(dir, "commit", "-q", "-m", "first")
}

/** Changes the secrets and an honest file, commits `config` through the tool: what went into history. */
const commitConfig = (ws: string) => {
  fs.writeFileSync(path.join(ws, "config/.env"), "P=LEAKED-NEW\n")
  fs.writeFileSync(path.join(ws, "config/.env.local"), "Q=LEAKED-LOCAL\n")
  fs.writeFileSync(path.join(ws, ".env"), "R=LEAKED-LINKED\n")
  fs.linkSync(path.join(ws, ".env"), path.join(ws, "config/notes.txt"))
  fs.appendFileSync(path.join(ws, "config/c.txt"), "honest\n")
  const out = tool(ws, "git_commit", { message: "config", paths: ["config"] })
  expect(out).toContain("left out of the commit, as secret files: config/.env, config/.env.local, config/notes.txt")
  expect(git(ws, "show", "HEAD:config/c.txt")).toBe("c\nhonest\n")
  expect(git(ws, "show", "HEAD:config/.env")).toBe("P=old\n")
  expect(git(ws, "log", "-p", "--all")).not.toContain("LEAKED")
  expect(git(ws, "status", "--short")).toContain(" M config/.env")
}

describe(title("git_commit of a folder leaves its secret files out"), () => {
  it.skipIf(unavailable !== undefined)("in the sandbox: the rest is committed (git failed on the masked file before)", () => {
    const ws = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "minicode-rt-cfs-")))
    cleanups.push(() => fs.rmSync(ws, { recursive: true, force: true }))
    repository(ws)
    commitConfig(ws)
  })

  it("on the host, for a linked worktree whose git folder is outside: no secret goes into history", () => {
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "minicode-rt-cfs-")))
    cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }))
    const main = path.join(dir, "main")
    fs.mkdirSync(main)
    repository(main)
    const ws = path.join(dir, "linked")
    git(main, "worktree", "add", "-q", "-b", "topic", ws)
    commitConfig(ws)
  })
})
