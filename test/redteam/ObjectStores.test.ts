/**
 * Red team (issue 19), object stores the history check cannot vouch for, read from sandboxed bash through the built
 * binary (default sandbox, policy allow-all; the script is written by write_file, so no guard sees a secret name):
 *
 * - Was a hole: `git add -f .env; git reset .env` (a secret staged by mistake, then unstaged) leaves its blob in the
 *   store, reachable from no ref, reflog or index entry, so the history check passed and `git cat-file
 *   --batch-all-objects --batch` in bash printed the secret. Same after the loose object was packed.
 * - Was a hole: a nested repository (a clone inside the workspace) whose history holds a secret that is deleted from
 *   its work tree: `cd sub && git log -p` in bash printed it. Submodules' stores (`.git/modules/*`) likewise.
 *
 * Now the sandbox (adapters/shell/SecretObjects.ts, used by BwrapSandbox.wrap) masks a store holding a masked file's
 * content, and every nested store. The git tools themselves still work.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { attackFile, attackWorkspace, inflateAll } from "./support/Attack.js"
import { title, unavailable } from "../support/Sandbox.js"

const canary = "STORECANARY"
const cleanups = attackFile()

const setup = () => {
  const ws = attackWorkspace(cleanups)
  const { root, git, tool, script } = ws
  return { root, git, tool, script }
}


const dumpAll = "git cat-file --batch-all-objects --batch 2>&1; git fsck --lost-found 2>&1; cat .git/lost-found/other/* 2>&1"

describe.skipIf(unavailable !== undefined)(title("object stores bash must not see"), () => {
  it("the attack has teeth: an innocent file's blob no ref reaches (a commit dropped, its tree naming it) is read back from the store", () => {
    const { root, git, script } = setup()
    fs.writeFileSync(path.join(root, "b.txt"), `${canary}-PLAIN\n`)
    git("add", "b.txt")
    git("commit", "-q", "-m", "dropped")
    git("reset", "-q", "--hard", "HEAD~1")
    git("reflog", "expire", "--expire=now", "--all")
    expect(script(dumpAll)).toContain(`${canary}-PLAIN`)
  })

  it("a secret staged by mistake and unstaged (a dangling blob) is not readable, loose or packed", () => {
    const { root, git, tool, script } = setup()
    fs.writeFileSync(path.join(root, ".env"), `TOKEN=${canary}\n`)
    git("add", "-f", ".env")
    git("reset", "-q", ".env")
    expect(script(dumpAll)).not.toContain(canary)
    git("repack", "-q", "-a", "-k")
    git("prune-packed")
    expect(fs.readdirSync(path.join(root, ".git/objects/pack")).some((n) => n.endsWith(".idx"))).toBe(true)
    expect(script(`${dumpAll}; ${inflateAll()}`)).not.toContain(canary)
    // The git tools still show the history.
    expect(tool("git_log", {}).stdout).toContain("first")
  })

  it("a nested repository whose history holds a deleted secret: its store is hidden from bash", () => {
    const { root, script, tool } = setup()
    const sub = path.join(root, "sub")
    fs.mkdirSync(sub)
    const g = (...args: Array<string>) => spawnSync("git", args, { cwd: sub, encoding: "utf8" })
    g("init", "-q", "-b", "main")
    g("-c", "user.email=a@b", "-c", "user.name=A", "commit", "-q", "--allow-empty", "-m", "root")
    fs.writeFileSync(path.join(sub, ".env"), `K=${canary}-NESTED\n`)
    g("add", "-f", ".env")
    g("-c", "user.email=a@b", "-c", "user.name=A", "commit", "-q", "-m", "secret")
    g("rm", "-q", ".env")
    g("-c", "user.email=a@b", "-c", "user.name=A", "commit", "-q", "-m", "gone")
    expect(fs.existsSync(path.join(sub, ".env"))).toBe(false)
    expect(script(`cd sub && git log -p 2>&1 | cat; git cat-file --batch-all-objects --batch 2>&1`)).not.toContain(canary)
    expect(tool("git_status", {}).stdout).not.toContain(canary)
  })

  it("a submodule's store under .git/modules is hidden from bash", () => {
    const { root, git, script } = setup()
    const other = path.join(path.dirname(root), "other")
    fs.mkdirSync(other)
    const g = (...args: Array<string>) => spawnSync("git", args, { cwd: other, encoding: "utf8" })
    g("init", "-q", "-b", "main")
    fs.writeFileSync(path.join(other, "config.json"), '{"a":1}\n')
    fs.writeFileSync(path.join(other, ".env"), `K=${canary}-SUB\n`)
    g("add", "-f", ".env", "config.json")
    g("-c", "user.email=a@b", "-c", "user.name=A", "commit", "-q", "-m", "secret")
    git("-c", "protocol.file.allow=always", "submodule", "add", "-q", other, "m")
    expect(fs.existsSync(path.join(root, ".git/modules/m/objects"))).toBe(true)
    expect(script(`cd m && git log -p 2>&1 | cat; cd .. && git --git-dir=.git/modules/m cat-file --batch-all-objects --batch 2>&1`)).not.toContain(canary)
  })
})
