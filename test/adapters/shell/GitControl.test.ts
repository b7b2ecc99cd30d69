/**
 * The control files of git folders put back after writable sandboxed calls, including when calls overlap (`mcp
 * serve`): a call that begins after another planted `.git/commondir` must not take it for the original.
 */
import { execFileSync, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import * as GitControl from "../../../src/adapters/shell/GitControl.js"

const cleanups: Array<() => void> = []
afterEach(() => {
  for (const c of cleanups.splice(0)) c()
})

const repo = () => {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "minicode-gitctl-")))
  cleanups.push(() => fs.rmSync(root, { recursive: true, force: true }))
  execFileSync("git", ["init", "-q", root])
  return { root, git: path.join(root, ".git"), commondir: path.join(root, ".git", "commondir") }
}

describe("GitControl", () => {
  it("before a call, commondir (.) and, where the configuration reads one, config.worktree (empty) are made to be shown read-only; the last call removes them and reports nothing", () => {
    const { root, git, commondir } = repo()
    execFileSync("git", ["-C", root, "config", "extensions.worktreeConfig", "true"])
    const sub = path.join(root, "sub")
    execFileSync("git", ["init", "-q", sub])
    const first = GitControl.enter(root, [git, path.join(sub, ".git")])
    const second = GitControl.enter(root, [git])
    expect(fs.readFileSync(commondir, "utf8")).toBe(".\n")
    expect(fs.readFileSync(path.join(git, "config.worktree"), "utf8")).toBe("")
    expect(fs.readFileSync(path.join(sub, ".git/commondir"), "utf8")).toBe(".\n")
    // The nested repository's configuration reads no config.worktree.
    expect(fs.existsSync(path.join(sub, ".git/config.worktree"))).toBe(false)
    const live = GitControl.liveControls(root, [git, path.join(sub, ".git")])
    expect([...live.files].sort()).toEqual([commondir, path.join(git, "config.worktree"), path.join(sub, ".git/commondir")].sort())
    expect([...live.hooks].sort()).toEqual([path.join(git, "hooks"), path.join(sub, ".git/hooks")].sort())
    expect(execFileSync("git", ["-C", root, "status", "--short"], { encoding: "utf8" })).toBe("?? sub/\n")
    expect(GitControl.leave(root, first)).toEqual([])
    expect(fs.existsSync(commondir)).toBe(true)
    expect(GitControl.leave(root, second)).toEqual([])
    for (const f of [commondir, path.join(git, "config.worktree"), path.join(sub, ".git/commondir")]) expect(fs.existsSync(f)).toBe(false)
  })

  it("a commondir that was there is neither replaced nor removed", () => {
    const { root, git } = repo()
    fs.mkdirSync(path.join(git, "worktrees", "w"), { recursive: true })
    const wt = path.join(git, "worktrees", "w", "commondir")
    fs.writeFileSync(wt, "../..\n")
    const id = GitControl.enter(root, [git])
    expect(fs.readFileSync(wt, "utf8")).toBe("../..\n")
    expect(GitControl.liveControls(root, [git]).files).toContain(wt)
    GitControl.leave(root, id)
    expect(fs.readFileSync(wt, "utf8")).toBe("../..\n")
  })

  it("a planted commondir is removed and a changed one restored when the call ends", () => {
    const { root, git, commondir } = repo()
    const first = GitControl.enter(root, [git])
    fs.writeFileSync(commondir, "../evil\n")
    expect(GitControl.leave(root, first)).toEqual([commondir])
    expect(fs.existsSync(commondir)).toBe(false)
    fs.mkdirSync(path.join(git, "worktrees", "w"), { recursive: true })
    const wt = path.join(git, "worktrees", "w", "commondir")
    fs.writeFileSync(wt, "../..\n")
    const second = GitControl.enter(root, [git])
    fs.writeFileSync(wt, "/tmp/evil\n")
    fs.writeFileSync(path.join(git, "worktrees", "w", "config"), "[core]\n\tfsmonitor = x\n")
    GitControl.leave(root, second)
    expect(fs.readFileSync(wt, "utf8")).toBe("../..\n")
    expect(fs.existsSync(path.join(git, "worktrees", "w", "config"))).toBe(false)
  })

  it("overlapping calls: the state before the first is put back when the last ends, whatever the order", () => {
    const { root, git, commondir } = repo()
    const first = GitControl.enter(root, [git])
    fs.writeFileSync(commondir, "../evil\n")
    // A second call begins after the plant and outlives the first.
    const second = GitControl.enter(root, [git])
    expect(GitControl.leave(root, first)).toEqual([])
    expect(GitControl.leave(root, second)).toEqual([commondir])
    expect(fs.existsSync(commondir)).toBe(false)
  })

  it("a new linked worktree's own commondir and gitdir are kept; pointing anywhere else they are removed", () => {
    const { root, git } = repo()
    const add = (name: string, commondir: string, gitdir: string) => {
      const id = GitControl.enter(root, [git])
      fs.mkdirSync(path.join(git, "worktrees", name), { recursive: true })
      fs.mkdirSync(path.join(root, name))
      fs.writeFileSync(path.join(root, name, ".git"), `gitdir: ${path.join(git, "worktrees", name)}\n`)
      fs.writeFileSync(path.join(git, "worktrees", name, "commondir"), commondir)
      fs.writeFileSync(path.join(git, "worktrees", name, "gitdir"), gitdir)
      GitControl.leave(root, id)
      return ["commondir", "gitdir"].filter((f) => fs.existsSync(path.join(git, "worktrees", name, f)))
    }
    expect(add("w1", "../..\n", `${path.join(root, "w1", ".git")}\n`)).toEqual(["commondir", "gitdir"])
    fs.mkdirSync(path.join(root, "evil"))
    expect(add("w2", `${path.join(root, "evil")}\n`, `${path.join(root, "w2", ".git")}\n`)).toEqual(["gitdir"])
    expect(add("w3", "../../..\n", `${path.join(root, "w1", ".git")}\n`)).toEqual([])
  })

  it("a new submodule's own config (git submodule add from bash) is kept", () => {
    const { root, git } = repo()
    const id = GitControl.enter(root, [git])
    fs.mkdirSync(path.join(git, "modules", "m"), { recursive: true })
    fs.writeFileSync(path.join(git, "modules", "m", "config"), "[core]\n\tbare = false\n")
    GitControl.leave(root, id)
    expect(fs.existsSync(path.join(git, "modules", "m", "config"))).toBe(true)
  })

  it("a .git planted where there was none is removed when it leads elsewhere (a gitdir: file outside, a symlink); one git made inside stays", () => {
    const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "minicode-gitctl-")))
    cleanups.push(() => fs.rmSync(root, { recursive: true, force: true }))
    const ws = path.join(root, "ws")
    fs.mkdirSync(path.join(ws, "sub"), { recursive: true })
    const other = path.join(root, "other")
    execFileSync("git", ["init", "-q", other])
    const dotGit = path.join(ws, ".git")
    const subGit = path.join(ws, "sub", ".git")
    // A gitdir: file at the root and one in a sub-folder (the scan pins both), each naming the other repository.
    let id = GitControl.enter(ws, [])
    fs.writeFileSync(dotGit, `gitdir: ${path.join(other, ".git")}\n`)
    fs.writeFileSync(subGit, `gitdir: ${path.join(other, ".git")}\n`)
    expect([...GitControl.leave(ws, id, [dotGit, subGit])].sort()).toEqual([dotGit, subGit].sort())
    expect(fs.existsSync(dotGit) || fs.existsSync(subGit)).toBe(false)
    // A symlink (the scan never pins one): the root's is checked all the same.
    id = GitControl.enter(ws, [])
    fs.symlinkSync(path.join(other, ".git"), dotGit)
    expect(GitControl.leave(ws, id, [])).toEqual([dotGit])
    expect(fs.lstatSync(dotGit, { throwIfNoEntry: false })).toBeUndefined()
    expect(fs.existsSync(path.join(other, ".git", "HEAD"))).toBe(true)
    // A folder git made (git init), and a gitdir: file naming a real git folder inside the workspace, stay.
    id = GitControl.enter(ws, [])
    execFileSync("git", ["init", "-q", ws])
    execFileSync("git", ["init", "-q", "--separate-git-dir", path.join(ws, "sub.git"), path.join(ws, "sub")])
    expect(GitControl.leave(ws, id, [dotGit, subGit])).toEqual([])
    expect(fs.statSync(dotGit).isDirectory()).toBe(true)
    expect(fs.readFileSync(subGit, "utf8")).toContain("sub.git")
    // One there before the call is never taken for planted (a linked worktree's .git file names a folder outside).
    fs.rmSync(subGit)
    fs.writeFileSync(subGit, `gitdir: ${path.join(other, ".git")}\n`)
    id = GitControl.enter(ws, [path.join(ws, ".git"), subGit])
    expect(GitControl.leave(ws, id, [path.join(ws, ".git"), subGit])).toEqual([])
    expect(fs.existsSync(subGit)).toBe(true)
  })

  // As root every folder is listable (test/redteam/UnreadableFolder.test.ts runs minicode as an ordinary user).
  it.skipIf(process.getuid?.() === 0)("a hooks folder made unlistable (mode 311) is made listable again and its planted hook removed", () => {
    const { root, git } = repo()
    const id = GitControl.enter(root, [git])
    const hook = path.join(git, "hooks", "pre-commit")
    fs.writeFileSync(hook, "#!/bin/sh\ntouch /tmp/pwned\n", { mode: 0o755 })
    fs.chmodSync(path.join(git, "hooks"), 0o311)
    expect(GitControl.leave(root, id)).toContain(hook)
    expect(fs.existsSync(hook)).toBe(false)
  })

  it("what the configuration names and is absent (a hooks folder, an include, a program) is made empty for the calls and shown read-only; the last call removes it, and keeps what was put beside it", () => {
    const { root, git } = repo()
    execFileSync("git", ["-C", root, "config", "core.hooksPath", "tools/hooks"])
    execFileSync("git", ["-C", root, "config", "include.path", "../conf/extra.gitconfig"])
    execFileSync("git", ["-C", root, "config", "core.fsmonitor", "./bin/fsmon"])
    fs.writeFileSync(path.join(root, "tools"), "a file where a folder on the way would be\n")
    const first = GitControl.enter(root, [git])
    // A file on the way: not replaced, nothing made under it.
    expect(fs.readFileSync(path.join(root, "tools"), "utf8")).toMatch(/a file/)
    fs.rmSync(path.join(root, "tools"))
    const second = GitControl.enter(root, [git])
    expect(fs.statSync(path.join(root, "tools/hooks")).isDirectory()).toBe(true)
    for (const f of ["conf/extra.gitconfig", "bin/fsmon"]) {
      expect(fs.readFileSync(path.join(root, f), "utf8"), f).toBe("")
      expect(fs.statSync(path.join(root, f)).mode & 0o111, f).toBe(0)
    }
    const live = GitControl.liveControls(root, [git])
    expect(live.hooks).toContain(path.join(root, "tools/hooks"))
    expect(live.files).toContain(path.join(root, "conf/extra.gitconfig"))
    expect(live.programs).toContain(path.join(root, "bin/fsmon"))
    expect(execFileSync("git", ["-C", root, "status", "--short", "--untracked-files=no"], { encoding: "utf8" })).toBe("")
    fs.writeFileSync(path.join(root, "conf/notes.txt"), "kept\n")
    GitControl.leave(root, first)
    expect(fs.existsSync(path.join(root, "tools/hooks"))).toBe(true)
    GitControl.leave(root, second)
    for (const gone of ["tools", "bin", "conf/extra.gitconfig"]) expect(fs.existsSync(path.join(root, gone)), gone).toBe(false)
    expect(fs.readFileSync(path.join(root, "conf/notes.txt"), "utf8")).toBe("kept\n")
  })

  it("what a killed call made for the configuration is removed by the next call's start, before it looks", () => {
    const { root, git } = repo()
    execFileSync("git", ["-C", root, "config", "core.hooksPath", ".githooks"])
    const dead = spawnSync(process.execPath, ["--import", "tsx", "-e", `import * as G from ${JSON.stringify(path.resolve("src/adapters/shell/GitControl.ts"))}; G.enter(${JSON.stringify(root)}, [${JSON.stringify(git)}])`], { encoding: "utf8" })
    expect(dead.status, dead.stderr).toBe(0)
    expect(fs.statSync(path.join(root, ".githooks")).isDirectory()).toBe(true)
    execFileSync("git", ["-C", root, "config", "--unset", "core.hooksPath"])
    const id = GitControl.enter(root, [git])
    expect(fs.existsSync(path.join(root, ".githooks"))).toBe(false)
    GitControl.leave(root, id)
  })
})
