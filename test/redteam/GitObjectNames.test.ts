/**
 * Red team (issue 19): one protected content, every name git gives an object. The user's own steps put `.env`'s
 * content (current or once committed) into objects under non-secret names: a note in another notes ref shown
 * through `notes.displayRef`, a replace ref swapping an innocent blob for it, an annotated tag of its blob, a copy
 * committed as `innocent.txt`, and grafts or a shallow file cutting the commit that added `.env` out of the history
 * the git tools walk. git_show and git_log, by every revision spelling, must print none of it. Through the built
 * binary (allow-all, default sandbox).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { attackFile, attackWorkspace } from "./support/Attack.js"
import { title, unavailable } from "../support/Sandbox.js"

const canary = "OBJNAMECANARY"
const cleanups = attackFile()

const withSecret = () => {
  const ws = attackWorkspace(cleanups)
  fs.writeFileSync(path.join(ws.root, ".env"), `TOKEN=${canary}\n`)
  const shown = async (name: string, args: unknown) => {
    const r = await ws.toolAsync(name, args)
    return { status: r.status, text: r.stdout + r.stderr }
  }
  return { ...ws, shown }
}

describe.skipIf(unavailable !== undefined)(title("a protected content under other objects' names"), () => {
  it("a note in another notes ref, displayed by the repository's notes.displayRef, and git_log", async () => {
    const { git, shown } = withSecret()
    git("notes", "--ref=other", "add", "-F", ".env")
    git("config", "notes.displayRef", "refs/notes/*")
    const head = git("rev-parse", "HEAD").trim()
    const texts = [
      await shown("git_show", { rev: "HEAD" }),
      await shown("git_show", { rev: `refs/notes/other:${head}` }),
      await shown("git_show", { rev: `refs/notes/other^{tree}:${head}` }),
      await shown("git_show", { rev: "refs/notes/other" }),
      await shown("git_log", {})
    ]
    expect(texts.map((t) => t.text).filter((t) => t.includes(canary))).toEqual([])
    // Honest output still comes: the commit itself and the log.
    expect(texts[0]?.status).toBe(0)
    expect(texts[0]?.text).toContain("first")
    expect(texts[4]?.text).toContain("first")
  }, 180_000)

  it("a replace ref swapping a committed blob for the secret's", async () => {
    const { git, shown } = withSecret()
    const secret = git("hash-object", "-w", ".env").trim()
    const innocent = git("rev-parse", "HEAD:a.txt").trim()
    git("replace", innocent, secret)
    const texts = [
      await shown("git_show", { rev: "HEAD:a.txt" }),
      await shown("git_show", { rev: "HEAD" }),
      await shown("git_show", { rev: `refs/replace/${innocent}` }),
      await shown("git_diff", { staged: true })
    ]
    expect(texts.map((t) => t.text).filter((t) => t.includes(canary))).toEqual([])
    // git shows the object named, not its replacement.
    expect(texts[0]?.status).toBe(0)
    expect(texts[0]?.text).toContain("a")
  }, 180_000)

  it("an annotated tag of the secret's blob, and a copy committed under an innocent name", async () => {
    const { root, git, shown } = withSecret()
    const secret = git("hash-object", "-w", ".env").trim()
    git("tag", "-a", "-m", "keep", "kept", secret)
    fs.copyFileSync(path.join(root, ".env"), path.join(root, "innocent.txt"))
    git("add", "innocent.txt")
    git("commit", "-q", "-m", "copy")
    const texts = [
      await shown("git_show", { rev: "kept" }),
      await shown("git_show", { rev: "kept^{}" }),
      await shown("git_show", { rev: "HEAD:innocent.txt" }),
      await shown("git_show", { rev: "HEAD" }),
      await shown("git_show", { rev: "HEAD^{tree}:innocent.txt" })
    ]
    expect(texts.map((t) => t.text).filter((t) => t.includes(canary))).toEqual([])
    expect(texts[3]?.text).toContain("[minicode: diff of secret file innocent.txt hidden]")
  }, 180_000)

  it("a note written with -F from a .env without a final newline (git cleans the message up: another blob)", async () => {
    const { root, git, shown, scriptAsync } = withSecret()
    fs.writeFileSync(path.join(root, ".env"), `TOKEN=${canary}  \n\n\nMORE=1`)
    git("notes", "add", "-F", ".env")
    const head = git("rev-parse", "HEAD").trim()
    // The note is not the file's blob: a hash of the file alone would not know it.
    expect(git("rev-parse", `refs/notes/commits:${head}`).trim()).not.toBe(git("hash-object", ".env").trim())
    const texts = [await shown("git_show", { rev: `refs/notes/commits:${head}` }), await shown("git_show", { rev: "refs/notes/commits" })]
    expect(texts.map((t) => t.text).filter((t) => t.includes(canary))).toEqual([])
    expect(await scriptAsync("git notes show 2>&1; git log -1 2>&1")).not.toContain(canary)
  }, 180_000)

  for (const cut of ["info/grafts", "shallow"]) {
    it(`a once-committed .env's content under another name, the commit that added .env cut off by ${cut}`, async () => {
      const { root, git, shown } = withSecret()
      git("add", "-f", ".env")
      git("commit", "-q", "-m", "oops")
      git("rm", "-q", "--cached", ".env")
      git("commit", "-q", "-m", "untrack")
      // The old content kept under an innocent name; `.env` itself changed since (its current content is another).
      fs.copyFileSync(path.join(root, ".env"), path.join(root, "kept.txt"))
      fs.writeFileSync(path.join(root, ".env"), "TOKEN=rotated\n")
      git("add", "kept.txt")
      git("commit", "-q", "-m", "keep")
      const head = git("rev-parse", "HEAD").trim()
      // No reflog reaches `oops` any more: only its descendants do, which the cut makes parentless.
      git("reflog", "expire", "--expire=now", "--all")
      fs.writeFileSync(path.join(root, ".git", cut), `${head}\n`)
      const texts = [await shown("git_show", { rev: "HEAD" }), await shown("git_show", { rev: "HEAD:kept.txt" }), await shown("git_log", {})]
      expect(texts.map((t) => t.text).filter((t) => t.includes(canary))).toEqual([])
      expect(texts[0]?.text).toContain("[minicode: diff of secret file kept.txt hidden]")
    }, 180_000)
  }
})
