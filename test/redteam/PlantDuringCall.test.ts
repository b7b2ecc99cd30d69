/**
 * Red team (issue 19), planted git control files while the call still runs: GitControl puts a planted
 * `.git/commondir` back when the writable call ends. Until then the plant was live on the host: a bash call that
 * planted `commondir` → `../evil` (a `config` with core.fsmonitor) and then kept running (a build, a `sleep`) let
 * any git the user ran meanwhile (a terminal, an editor's git integration refreshing on file changes) run the
 * planted program on the host, outside any sandbox. Now each git folder's `commondir` (made as `.` where there was
 * none), `config.worktree` and `hooks` are read-only for the call; each case here plants, says so in `ready`, and
 * keeps running while the user's own git runs on the host.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { attackFile, attackWorkspace } from "./support/Attack.js"
import { title, unavailable } from "../support/Sandbox.js"
import { liveSandbox } from "../support/Staged.js"

// The live sandbox's repair machinery (plants made while a long call runs, seen and undone by the host's git meanwhile) is what this file attacks; staged bash (the
// default) never lets such a plant reach the tree: test/adapters/staged/StagedBash.e2e.test.ts.
liveSandbox()

const cleanups = attackFile()

const hostGit = (cwd: string, ...args: Array<string>) =>
  spawnSync("git", args, { cwd, encoding: "utf8", env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" } })

/** A folder `evil` under `at`, a copy of the git folder `from` whose config runs `touch marker`. */
const evilRepo = (marker: string, at = ".", from = ".git") => `mkdir -p ${at}/evil/hooks && cp -r ${from}/objects ${from}/refs ${from}/HEAD ${at}/evil/
printf '[core]\\n\\trepositoryformatversion = 0\\n\\tfsmonitor = touch ${marker}\\n' > ${at}/evil/config`

/**
 * Runs `plant` in sandboxed bash, then (the call still running, sleeping) `host` on the host; the call's output.
 * The script writes `ready` once the plant was tried, with what each line of it reported.
 */
const during = async (ws: ReturnType<typeof attackWorkspace>, plant: string, host: () => void) => {
  const ready = path.join(ws.root, "ready")
  expect(ws.tool("write_file", { path: "plant.sh", content: `${plant}\necho done > ready.tmp && mv ready.tmp ready\nsleep 5\n` }).status).toBe(0)
  let pid = 0
  const run = ws.startScript("plant.sh", (p) => (pid = p))
  cleanups.push(() => {
    try {
      if (pid !== 0) process.kill(pid)
    } catch {
      // ended
    }
  })
  for (let i = 0; i < 300 && !fs.existsSync(ready); i++) await new Promise((r) => setTimeout(r, 50))
  expect(fs.existsSync(ready)).toBe(true)
  host()
  const r = await run
  return r.stdout + r.stderr
}

