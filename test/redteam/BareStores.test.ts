/**
 * Red team (issue 19, invariant 1), holes: a repository's store that is not in a `.git` folder is never hidden from
 * bash. The sandbox hides nested repositories' stores (SecretObjects.toHide), but it finds them as the scan's pinned
 * `.git` folders only: a bare clone (`git clone --bare`, `backup.git/` or any other name: `HEAD`, `objects/`,
 * `refs/` at its top) and a bundle file (`git bundle create repo.bundle --all`, a pack with a header) kept in the
 * workspace hold the same history. A secret committed there and deleted since (`.env` added, then removed) is
 * printed by `git -C backup.git log -p` in sandboxed bash, by inflating its loose objects, and by
 * `git bundle unbundle` / inflating the bundle. Through the built binary (default sandbox, allow-all; the script
 * is written by write_file, so no guard sees what it names).
 *
 * Bare clones are fixed: the scan pins a folder holding an object folder (`objects/` with `info/` and `pack/`;
 * WorkspaceScan.read `isStore`, judged on what the sandbox masks, so removing `HEAD` and `refs/` changes nothing), so its store is hidden as a nested repository's. Bundle files are open (a hole):
 * the fix is a rule for them (by name, `*.bundle`, or by their first line `# v2 git bundle`) in the sandbox's scan.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { attackFile, attackWorkspace, inflateAll } from "./support/Attack.js"
import { title, unavailable } from "../support/Sandbox.js"

const canary = "BARECANARY"
const cleanups = attackFile()

/** A repository outside the workspace whose history holds `.env` (added, then removed). */
const secretHistory = () => {
  const src = fs.mkdtempSync(path.join(os.tmpdir(), "bare-src-"))
  cleanups.push(() => fs.rmSync(src, { recursive: true, force: true }))
  const g = (...args: Array<string>) => spawnSync("git", ["-c", "user.email=a@b", "-c", "user.name=A", ...args], { cwd: src, encoding: "utf8" })
  g("init", "-q", "-b", "main")
  fs.writeFileSync(path.join(src, ".env"), `K=${canary}\n`)
  g("add", "-f", ".env")
  g("commit", "-q", "-m", "secret")
  g("rm", "-q", ".env")
  g("commit", "-q", "-m", "gone")
  return src
}

describe.skipIf(unavailable !== undefined)(title("stores outside a .git folder"), () => {
  for (const name of ["backup.git", "mirror"]) {
    it(`a bare clone in ${name}/ whose history holds a deleted secret: its content is not readable from bash`, () => {
      const { root, script } = attackWorkspace(cleanups)
      spawnSync("git", ["clone", "-q", "--bare", "--no-local", secretHistory(), path.join(root, name)])
      expect(fs.existsSync(path.join(root, name, "HEAD"))).toBe(true)
      expect(script(`git -C ${name} log -p --all 2>&1 | cat\n${inflateAll(`${name}/`)}`)).not.toContain(canary)
    })
  }

  it("a bare clone whose HEAD and refs bash removed in an earlier call: its store stays hidden", () => {
    const { root, script } = attackWorkspace(cleanups)
    spawnSync("git", ["clone", "-q", "--bare", "--no-local", secretHistory(), path.join(root, "backup.git")])
    expect(script("rm -rf backup.git/HEAD backup.git/refs; ls backup.git")).not.toMatch(/\\nrefs\\n|HEAD/)
    expect(script(`echo ref: refs/heads/main > backup.git/HEAD; mkdir -p backup.git/refs; git -C backup.git log -p --all 2>&1 | cat\n${inflateAll("backup.git/")}`)).not.toContain(canary)
  })
})

describe.skipIf(unavailable !== undefined)(title("a bundle file in the workspace"), () => {
  it("a bundle file holding a deleted secret's history: its content is not readable from bash", () => {
    const { root, script } = attackWorkspace(cleanups)
    spawnSync("git", ["bundle", "create", path.join(root, "repo.bundle"), "--all"], { cwd: secretHistory() })
    expect(fs.statSync(path.join(root, "repo.bundle")).size).toBeGreaterThan(0)
    const out = script(`mkdir -p /tmp/u && git -C /tmp/u init -q && git -C /tmp/u fetch -q "$PWD/repo.bundle" 'refs/*:refs/*' 2>&1; git -C /tmp/u log -p --all 2>&1 | cat`)
    expect(out).not.toContain(canary)
  })
})
