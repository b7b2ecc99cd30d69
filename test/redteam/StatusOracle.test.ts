/**
 * A tracked secret's worktree state as a yes/no oracle on a guess (issue 19, family 4). `.env` is committed, then
 * changed on the host; its new content is masked in the sandbox. Sandboxed bash writes the blob of a guess and
 * points the index entry at it (`git update-index --cacheinfo`). git_status and git_diff compared the host file
 * with that blob: clean for the right guess, modified for a wrong one, so each call answered "is the secret this?".
 * They now judge a tracked secret by the index's stat data only, which no guess changes: both guesses get the same
 * answer. An honest change (the host edits the file) is still reported.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { title, unavailable } from "../support/Sandbox.js"
import { attackFile, attackWorkspace } from "./support/Attack.js"

const cleanups = attackFile()

describe.skipIf(unavailable !== undefined)(title("git_status is no oracle on a tracked secret's content"), () => {
  it("the right and a wrong guess planted in the index get the same status and diff", () => {
    const w = attackWorkspace(cleanups)
    fs.writeFileSync(path.join(w.root, ".env"), "PIN=1111\n")
    w.git("add", ".env")
    w.git("commit", "-q", "-m", "env")
    fs.writeFileSync(path.join(w.root, ".env"), "PIN=4821\n")
    const seen = (guess: string) => {
      const out = w.script(`id=$(printf '${guess}\\n' | git hash-object --stdin) && git update-index --cacheinfo "100644,$id,.env" && echo planted`)
      expect(out).toContain("planted")
      const status = w.tool("git_status", {})
      const diff = w.tool("git_diff", {})
      expect(status.status).toBe(0)
      return { status: status.stdout, diff: diff.stdout }
    }
    const right = seen("PIN=4821")
    const wrong = seen("PIN=0000")
    expect(right.status).toContain(".env")
    expect(right).toEqual(wrong)
    expect(JSON.stringify(right)).not.toContain("4821")
  }, 120_000)

  it("an unchanged tracked secret is clean, a host edit shows as modified, a deletion as deleted", () => {
    const w = attackWorkspace(cleanups)
    fs.writeFileSync(path.join(w.root, ".env"), "PIN=1111\n")
    w.git("add", ".env")
    w.git("commit", "-q", "-m", "env")
    w.git("status")
    expect(w.tool("git_status", {}).stdout).not.toContain(".env")
    fs.writeFileSync(path.join(w.root, ".env"), "PIN=2222\n")
    expect(w.tool("git_status", {}).stdout).toContain(" M .env")
    w.git("checkout", "--", ".env")
    w.git("status")
    expect(w.tool("git_status", {}).stdout).not.toContain(".env")
    fs.rmSync(path.join(w.root, ".env"))
    expect(w.tool("git_status", {}).stdout).toContain(" D .env")
  }, 120_000)
})
