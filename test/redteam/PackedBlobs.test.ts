/**
 * Red team (issue 19), a secret's blob that no tree and no index names, packed: staged and unstaged before minicode
 * ever saw it, removed, then packed by `git gc --cruft` (a cruft pack, its `.mtimes` beside it), by `git repack -a -d
 * --keep-unreachable` (into the main pack) or by `git pack-objects` into a `.keep` pack. Loose, such a blob was
 * masked (its file); packed, it was a hole: `git cat-file --batch-all-objects --batch` in sandboxed bash printed it.
 *
 * Now StoreSecrets lists each pack's blobs nobody names and the sandbox masks a pack holding one (the pack file).
 * Read through the built binary (default sandbox, policy allow-all; scripts written by write_file).
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { attackFile, attackWorkspace, inflateAll } from "./support/Attack.js"
import { title, unavailable } from "../support/Sandbox.js"

const cleanups = attackFile()

const dumpAll = `git cat-file --batch-all-objects --batch 2>&1; ${inflateAll()}`

const setup = () => attackWorkspace(cleanups)

/** The event loop's turn between synchronous CLI runs (vitest's worker RPC times out when it never comes). */
const turn = () => new Promise((r) => setTimeout(r, 0))

/** A secret staged, unstaged and removed: a lone loose blob that no tree or index names. */
const loneSecret = (root: string, git: (...args: Array<string>) => string, canary: string) => {
  fs.writeFileSync(path.join(root, ".env"), `TOKEN=${canary}\n`)
  git("add", "-f", ".env")
  git("reset", "-q", ".env")
  fs.rmSync(path.join(root, ".env"))
}

const looseFiles = (root: string) =>
  fs
    .readdirSync(path.join(root, ".git/objects"))
    .filter((n) => /^[0-9a-f]{2}$/.test(n))
    .flatMap((d) => fs.readdirSync(path.join(root, ".git/objects", d)))

const packFiles = (root: string) => fs.readdirSync(path.join(root, ".git/objects/pack"))

describe.skipIf(unavailable !== undefined)(title("unattributed blobs in packs"), () => {
  it("a lone secret blob packed into a cruft pack by git gc --cruft is not readable; git in bash still works", async () => {
    const { root, git, script } = setup()
    loneSecret(root, git, "CRUFTCANARY")
    git("gc", "-q", "--cruft", "--prune=1.week.ago")
    expect(looseFiles(root)).toEqual([])
    expect(packFiles(root).some((n) => n.endsWith(".mtimes"))).toBe(true)
    // The attack has teeth: on the host, git reads the blob back from the cruft pack.
    expect(git("cat-file", "--batch-all-objects", "--batch")).toContain("CRUFTCANARY")
    await turn()
    const out = script(`${dumpAll}; git log --format=%s 2>&1; git cat-file -p HEAD:a.txt 2>&1`)
    expect(out).not.toContain("CRUFTCANARY")
    expect(out).toContain("first")
  })

  it("a cruft pack whose blobs a tree names (an innocent dropped commit) stays readable: the check is per blob", async () => {
    const { root, git, script } = setup()
    fs.writeFileSync(path.join(root, "b.txt"), "PLAINCANARY\n")
    git("add", "b.txt")
    git("commit", "-q", "-m", "dropped")
    git("reset", "-q", "--hard", "HEAD~1")
    git("reflog", "expire", "--expire=now", "--all")
    git("gc", "-q", "--cruft", "--prune=1.week.ago")
    expect(packFiles(root).some((n) => n.endsWith(".mtimes"))).toBe(true)
    await turn()
    expect(script(dumpAll)).toContain("PLAINCANARY")
  })

  it("a lone secret blob kept in the main pack by git repack -a -d --keep-unreachable is not readable", async () => {
    const { root, git, script } = setup()
    loneSecret(root, git, "KEEPUNREACHABLECANARY")
    // Every object into a pack first (repack keeps only what its old packs held), then one pack of all.
    const all = git("cat-file", "--batch-all-objects", "--batch-check=%(objectname)")
    execFileSync("git", ["pack-objects", "-q", ".git/objects/pack/pack"], { cwd: root, input: all })
    git("prune-packed")
    git("repack", "-q", "-a", "-d", "--keep-unreachable")
    expect(looseFiles(root)).toEqual([])
    expect(packFiles(root).filter((n) => n.endsWith(".pack")).length).toBe(1)
    expect(git("cat-file", "--batch-all-objects", "--batch")).toContain("KEEPUNREACHABLECANARY")
    await turn()
    expect(script(dumpAll)).not.toContain("KEEPUNREACHABLECANARY")
  })

  it("a lone secret blob in a .keep pack of its own is not readable", async () => {
    const { root, git, script } = setup()
    loneSecret(root, git, "KEEPPACKCANARY")
    const lone = looseFiles(root).length
    expect(lone).toBeGreaterThan(0)
    const ids = git("cat-file", "--batch-all-objects", "--batch-check=%(objectname) %(objecttype)")
      .split("\n")
      .filter((l) => l.endsWith(" blob"))
      .map((l) => l.slice(0, 40))
      .join("\n")
    const name = execFileSync("git", ["pack-objects", "-q", ".git/objects/pack/pack"], { cwd: root, input: `${ids}\n`, encoding: "utf8" }).trim()
    fs.writeFileSync(path.join(root, ".git/objects/pack", `pack-${name}.keep`), "")
    git("prune-packed")
    expect(git("cat-file", "--batch-all-objects", "--batch")).toContain("KEEPPACKCANARY")
    await turn()
    expect(script(dumpAll)).not.toContain("KEEPPACKCANARY")
  })
})
