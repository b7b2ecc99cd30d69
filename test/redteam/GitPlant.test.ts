/**
 * Red team (issue 19), planted git control files: sandboxed bash may write inside `.git` (git needs to), but not the
 * files that redirect git's configuration and hooks for the user's next git on the host. Through the built binary
 * (default sandbox, policy allow-all), the script written by write_file.
 *
 * Was a hole: `.git/commondir` → `../evil` (a `config` with `core.fsmonitor`, a `hooks/pre-commit`) planted from bash;
 * the user's next `git status` on the host ran the program outside any sandbox. Likewise a `config.worktree` planted
 * where `extensions.worktreeConfig` is on, and a linked worktree's `commondir` rewritten. Now the sandbox puts these
 * files back when the call ends (adapters/shell/GitControl.ts, from BwrapSandbox.wrap), except a linked worktree's own
 * `commondir` and `gitdir` as `git worktree add` writes them.
 */
import { execFileSync, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { attackFile, attackWorkspace } from "./support/Attack.js"
import { title, unavailable } from "../support/Sandbox.js"
import { stateOf } from "../support/StateHome.js"
import { liveSandbox } from "../support/Staged.js"

// The live sandbox's repair machinery (git control files planted from bash and put back, across processes) is what this file attacks; staged bash (the
// default) never lets such a plant reach the tree: test/adapters/staged/StagedBash.e2e.test.ts.
liveSandbox()

const cleanups = attackFile()

const setup = () => {
  const ws = attackWorkspace(cleanups)
  const { root, git, tool, script, startScript } = ws
  const marker = path.join(ws.parent, "PWNED")
  /** The user's own git on the host, later, with no global configuration. */
  const hostGit = (cwd = root) =>
    spawnSync("git", ["status", "--short"], { cwd, encoding: "utf8", env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" } })
  const evil = `mkdir -p evil/hooks && cp -r .git/objects .git/refs .git/HEAD evil/ 2>&1
printf '[core]\\n\\trepositoryformatversion = 0\\n\\tfsmonitor = touch ${marker}\\n' > evil/config
printf '#!/bin/sh\\ntouch ${marker}\\n' > evil/hooks/pre-commit && chmod +x evil/hooks/pre-commit`
  return { root, git, marker, tool, script, startScript, hostGit, evil, toolAsync: ws.toolAsync }
}

describe.skipIf(unavailable !== undefined)(title("git control files planted from bash"), () => {
  it("a planted .git/commondir is gone after the call: the user's git never runs the planted fsmonitor or hook", () => {
    const { root, git, marker, script, hostGit, evil } = setup()
    const out = script(`${evil}\necho ../evil > .git/commondir; echo planted`)
    expect(out).toContain("planted")
    expect(fs.existsSync(path.join(root, ".git/commondir"))).toBe(false)
    expect(hostGit().status).toBe(0)
    git("commit", "-q", "--allow-empty", "-m", "user commit")
    expect(fs.existsSync(marker)).toBe(false)
  })

  it("a config.worktree planted where worktree config is on is removed", () => {
    const { root, git, marker, script, hostGit } = setup()
    git("config", "extensions.worktreeConfig", "true")
    script(`printf '[core]\\n\\tfsmonitor = touch ${marker}\\n' > .git/config.worktree; echo done`)
    expect(fs.existsSync(path.join(root, ".git/config.worktree"))).toBe(false)
    hostGit()
    expect(fs.existsSync(marker)).toBe(false)
  })

  it("a linked worktree's commondir rewritten from bash is restored", () => {
    const { root, git, marker, script, hostGit, evil } = setup()
    const wt = path.join(path.dirname(root), "wt2")
    git("worktree", "add", "-q", wt)
    const file = path.join(root, ".git/worktrees/wt2/commondir")
    const before = fs.readFileSync(file, "utf8")
    script(`${evil}\necho ${path.join(root, "evil")} > .git/worktrees/wt2/commondir; echo done`)
    expect(fs.readFileSync(file, "utf8")).toBe(before)
    hostGit(wt)
    execFileSync("git", ["-C", wt, "log", "--oneline"])
    expect(fs.existsSync(marker)).toBe(false)
  })

  it("a nested repository made from bash, its config naming an fsmonitor, added as a gitlink: the user's git status runs nothing", () => {
    const { root, marker, script, hostGit } = setup()
    const out = script(`mkdir sub && cd sub && git init -q && git -c user.name=x -c user.email=y commit -q --allow-empty -m s
printf '[core]\\n\\tfsmonitor = touch ${marker}; false\\n' >> .git/config
mkdir -p .git/hooks && printf '#!/bin/sh\\ntouch ${marker}\\n' > .git/hooks/post-checkout && chmod +x .git/hooks/post-checkout
cd .. && git add sub 2>/dev/null; echo planted`)
    expect(out).toContain("planted")
    // Made by the call and naming a program: removed (git reads a missing config as empty).
    const config = path.join(root, "sub/.git/config")
    expect(fs.existsSync(config) && fs.readFileSync(config, "utf8").includes("fsmonitor")).toBe(false)
    expect(fs.existsSync(path.join(root, "sub/.git/hooks/post-checkout"))).toBe(false)
    expect(hostGit().status).toBe(0)
    spawnSync("git", ["-C", path.join(root, "sub"), "status"], { encoding: "utf8", env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" } })
    expect(fs.existsSync(marker)).toBe(false)
  })

  it("a .git file (gitdir: …) made from bash, naming a git folder whose config runs a program: the user's git runs nothing", () => {
    const { root, marker, script } = setup()
    script(`mkdir sub && cd sub && git init -q --separate-git-dir=../evilgit . && printf '[core]\\n\\tfsmonitor = touch ${marker}; false\\n' >> ../evilgit/config; echo done`)
    spawnSync("git", ["-C", path.join(root, "sub"), "status"], { encoding: "utf8", env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" } })
    expect(fs.existsSync(marker)).toBe(false)
    // The .git file is a mount point in the sandbox, like a .git folder.
    expect(script("mv sub/.git sub/moved 2>&1; echo end")).toContain("busy")
  })

  it("an existing nested repository's config changed from bash to name a program is put back", () => {
    const { root, marker, script, hostGit } = setup()
    execFileSync("git", ["init", "-q", path.join(root, "sub")])
    const before = fs.readFileSync(path.join(root, "sub/.git/config"), "utf8")
    script(`printf '[core]\\n\\tfsmonitor = touch ${marker}; false\\n' >> sub/.git/config; echo done`)
    expect(fs.readFileSync(path.join(root, "sub/.git/config"), "utf8")).toBe(before)
    hostGit(path.join(root, "sub"))
    expect(fs.existsSync(marker)).toBe(false)
  })

  it("honest nested git from bash keeps its config (git init, git config user.name)", () => {
    const { root, script } = setup()
    script("mkdir n && cd n && git init -q && git config user.name Honest && echo ok")
    expect(fs.readFileSync(path.join(root, "n/.git/config"), "utf8")).toContain("Honest")
  })

  it("putting a control file back never writes through a planted symlink (the temp file, or the folder)", () => {
    const { root, git, script, evil } = setup()
    const wt = path.join(path.dirname(root), "wt2")
    git("worktree", "add", "-q", wt)
    const outside = path.join(path.dirname(root), "OUTSIDE-WRITTEN")
    const outDir = path.join(path.dirname(root), "outdir")
    fs.mkdirSync(outDir)
    fs.writeFileSync(path.join(outDir, "commondir"), "outside\n")
    const file = path.join(root, ".git/worktrees/wt2/commondir")
    const before = fs.readFileSync(file, "utf8")
    script(`${evil}
ln -s ${outside} .git/worktrees/wt2/commondir.minicode-restore; echo ../../evil > .git/worktrees/wt2/commondir; echo done`)
    expect(fs.existsSync(outside)).toBe(false)
    expect(fs.lstatSync(file).isFile()).toBe(true)
    expect(fs.readFileSync(file, "utf8")).toBe(before)
    script(`mv .git/worktrees/wt2 .git/worktrees/old && ln -s ${outDir} .git/worktrees/wt2; echo done`)
    expect(fs.readFileSync(path.join(outDir, "commondir"), "utf8")).toBe("outside\n")
    expect(fs.readdirSync(outDir)).toEqual(["commondir"])
    expect(fs.lstatSync(path.join(root, ".git/worktrees/wt2"), { throwIfNoEntry: false })?.isSymbolicLink() ?? false).toBe(false)
  })

  it("honest git worktree add from bash: the worktree works on the host afterwards; a new worktree's commondir naming elsewhere does not stay", () => {
    const { root, marker, script, hostGit, evil } = setup()
    expect(script("git worktree add -q wt2 && echo added")).toContain("added")
    expect(hostGit(path.join(root, "wt2")).status).toBe(0)
    expect(execFileSync("git", ["-C", path.join(root, "wt2"), "log", "--oneline"], { encoding: "utf8" })).not.toBe("")
    script(`${evil}\ngit worktree add -q wt3 && echo ${path.join(root, "evil")} > .git/worktrees/wt3/commondir; echo done`)
    expect(fs.existsSync(path.join(root, ".git/worktrees/wt3/commondir"))).toBe(false)
    hostGit(path.join(root, "wt3"))
    expect(fs.existsSync(marker)).toBe(false)
  })

  it("honest git from bash still works (commit, status)", () => {
    const { script } = setup()
    const out = script("echo b > b.txt && git add b.txt && git commit -qm second && git log --oneline | cat && git status --short")
    expect(out).toContain("second")
  })
})

/**
 * Was a hole (issue 19): the overlap bookkeeping was per process. A one-shot CLI call (B) entering while another
 * process's call (A) ran took A's planted `.git/commondir` for the original; A's end removed the plant, and B's end
 * put it back. Now the calls running and the state recorded are shared by every process on the workspace.
 */
describe.skipIf(unavailable !== undefined)(title("git control files planted across processes"), () => {
  /** Waits (asynchronously) until `file` exists on the host. */
  const until = async (file: string) => {
    for (let i = 0; i < 1200 && !fs.existsSync(file); i++) await new Promise((r) => setTimeout(r, 50))
    expect(fs.existsSync(file)).toBe(true)
  }

  it("a call in a second process that outlives the planting call does not bring the plant back", async () => {
    const { root, marker, toolAsync, startScript, hostGit, evil } = setup()
    // A plants and ends once B runs; B ends after A's process has ended (the test says when).
    const wait = (f: string) => `i=0; while [ ! -e ${f} ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i+1)); done`
    expect((await toolAsync("write_file", { path: "a.sh", content: `${evil}\necho ../evil > .git/commondir\n${wait("b-in")}\necho a-done\n` })).status).toBe(0)
    expect((await toolAsync("write_file", { path: "b.sh", content: `touch b-in\n${wait("go")}\necho b-done\n` })).status).toBe(0)
    const a = startScript("a.sh")
    await until(path.join(root, ".git/commondir"))
    const b = startScript("b.sh")
    expect((await a).stdout).toContain("a-done")
    fs.writeFileSync(path.join(root, "go"), "")
    expect((await b).stdout).toContain("b-done")
    expect(fs.existsSync(path.join(root, ".git/commondir"))).toBe(false)
    expect(hostGit().status).toBe(0)
    expect(fs.existsSync(marker)).toBe(false)
  })

  it("a process killed (-9) during its call, and one killed holding the lock, block nobody: the next call removes the plant", async () => {
    const { root, marker, tool, startScript, script, hostGit, evil } = setup()
    expect(tool("write_file", { path: "a.sh", content: `${evil}\necho ../evil > .git/commondir\nsleep 120\n` }).status).toBe(0)
    let pid = 0
    const a = startScript("a.sh", (p) => (pid = p))
    await until(path.join(root, ".git/commondir"))
    process.kill(pid, "SIGKILL")
    expect((await a).signal).toBe("SIGKILL")
    // A lock left by a process that died inside the critical section.
    const dead = spawnSync("sh", ["-c", "echo $$"], { encoding: "utf8" }).stdout.trim()
    fs.writeFileSync(path.join(stateOf(root), "gitcontrol.lock"), `${dead}:\n`)
    expect(script("echo next")).toContain("next")
    expect(fs.existsSync(path.join(root, ".git/commondir"))).toBe(false)
    expect(fs.existsSync(path.join(stateOf(root), "gitcontrol.lock"))).toBe(false)
    expect(hostGit().status).toBe(0)
    expect(fs.existsSync(marker)).toBe(false)
  })
})
