/**
 * git_commit takes the identity git itself would: `GIT_AUTHOR_NAME/EMAIL` and `GIT_COMMITTER_NAME/EMAIL` (as CI
 * jobs and containers set them, with no `user.name` anywhere). Was: "Author identity unknown", because the
 * environment's credential filter read "AUTH" in `GIT_AUTHOR_NAME` and dropped it. The built CLI, real git.
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { runCli } from "../support/Cli.js"

const bin = path.resolve("dist/bin.js")
let ws: string
let home: string
const git = (...args: Array<string>) => execFileSync("git", args, { cwd: ws, encoding: "utf8", env: { ...process.env, HOME: home, GIT_CONFIG_NOSYSTEM: "1" } })

beforeEach(() => {
  ws = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "minicode-gitid-")))
  home = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "minicode-gitid-home-")))
  git("init", "-q", "-b", "main")
  fs.writeFileSync(path.join(ws, "a.txt"), "a\n")
})
afterEach(() => {
  fs.rmSync(ws, { recursive: true, force: true })
  fs.rmSync(home, { recursive: true, force: true })
})

const env = (more: Record<string, string>): NodeJS.ProcessEnv => {
  const e: NodeJS.ProcessEnv = { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(home, ".config"), GIT_CONFIG_NOSYSTEM: "1", ...more }
  for (const k of ["GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"]) if (!(k in more)) delete e[k]
  return e
}
const commit = (more: Record<string, string>) =>
  runCli(bin, ["tool", "git_commit", JSON.stringify({ message: "first", paths: ["a.txt"] }), "--work-mode", "BUILD", "--policy", "allow-all"], { cwd: ws, env: env(more), timeoutMs: 60_000 })

describe("git_commit and git's identity variables (built CLI)", () => {
  it("commits as GIT_AUTHOR_* and GIT_COMMITTER_* say, with no user.name configured anywhere", async () => {
    const r = await commit({ GIT_AUTHOR_NAME: "Ann Author", GIT_AUTHOR_EMAIL: "ann@example.com", GIT_COMMITTER_NAME: "Carl Committer", GIT_COMMITTER_EMAIL: "carl@example.com" })
    expect(r.status, r.stderr).toBe(0)
    expect(git("log", "-1", "--format=%an <%ae> / %cn <%ce>").trim()).toBe("Ann Author <ann@example.com> / Carl Committer <carl@example.com>")
  }, 90_000)

  it("without any identity it still says what git says, and commits nothing", async () => {
    const r = await commit({})
    expect(r.status).not.toBe(0)
    expect(r.stderr).toContain("Author identity unknown")
    expect(() => git("rev-parse", "HEAD")).toThrow()
  }, 90_000)
})
