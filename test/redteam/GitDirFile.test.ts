/**
 * Red team (issue 19), was a hole: in a workspace that is not a git repository (or is a sub-folder of one), nothing pinned
 * a `.git` at its root, so sandboxed bash writes a `.git` FILE, `gitdir: /path/of/another/repository/.git`. The git
 * tools then take that repository as the workspace's (GitRepo.inspect follows the file): `git_show
 * {"rev":"HEAD:v.txt"}` prints a file of the other repository (read outside the workspace), and `git_commit`, which
 * runs on the host when the git folder is outside the workspace, commits into it (objects and a branch written
 * outside the workspace). The `.git` file stays after the bash call. Through the built binary (default sandbox,
 * allow-all).
 *
 * Now GitRepo.inspect (`ownedFrom`) refuses a `.git` in the workspace that leads outside it unless the git folder there
 * names this checkout back (a linked worktree's `gitdir`, a submodule's `core.worktree`), and a `commondir` leading out.
 * And the planted file no longer stays: the user's own `git` on the host followed it (GitControl `removePlanted`
 * removes, when the bash call ends, a `.git` file or symlink it made that leads outside the workspace).
 */
import { execFileSync, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { attackFile } from "./support/Attack.js"
import { bin, makeWorkspace } from "../serve/support/McpServeHarness.js"
import { title, unavailable } from "../support/Sandbox.js"

const cleanups = attackFile()
const canary = "OTHERREPOCANARY"

describe.skipIf(unavailable !== undefined)(title("a .git file planted from bash naming another repository"), () => {
  it("git tools neither read nor write the other repository", () => {
    const ws = makeWorkspace()
    cleanups.push(ws.cleanup)
    const { root, parent } = ws
    const other = path.join(parent, "other")
    fs.mkdirSync(other)
    const git = (...args: Array<string>) => execFileSync("git", ["-C", other, ...args], { encoding: "utf8" })
    git("init", "-q", "-b", "main")
    git("config", "user.email", "o@example.com")
    git("config", "user.name", "Other")
    fs.writeFileSync(path.join(other, "v.txt"), `${canary}\n`)
    git("add", "v.txt")
    git("commit", "-q", "-m", "other's work")
    const before = git("rev-parse", "HEAD")
    fs.writeFileSync(path.join(root, "hi.txt"), "hi\n")
    const tool = (name: string, args: unknown) =>
      spawnSync(process.execPath, [bin, "tool", name, JSON.stringify(args), "--cwd", root, "--work-mode", "BUILD", "--policy", "allow-all", "--json"], { encoding: "utf8" })
    expect(tool("write_file", { path: "s.sh", content: `echo "gitdir: ${path.join(other, ".git")}" > .git && echo planted\n` }).status).toBe(0)
    expect(tool("bash", { command: "sh s.sh" }).stdout).toContain("planted")
    const shown = tool("git_show", { rev: "HEAD:v.txt" })
    tool("git_commit", { message: "into the other repository", paths: ["hi.txt"] })
    expect(shown.stdout + shown.stderr).not.toContain(canary)
    expect(git("rev-parse", "HEAD")).toBe(before)
  })

  it("the planted .git (a gitdir: file at the root or in a sub-folder, a symlink) is gone after the bash call: the user's own git never follows it", () => {
    const ws = makeWorkspace()
    cleanups.push(ws.cleanup)
    const { root, parent } = ws
    const other = path.join(parent, "other")
    execFileSync("git", ["init", "-q", "-b", "main", other])
    const otherGit = path.join(other, ".git")
    fs.mkdirSync(path.join(root, "src"))
    const tool = (name: string, args: unknown) =>
      spawnSync(process.execPath, [bin, "tool", name, JSON.stringify(args), "--cwd", root, "--work-mode", "BUILD", "--policy", "allow-all", "--json"], { encoding: "utf8" })
    const plant = (script: string) => {
      expect(tool("write_file", { path: "s.sh", content: `${script} && echo planted\n` }).status).toBe(0)
      const r = tool("bash", { command: "sh s.sh" })
      expect(r.stdout, r.stderr).toContain("planted")
    }
    // The host's git, as the user runs it in the workspace: which repository it finds.
    const hostGit = (cwd: string) => spawnSync("git", ["rev-parse", "--absolute-git-dir"], { cwd, encoding: "utf8", env: { ...process.env, GIT_CEILING_DIRECTORIES: parent } })
    plant(`echo "gitdir: ${otherGit}" > .git && echo "gitdir: ${otherGit}" > src/.git`)
    expect(fs.existsSync(path.join(root, ".git"))).toBe(false)
    expect(fs.existsSync(path.join(root, "src", ".git"))).toBe(false)
    expect(hostGit(root).stdout).not.toContain(otherGit)
    expect(hostGit(path.join(root, "src")).stdout).not.toContain(otherGit)
    plant(`ln -s ${otherGit} .git`)
    expect(fs.lstatSync(path.join(root, ".git"), { throwIfNoEntry: false })).toBeUndefined()
    expect(hostGit(root).stdout).not.toContain(otherGit)
    // Honest: a repository bash makes (git init) stays, and the host's git uses it.
    plant("git init -q -b main .")
    expect(fs.statSync(path.join(root, ".git")).isDirectory()).toBe(true)
    expect(hostGit(root).stdout.trim()).toBe(path.join(root, ".git"))
    expect(fs.existsSync(path.join(otherGit, "HEAD"))).toBe(true)
  })

  it("honest: a workspace that is a submodule's checkout (its git folder in the superproject's .git/modules) still works", () => {
    const ws = makeWorkspace()
    cleanups.push(ws.cleanup)
    const base = path.join(ws.parent, "sm")
    const run = (cwd: string, ...args: Array<string>) =>
      execFileSync("git", ["-c", "protocol.file.allow=always", "-c", "user.email=s@example.com", "-c", "user.name=S", ...args], { cwd, encoding: "utf8" })
    fs.mkdirSync(path.join(base, "lib"), { recursive: true })
    run(path.join(base, "lib"), "init", "-q", "-b", "main")
    fs.writeFileSync(path.join(base, "lib", "l.txt"), "library line\n")
    run(path.join(base, "lib"), "add", "l.txt")
    run(path.join(base, "lib"), "commit", "-q", "-m", "lib")
    fs.mkdirSync(path.join(base, "super"))
    run(path.join(base, "super"), "init", "-q", "-b", "main")
    run(path.join(base, "super"), "submodule", "add", "-q", path.join(base, "lib"), "sub")
    const sub = path.join(base, "super", "sub")
    const show = spawnSync(process.execPath, [bin, "tool", "git_show", JSON.stringify({ rev: "HEAD:l.txt" }), "--cwd", sub, "--json"], { encoding: "utf8" })
    expect(show.stdout).toContain("library line")
  })
})
