/**
 * Red team (issue 19), a secret's content in the workspace repository's object store where no ref or reflog reaches
 * it and the file holds something else now (or is gone), read from sandboxed bash through the built binary
 * (default sandbox, policy allow-all; scripts written by write_file). Each was a hole: the sandbox hid the store
 * only when it held a protected file's current content, and the history check sees only what refs, reflogs and
 * the index reach.
 *
 * Now the sandbox (adapters/shell/StoreSecrets.ts, through SecretObjects.toHide) remembers every protected content
 * it saw and reads every tree (loose or packed) and index file for blobs at protected paths; a fan-out folder
 * linked elsewhere, `.git/lost-found`, `.git/rr-cache` and a message file holding a secret's patch are hidden too. Ordinary git in bash still works where the store holds
 * no secret.
 */
import { execFileSync, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { attackFile, attackWorkspace, inflateAll } from "./support/Attack.js"
import { title, unavailable } from "../support/Sandbox.js"

const cleanups = attackFile()


const dumpAll = `git cat-file --batch-all-objects --batch 2>&1; git fsck --lost-found 2>&1; cat .git/lost-found/*/* 2>&1; ${inflateAll()}`

const setup = () => attackWorkspace(cleanups)
const secret = (root: string, content: string) => fs.writeFileSync(path.join(root, ".env"), `TOKEN=${content}\n`)

describe.skipIf(unavailable !== undefined)(title("secrets in the object store that no ref reaches"), () => {
  it("the attack has teeth: a dangling innocent blob a tree names is read back from the store; one nothing names is not", () => {
    const { root, git, script } = setup()
    fs.writeFileSync(path.join(root, "b.txt"), "PLAINCANARY\n")
    git("add", "b.txt")
    git("commit", "-q", "-m", "dropped")
    git("reset", "-q", "--hard", "HEAD~1")
    git("reflog", "expire", "--expire=now", "--all")
    fs.writeFileSync(path.join(root, "c.txt"), "LONECANARY\n")
    git("add", "c.txt")
    git("reset", "-q", "c.txt")
    const out = script(dumpAll)
    expect(out).toContain("PLAINCANARY")
    expect(out).not.toContain("LONECANARY")
  })

  it("a secret minicode saw, staged, unstaged and then changed or deleted, is not readable", () => {
    const { root, git, script, tool } = setup()
    secret(root, "SEENCANARY1")
    expect(tool("bash", { command: "true" }).status).toBe(0)
    git("add", "-f", ".env")
    git("reset", "-q", ".env")
    secret(root, "later")
    expect(script(dumpAll)).not.toContain("SEENCANARY1")
    fs.rmSync(path.join(root, ".env"))
    expect(script(dumpAll)).not.toContain("SEENCANARY1")
  })

  it("a secret minicode never saw, named only by an unreachable tree, is not readable, loose or packed", () => {
    const { root, git, script } = setup()
    secret(root, "TREECANARY")
    git("add", "-f", ".env")
    git("write-tree")
    git("reset", "-q", ".env")
    fs.rmSync(path.join(root, ".env"))
    expect(script(dumpAll)).not.toContain("TREECANARY")
    // Every object, the unreachable ones too, into one pack; the loose copies removed.
    const all = git("cat-file", "--batch-all-objects", "--batch-check=%(objectname)")
    execFileSync("git", ["pack-objects", "-q", ".git/objects/pack/pack"], { cwd: root, input: all })
    git("prune-packed")
    expect(fs.readdirSync(path.join(root, ".git/objects")).filter((n) => /^[0-9a-f]{2}$/.test(n)).flatMap((d) => fs.readdirSync(path.join(root, ".git/objects", d)))).toEqual([])
    expect(script(dumpAll)).not.toContain("TREECANARY")
  })

  it("a dropped stash holding a secret is not readable", () => {
    const { root, git, script } = setup()
    secret(root, "STASHCANARY")
    git("add", "-f", ".env")
    git("stash", "-q")
    git("stash", "drop", "-q")
    secret(root, "later")
    expect(script(dumpAll)).not.toContain("STASHCANARY")
  })

  it("an amended commit whose reflog expired, its secret gone from history, is not readable, after git gc too", () => {
    const { root, git, script } = setup()
    secret(root, "AMENDCANARY")
    fs.writeFileSync(path.join(root, "c.txt"), "c\n")
    git("add", "-f", ".env", "c.txt")
    git("commit", "-q", "-m", "oops")
    git("rm", "-q", "--cached", ".env")
    fs.rmSync(path.join(root, ".env"))
    git("commit", "-q", "--amend", "-m", "fixed")
    git("reflog", "expire", "--expire=now", "--all")
    expect(git("log", "--all", "--format=%s")).not.toContain("oops")
    expect(script(dumpAll)).not.toContain("AMENDCANARY")
    git("gc", "-q", "--prune=1.week.ago")
    expect(script(dumpAll)).not.toContain("AMENDCANARY")
  })

  it("a secret below a folder named like one, or a folder-and-file pair, in an unreachable tree is not readable", () => {
    const { root, git, script } = setup()
    fs.mkdirSync(path.join(root, ".ssh"))
    fs.writeFileSync(path.join(root, ".ssh", "notes"), "SSHCANARY\n")
    fs.mkdirSync(path.join(root, ".docker"))
    fs.writeFileSync(path.join(root, ".docker", "config.json"), '{"auth":"DOCKERCANARY"}\n')
    git("add", "-f", ".ssh", ".docker")
    git("write-tree")
    git("rm", "-rq", "--cached", ".ssh", ".docker")
    fs.rmSync(path.join(root, ".ssh"), { recursive: true })
    fs.rmSync(path.join(root, ".docker"), { recursive: true })
    const out = script(dumpAll)
    expect(out).not.toContain("SSHCANARY")
    expect(out).not.toContain("DOCKERCANARY")
  })

  it("a secret staged in another worktree (its index in this repository) is not readable", () => {
    const { git, script } = setup()
    const other = fs.mkdtempSync(path.join(os.tmpdir(), "minicode-wt-"))
    cleanups.push(() => fs.rmSync(other, { recursive: true, force: true }))
    git("worktree", "add", "-q", path.join(other, "wt"))
    fs.writeFileSync(path.join(other, "wt", ".env"), "TOKEN=WORKTREECANARY\n")
    spawnSync("git", ["add", "-f", ".env"], { cwd: path.join(other, "wt") })
    expect(script(dumpAll)).not.toContain("WORKTREECANARY")
  })

  it("fan-out folders linked into the workspace by bash: what the user's git writes there is not readable", () => {
    const { root, git, script } = setup()
    const out = script(`mkdir -p vis && cd .git/objects && for a in 0 1 2 3 4 5 6 7 8 9 a b c d e f; do for b in 0 1 2 3 4 5 6 7 8 9 a b c d e f; do
      if [ -d $a$b ]; then mv $a$b ../../vis/$a$b; else mkdir ../../vis/$a$b; fi; ln -s ../../vis/$a$b $a$b; done; done`)
    // Live sandbox: the links are made, and what git writes through them is hidden. Staged bash (issue 41): no link
    // reaches the git folder (refused at the merge, by its rule); the attack then holds nothing to read either.
    const linked = fs.lstatSync(path.join(root, ".git/objects/0a"), { throwIfNoEntry: false })?.isSymbolicLink() === true
    if (!linked) expect(out).toMatch(/refused \.git\/objects\/[0-9a-f]{2} \(staged\.git-/)
    secret(root, "LINKCANARY")
    git("add", "-f", ".env")
    secret(root, "later")
    expect(script(`cat vis/*/* >/dev/null; ${inflateAll("vis/")}`)).not.toContain("LINKCANARY")
  })

  it("a secret's copy left in .git/lost-found after the store was pruned is not readable", () => {
    const { root, git, script } = setup()
    secret(root, "LOSTCANARY")
    git("add", "-f", ".env")
    git("reset", "-q", ".env")
    fs.rmSync(path.join(root, ".env"))
    git("fsck", "--lost-found")
    git("prune", "--expire=now")
    expect(fs.readdirSync(path.join(root, ".git/lost-found/other")).length).toBeGreaterThan(0)
    expect(script("cat .git/lost-found/*/* 2>&1")).not.toContain("LOSTCANARY")
  })

  it("a conflicted secret's copy recorded by rerere, its history since removed and pruned, is not readable", () => {
    const { root, git, script } = setup()
    git("config", "rerere.enabled", "true")
    const first = git("rev-parse", "HEAD").trim()
    secret(root, "base")
    git("add", "-f", ".env")
    git("commit", "-q", "-m", "env")
    git("checkout", "-q", "-b", "other")
    secret(root, "RERERECANARY")
    git("commit", "-q", "-am", "theirs")
    git("checkout", "-q", "main")
    secret(root, "ours")
    git("commit", "-q", "-am", "ours")
    expect(() => git("merge", "-q", "other")).toThrow()
    git("merge", "--abort")
    git("reset", "-q", "--hard", first)
    git("branch", "-q", "-D", "other")
    git("reflog", "expire", "--expire=now", "--all")
    git("gc", "-q", "--prune=now")
    expect(fs.existsSync(path.join(root, ".env"))).toBe(false)
    expect(fs.readdirSync(path.join(root, ".git/rr-cache")).length).toBeGreaterThan(0)
    expect(script("cat .git/rr-cache/*/* 2>&1")).not.toContain("RERERECANARY")
  })

  it("a secret's patch kept in .git/COMMIT_EDITMSG by git commit -v is not readable; other messages stay", () => {
    const { root, git, script } = setup()
    secret(root, "EDITMSGCANARY")
    git("add", "-f", ".env")
    const r = spawnSync("git", ["commit", "-q", "-v"], { cwd: root, env: { ...process.env, GIT_EDITOR: "sed -i 1s/^/env/" } })
    expect(r.status).toBe(0)
    expect(fs.readFileSync(path.join(root, ".git/COMMIT_EDITMSG"), "utf8")).toContain("EDITMSGCANARY")
    expect(script("cat .git/COMMIT_EDITMSG 2>&1")).not.toContain("EDITMSGCANARY")
    fs.writeFileSync(path.join(root, "c.txt"), "c\n")
    git("add", "c.txt")
    spawnSync("git", ["commit", "-q", "-v"], { cwd: root, env: { ...process.env, GIT_EDITOR: "sed -i 1s/^/cmsg/" } })
    expect(script("cat .git/COMMIT_EDITMSG 2>&1")).toContain("cmsg")
  })

  it("honest work: git in bash shows, reads and commits in a repository whose store holds no secret", async () => {
    const { root, git, scriptAsync } = setup()
    secret(root, "NEVERSTORED")
    git("stash", "list")
    const out = await scriptAsync(
      "git status --short 2>&1; git log --format=%s 2>&1; git cat-file -p HEAD:a.txt 2>&1; echo b > b.txt && git add b.txt && git -c user.email=a@b -c user.name=A commit -q -m second 2>&1; git log --format=%s 2>&1"
    )
    expect(out).toContain("first")
    expect(out).toContain("second")
    expect(out).not.toContain("fatal")
    expect(out).not.toContain("NEVERSTORED")
    expect(git("log", "--format=%s")).toContain("second")
  })
})
