/**
 * Red team (issue 19): a secret committed to history, read back from sandboxed bash through the object store —
 * through git (`git show`, `git cat-file --batch-all-objects`, a copied `.git`), by inflating every zlib stream of
 * every file under `.git` (loose objects and packfiles), and by a store moved behind a symlink while the history was
 * still clean. Through the built binary, default sandbox, policy allow-all; the script is written by write_file so
 * no guard sees a secret name. A clean history keeps git working in bash.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { attackFile, attackWorkspace } from "./support/Attack.js"
import { mustRun, title, unavailable } from "../support/Sandbox.js"

const canary = "OBJCANARY"
const cleanups = attackFile()

/** Inflates every zlib stream at every offset of every file under .git and prints what comes out. */
const inflateAll = `python3 - <<'PY'
import os, zlib
for d, _, fs in os.walk(".git"):
    for f in fs:
        p = os.path.join(d, f)
        try:
            b = open(p, "rb").read()
        except Exception:
            continue
        for i in range(len(b)):
            if b[i] != 0x78:
                continue
            try:
                print(zlib.decompressobj().decompress(b[i:])[:200])
            except Exception:
                pass
PY`

const setup = () => {
  const ws = attackWorkspace(cleanups)
  const { root, git, tool, script } = ws
  const commitSecret = () => {
    fs.writeFileSync(path.join(root, ".env"), `TOKEN=${canary}\n`)
    git("add", "-f", ".env")
    git("commit", "-q", "-m", "oops")
    fs.rmSync(path.join(root, ".env"))
  }
  return { root, git, tool, script, toolAsync: ws.toolAsync, scriptAsync: ws.scriptAsync, commitSecret }
}

if (unavailable !== undefined && mustRun) {
  describe("git objects", () => {
    it("bwrap must be usable in CI (CI=true)", () => expect.fail(`sandbox unavailable in CI: ${unavailable}`))
  })
}

describe.skipIf(unavailable !== undefined)(title("a committed secret is not readable from sandboxed bash"), () => {
  it("the inflate attack has teeth: with a clean history it reads a committed file's content from .git", () => {
    const { root, git, script } = setup()
    fs.writeFileSync(path.join(root, "b.txt"), `${canary}-PLAIN\n`)
    git("add", "b.txt")
    git("commit", "-q", "-m", "plain")
    const out = script(`git log --oneline | head -1; ${inflateAll}`)
    expect(out).toContain(`${canary}-PLAIN`)
    expect(out).toContain("plain")
    expect(out).not.toContain("object store is hidden")
  })

  const attacks: Record<string, string> = {
    "git show / log -p / grep": "git show HEAD:.env; git show HEAD~0:.env; git log -p | cat; git grep TOKEN HEAD",
    "cat-file over every object": "git cat-file --batch-all-objects --batch; git rev-list --objects --all | git cat-file --batch",
    "a copied .git": "cp -r .git /tmp/g; git --git-dir=/tmp/g log -p | cat; cp -r .git g2; cd g2 && git --git-dir=. show HEAD:.env",
    "zlib over loose objects": inflateAll,
    "listing the store": "find .git -type f | head -100; ls -laR .git/objects"
  }
  for (const [name, body] of Object.entries(attacks)) {
    it(`${name}: no canary, and the result says the store is hidden`, () => {
      const { script, commitSecret } = setup()
      commitSecret()
      const out = script(body)
      expect(out).not.toContain(canary)
      expect(out).toContain("object store is hidden")
    })
  }

  it("packfiles (after git gc), inflated at every offset: no canary", () => {
    const { git, script, commitSecret } = setup()
    commitSecret()
    git("gc", "-q")
    expect(script(`${inflateAll}; git verify-pack -v .git/objects/pack/*.idx`)).not.toContain(canary)
  })

  it("a secret amended away (reachable only through the reflog) stays hidden", () => {
    const { git, script, commitSecret } = setup()
    commitSecret()
    git("rm", "-q", "--cached", ".env")
    git("commit", "-q", "--amend", "--allow-empty", "-m", "clean")
    expect(script(`git show 'HEAD@{1}:.env'; ${inflateAll}`)).not.toContain(canary)
  })

  it("a store moved behind a symlink while the history was clean is masked where it really is", () => {
    const { root, script, commitSecret } = setup()
    // While clean, bash may rearrange .git freely (only hooks, config and the folder itself are pinned).
    script("mv .git/objects store && ln -s ../store .git/objects && git log --oneline | cat")
    expect(fs.lstatSync(path.join(root, ".git/objects")).isSymbolicLink()).toBe(true)
    commitSecret()
    const out = script(`cd store && find . -type f | head; cd .. && ${inflateAll.replace('os.walk(".git")', 'os.walk("store")')}`)
    expect(out).not.toContain(canary)
  })

  it("the git tools still work (history shown, the secret hidden), and bash's git works on a clean history", async () => {
    const { toolAsync, scriptAsync, commitSecret } = setup()
    expect(await scriptAsync("git log --oneline | cat")).toContain("first")
    commitSecret()
    const log = await toolAsync("git_log", {})
    expect(log.stdout).toContain("oops")
    expect((await toolAsync("git_show", { rev: "HEAD" })).stdout).not.toContain(canary)
  })
})
