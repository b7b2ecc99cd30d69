/**
 * What the git tools judge objects by (SecretObjects.maskedIds, SecretObjects.protectedIds), against real git: the
 * protected files' current contents hashed as `git hash-object` does and as git's message cleanup leaves them (`git
 * notes add -F`), and every blob a tree in the store names at a protected path, with no ref reaching it.
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect } from "effect"
import { afterEach, describe, expect, it } from "vitest"
import * as SecretObjects from "../../../src/adapters/shell/SecretObjects.js"
import * as WorkspaceScan from "../../../src/adapters/shell/WorkspaceScan.js"

const dirs: Array<string> = []
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true })
})

const repo = () => {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "minicode-secretids-")))
  dirs.push(root)
  const git = (args: ReadonlyArray<string>, input?: string | Buffer) =>
    execFileSync("git", ["-c", "user.email=a@b", "-c", "user.name=A", ...args], { cwd: root, encoding: "utf8", ...(input === undefined ? {} : { input }) })
  git(["init", "-q"])
  return { root, git }
}

describe("SecretObjects.maskedIds", () => {
  const contents = ["TOKEN=a\n", "TOKEN=a", "  A=1  \n\n\n\tB=2\t\r\n\n", "\n\nK=\u00e9\n", "#not a comment\n\nX"]
  for (const content of contents) {
    it(`knows ${JSON.stringify(content)} as git stores it, raw and cleaned up`, () => {
      const { root, git } = repo()
      fs.writeFileSync(path.join(root, ".env"), content)
      fs.writeFileSync(path.join(root, "plain.txt"), "nothing\n")
      const ids = SecretObjects.maskedIds(WorkspaceScan.scan(root))
      expect(ids).toContain(git(["hash-object", ".env"]).trim())
      const cleaned = git(["stripspace"], fs.readFileSync(path.join(root, ".env")))
      expect(ids).toContain(git(["hash-object", "--stdin"], cleaned).trim())
      expect(ids).not.toContain(git(["hash-object", "plain.txt"]).trim())
    })
  }

  it("a .env of blank lines only gives no cleaned-up id (it would be the empty blob, every empty file's)", () => {
    const { root, git } = repo()
    fs.writeFileSync(path.join(root, ".env"), "\n  \n")
    expect(SecretObjects.maskedIds(WorkspaceScan.scan(root))).not.toContain(git(["hash-object", "--stdin"], "").trim())
  })
})

describe("SecretObjects.protectedIds", () => {
  it("a tree no ref reaches naming .env's old content, and the current content, with no call before", async () => {
    const { root, git } = repo()
    fs.writeFileSync(path.join(root, ".env"), "TOKEN=old\n")
    git(["add", "-f", ".env"])
    const tree = git(["write-tree"]).trim()
    const old = git(["rev-parse", `${tree}:.env`]).trim()
    git(["rm", "-q", "--cached", ".env"])
    fs.writeFileSync(path.join(root, ".env"), "TOKEN=new\n")
    fs.writeFileSync(path.join(root, "a.txt"), "a\n")
    git(["add", "a.txt"])
    git(["commit", "-q", "-m", "a"])
    const ids = await Effect.runPromise(SecretObjects.protectedIds(root, WorkspaceScan.scan(root)))
    expect(ids.has(old)).toBe(true)
    expect(ids.has(git(["hash-object", ".env"]).trim())).toBe(true)
    expect(ids.has(git(["rev-parse", "HEAD:a.txt"]).trim())).toBe(false)
  })
})