describe.skipIf(unavailable !== undefined)(title("git control files planted during a long bash call"), () => {
  it("a planted commondir: the user's git status meanwhile runs nothing", async () => {
    const ws = attackWorkspace(cleanups)
    const marker = path.join(ws.parent, "PWNED")
    const commondir = path.join(ws.root, ".git/commondir")
    let seen = ""
    const out = await during(ws, `${evilRepo(marker)}\necho ../evil > .git/commondir; echo "plant $?"\nmv .git/commondir .git/cd2; echo "move $?"; mv .git/cd2 .git/commondir 2>/dev/null`, () => {
      seen = fs.existsSync(commondir) ? fs.readFileSync(commondir, "utf8") : "none"
      hostGit(ws.root, "status", "--short")
    })
    expect(fs.existsSync(marker)).toBe(false)
    expect(out).toMatch(/plant [1-9]/)
    expect(out).toMatch(/move [1-9]/)
    expect(seen).toBe(".\n")
    expect(fs.existsSync(commondir)).toBe(false)
  }, 60_000)

  it("a linked worktree's commondir, its folder moved aside and made anew: the user's git status in that worktree runs nothing", async () => {
    const ws = attackWorkspace(cleanups)
    const marker = path.join(ws.parent, "PWNED")
    const outside = path.join(ws.parent, "wt")
    ws.git("worktree", "add", "-q", outside)
    const admin = ".git/worktrees/wt"
    const out = await during(
      ws,
      `${evilRepo(marker)}
echo ../../../evil > ${admin}/commondir; echo "plant $?"
mv ${admin} ${admin}-x; echo "move $?"
mkdir -p ${admin}-y && cp ${admin}-x/HEAD ${admin}-x/gitdir ${admin}-y/ && echo ../../../evil > ${admin}-y/commondir && mv -T ${admin}-y ${admin}; echo "replace $?"`,
      () => hostGit(outside, "status", "--short")
    )
    expect(fs.existsSync(marker)).toBe(false)
    expect(out).toMatch(/plant [1-9]/)
    expect(out).toMatch(/move [1-9]/)
    expect(out).toMatch(/replace [1-9]/)
    expect(fs.readFileSync(path.join(ws.root, admin, "commondir"), "utf8").trim()).toBe("../..")
    expect(hostGit(outside, "status", "--short").status).toBe(0)
  }, 60_000)

  it("a submodule's commondir (a nested repository the index records): the user's git status in the workspace runs nothing", async () => {
    const ws = attackWorkspace(cleanups)
    const marker = path.join(ws.parent, "PWNED")
    const sub = path.join(ws.root, "sub")
    fs.mkdirSync(sub)
    hostGit(sub, "init", "-q")
    fs.writeFileSync(path.join(sub, "s.txt"), "s\n")
    hostGit(sub, "add", "s.txt")
    hostGit(sub, "-c", "user.name=a", "-c", "user.email=a@b", "commit", "-qm", "s")
    hostGit(ws.root, "-c", "advice.addEmbeddedRepo=false", "add", "sub")
    const out = await during(ws, `(cd sub && ${evilRepo(marker)}\necho ../evil > .git/commondir; echo "plant $?")`, () => hostGit(ws.root, "status", "--short"))
    expect(fs.existsSync(marker)).toBe(false)
    expect(out).toMatch(/plant [1-9]/)
    expect(fs.existsSync(path.join(sub, ".git/commondir"))).toBe(false)
  }, 60_000)

  it("a submodule's .git file retargeted: the user's git status in the workspace runs nothing", async () => {
    const ws = attackWorkspace(cleanups)
    const marker = path.join(ws.parent, "PWNED")
    const sub = path.join(ws.root, "sub")
    fs.mkdirSync(sub)
    hostGit(sub, "init", "-q", `--separate-git-dir=${path.join(ws.root, "subgit")}`)
    fs.writeFileSync(path.join(sub, "s.txt"), "s\n")
    hostGit(sub, "add", "s.txt")
    hostGit(sub, "-c", "user.name=a", "-c", "user.email=a@b", "commit", "-qm", "s")
    hostGit(ws.root, "-c", "advice.addEmbeddedRepo=false", "add", "sub")
    const dotGit = fs.readFileSync(path.join(sub, ".git"), "utf8")
    const out = await during(ws, `(cd sub && ${evilRepo(marker, ".", "../subgit")}\necho 'gitdir: evil' > .git; echo "plant $?")`, () => hostGit(ws.root, "status", "--short"))
    expect(fs.existsSync(marker)).toBe(false)
    expect(out).toMatch(/plant [1-9]/)
    expect(fs.readFileSync(path.join(sub, ".git"), "utf8")).toBe(dotGit)
  }, 60_000)

  it("config.worktree where the configuration reads one: the user's git status meanwhile runs nothing", async () => {
    const ws = attackWorkspace(cleanups)
    const marker = path.join(ws.parent, "PWNED")
    ws.git("config", "extensions.worktreeConfig", "true")
    const out = await during(ws, `printf '[core]\\n\\tfsmonitor = touch ${marker}\\n' > .git/config.worktree; echo "plant $?"`, () => hostGit(ws.root, "status", "--short"))
    expect(fs.existsSync(marker)).toBe(false)
    expect(out).toMatch(/plant [1-9]/)
    expect(fs.existsSync(path.join(ws.root, ".git/config.worktree"))).toBe(false)
  }, 60_000)

  it("a hook planted in the workspace's and a nested repository's git folder: the user's commits meanwhile run nothing", async () => {
    const ws = attackWorkspace(cleanups)
    const marker = path.join(ws.parent, "PWNED")
    const sub = path.join(ws.root, "sub")
    fs.mkdirSync(sub)
    hostGit(sub, "init", "-q")
    // No hooks folder (git makes one only from its templates): the sandbox may not make one either.
    fs.rmSync(path.join(sub, ".git/hooks"), { recursive: true })
    const hook = `printf '#!/bin/sh\\ntouch ${marker}\\n' > HOOK && chmod +x HOOK`
    const out = await during(
      ws,
      `${hook.replaceAll("HOOK", ".git/hooks/pre-commit")}; echo "plant $?"\n(cd sub && mkdir -p .git/hooks && ${hook.replaceAll("HOOK", ".git/hooks/pre-commit")}); echo "nested $?"`,
      () => {
        for (const dir of [ws.root, sub]) {
          fs.writeFileSync(path.join(dir, "c.txt"), "c\n")
          hostGit(dir, "add", "c.txt")
          expect(hostGit(dir, "-c", "user.name=a", "-c", "user.email=a@b", "commit", "-qm", "c").status).toBe(0)
        }
      }
    )
    expect(fs.existsSync(marker)).toBe(false)
    expect(out).toMatch(/plant [1-9]/)
    expect(out).toMatch(/nested [1-9]/)
  }, 60_000)

  // What the configuration names in the tree but is not there yet: made (empty) before the call, read-only in it,
  // removed after it. Was a hole: bash made the folder or file and the user's git meanwhile ran what it held.
  it("an absent core.hooksPath folder (tools/githooks): the user's commit meanwhile runs nothing; nothing is left", async () => {
    const ws = attackWorkspace(cleanups)
    const marker = path.join(ws.parent, "PWNED")
    ws.git("config", "core.hooksPath", "tools/githooks")
    const hook = `printf '#!/bin/sh\\ntouch ${marker}\\n' > tools/githooks/pre-commit && chmod +x tools/githooks/pre-commit`
    const out = await during(ws, `mkdir -p tools/githooks; mv tools t2; echo "move $?"; mv t2 tools 2>/dev/null\nmv tools/githooks tools/g2; echo "inner $?"; mv tools/g2 tools/githooks 2>/dev/null\n${hook}; echo "plant $?"\necho notes > tools/notes.txt`, () => {
      fs.writeFileSync(path.join(ws.root, "c.txt"), "c\n")
      hostGit(ws.root, "add", "c.txt")
      expect(hostGit(ws.root, "-c", "user.name=a", "-c", "user.email=a@b", "commit", "-qm", "c").status).toBe(0)
    })
    expect(fs.existsSync(marker)).toBe(false)
    expect(out).toMatch(/plant [1-9]/)
    expect(out).toMatch(/move [1-9]/)
    expect(out).toMatch(/inner [1-9]/)
    // What the call wrote beside it stays; the folder made for the call does not.
    expect(fs.readFileSync(path.join(ws.root, "tools/notes.txt"), "utf8")).toBe("notes\n")
    expect(fs.existsSync(path.join(ws.root, "tools/githooks"))).toBe(false)
    expect(fs.existsSync(path.join(ws.root, "t2"))).toBe(false)
  }, 60_000)

  it("an absent included config file and core.fsmonitor program: the user's git status meanwhile runs nothing; nothing is left", async () => {
    const ws = attackWorkspace(cleanups)
    const marker = path.join(ws.parent, "PWNED")
    ws.git("config", "include.path", "../conf/project.gitconfig")
    ws.git("config", "core.fsmonitor", "./scripts/fsmon.sh")
    const out = await during(
      ws,
      `mkdir -p conf scripts; printf '[core]\\n\\tfsmonitor = touch ${marker}\\n' > conf/project.gitconfig; echo "include $?"
printf '#!/bin/sh\\ntouch ${marker}\\n' > scripts/fsmon.sh; echo "program $?"; chmod +x scripts/fsmon.sh; echo "chmod $?"`,
      () => hostGit(ws.root, "status", "--short")
    )
    expect(fs.existsSync(marker)).toBe(false)
    expect(out).toMatch(/include [1-9]/)
    expect(out).toMatch(/program [1-9]/)
    expect(out).toMatch(/chmod [1-9]/)
    for (const made of ["conf", "scripts"]) expect(fs.existsSync(path.join(ws.root, made)), made).toBe(false)
    expect(hostGit(ws.root, "status", "--short").status).toBe(0)
    expect(fs.existsSync(marker)).toBe(false)
  }, 60_000)

  it("git add, commit, stash and worktree add still work inside bash", async () => {
    const ws = attackWorkspace(cleanups)
    const out = ws.script(`set -e
echo b > b.txt && git add b.txt && git commit -qm second
echo more >> a.txt && git stash -q && git stash pop -q && git stash list | wc -l
git worktree add -q wt2 && cd wt2 && echo w > w.txt && git add w.txt && git commit -qm third && cd ..
git log --oneline --all | wc -l
echo ok-end`)
    expect(out).toContain("ok-end")
    expect(ws.git("log", "--format=%s", "main")).toBe("second\nfirst\n")
    expect(ws.git("log", "--format=%s", "refs/heads/wt2")).toBe("third\nsecond\nfirst\n")
    expect(ws.git("status", "--short")).toContain(" M a.txt")
    expect(fs.existsSync(path.join(ws.root, ".git/commondir"))).toBe(false)
    expect(fs.readFileSync(path.join(ws.root, ".git/worktrees/wt2/commondir"), "utf8").trim()).toBe("../..")
    expect(hostGit(path.join(ws.root, "wt2"), "status", "--short").status).toBe(0)
  }, 60_000)
})
