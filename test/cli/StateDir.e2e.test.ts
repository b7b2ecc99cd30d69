/** The workspace's `.minicode/` folder never shows in `git status`: it is made with a `.gitignore` holding `*`. */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"

const bin = path.resolve("dist/bin.js")
const minicode = (args: ReadonlyArray<string>, cwd: string, env: NodeJS.ProcessEnv = {}) =>
  spawnSync(process.execPath, [bin, ...args], { encoding: "utf8", cwd, env: { ...process.env, ...env }, timeout: 60_000 })
const git = (args: ReadonlyArray<string>, cwd: string) => {
  const r = spawnSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", ...args], { encoding: "utf8", cwd })
  expect(r.status, r.stderr).toBe(0)
  return r.stdout
}
const made: Array<string> = []
afterEach(() => {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
})
const repo = () => {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "minicode-statedir-")))
  made.push(dir)
  git(["init", "-q"], dir)
  fs.writeFileSync(path.join(dir, "a.txt"), "one\n")
  git(["add", "a.txt"], dir)
  git(["commit", "-q", "-m", "first"], dir)
  return dir
}

describe(".minicode/ in a git repository", () => {
  it("the journal's folder is made with a .gitignore of `*`: git status shows only the user's change", () => {
    const dir = repo()
    const r = minicode(["tool", "write_file", '{"path":"a.txt","content":"two\\n"}', "--work-mode", "BUILD", "--sandbox", "none"], dir)
    expect(r.status, r.stderr).toBe(0)
    expect(fs.existsSync(path.join(dir, ".minicode", "state.db"))).toBe(true)
    expect(fs.readFileSync(path.join(dir, ".minicode", ".gitignore"), "utf8")).toBe("*\n")
    expect(git(["status", "--porcelain", "--untracked-files=all"], dir)).toBe(" M a.txt\n")
    // Even `git add -A` leaves it out.
    git(["add", "-A"], dir)
    expect(git(["diff", "--cached", "--name-only"], dir)).toBe("a.txt\n")
  })

  it("a local config written with --local gets the same .gitignore; an existing one is left alone", () => {
    const dir = repo()
    const home = fs.mkdtempSync(path.join(os.tmpdir(), "minicode-statedir-home-"))
    made.push(home)
    const env = { HOME: home, XDG_CONFIG_HOME: path.join(home, ".config") }
    const add = minicode(["config", "mcp", "add", "files", "--local", "--cwd", dir, "--command", "node", "--arg", "server.js"], dir, env)
    expect(add.status, add.stderr + add.stdout).toBe(0)
    expect(fs.existsSync(path.join(dir, ".minicode", "config.json"))).toBe(true)
    expect(git(["status", "--porcelain", "--untracked-files=all"], dir)).toBe("")
    // The global config folder gets none.
    expect(fs.existsSync(path.join(home, ".config", "minicode", ".gitignore"))).toBe(false)
    fs.writeFileSync(path.join(dir, ".minicode", ".gitignore"), "state.db*\n")
    expect(minicode(["tool", "write_file", '{"path":"b.txt","content":"b"}', "--work-mode", "BUILD", "--sandbox", "none"], dir).status).toBe(0)
    expect(fs.readFileSync(path.join(dir, ".minicode", ".gitignore"), "utf8")).toBe("state.db*\n")
  })
})
