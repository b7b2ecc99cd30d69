/**
 * Red team (issue 19), a hole: a protected symlink's target (`.env -> env/development`) is protected in the working
 * tree (ScanAliases) and git_show refuses `rev:path` when the blob is the target's CURRENT content ("the same blob
 * sits at a secret path"), but not an EARLIER revision of it: the history check judges paths by name only, and
 * `env/development` is no secret name.
 *
 * Chain (one-shot CLI, allow-all, default sandbox): the user committed `.env -> env/development` and the file, then
 * rotated the key (edited env/development). git_show `HEAD:env/development` prints the old key; git_show `HEAD` (the
 * patch) hides `.env`'s diff but prints env/development's hunk. Violates: no tool output contains a protected file's
 * content at any revision, in any patch.
 *
 * The same for a hard link (`docs/notes.txt`, a second name of `.env`, committed under that name; the key then rotated
 * in place): git_show `HEAD:docs/notes.txt` and `HEAD` print the old key.
 *
 * Held: sandboxed bash's `git show`/`git log -p` (the object store is hidden from bash when history holds a protected
 * file); git_diff --staged (hidden as a secret file's diff).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { attackFile, attackWorkspace } from "./support/Attack.js"
import { title } from "../support/Sandbox.js"

const canary = "ALIASHISTORYCANARY"
const cleanups = attackFile()

const rotated = () => {
  const ws = attackWorkspace(cleanups)
  fs.mkdirSync(path.join(ws.root, "env"))
  fs.writeFileSync(path.join(ws.root, "env/development"), `TOKEN=${canary}\n`)
  fs.symlinkSync("env/development", path.join(ws.root, ".env"))
  ws.git("add", "-A")
  ws.git("commit", "-q", "-m", "env")
  // The key rotated: the committed blob is no longer the target's current content.
  fs.writeFileSync(path.join(ws.root, "env/development"), "TOKEN=rotated\n")
  return ws
}

describe(title("an earlier revision of a protected symlink's target through the git tools"), () => {
  it("git_show HEAD:env/development does not print the old secret", () => {
    const { tool } = rotated()
    // Holds today: the target itself is refused to read_file.
    expect(tool("read_file", { path: "env/development" }).stdout).not.toContain("rotated")
    const r = tool("git_show", { rev: "HEAD:env/development" })
    expect(r.stdout + r.stderr).not.toContain(canary)
  }, 30_000)

  it("git_show HEAD (the patch) does not print the old secret's hunk", () => {
    const { tool } = rotated()
    const r = tool("git_show", { rev: "HEAD" })
    expect(r.stdout + r.stderr).not.toContain(canary)
  }, 30_000)

  it("a hard link to .env committed as docs/notes.txt, the key rotated: git_show does not print the old key", () => {
    const ws = attackWorkspace(cleanups)
    fs.writeFileSync(path.join(ws.root, ".env"), `TOKEN=${canary}\n`)
    fs.mkdirSync(path.join(ws.root, "docs"))
    fs.linkSync(path.join(ws.root, ".env"), path.join(ws.root, "docs/notes.txt"))
    ws.git("add", "docs")
    ws.git("commit", "-q", "-m", "docs")
    fs.writeFileSync(path.join(ws.root, ".env"), "TOKEN=rotated\n")
    for (const rev of ["HEAD:docs/notes.txt", "HEAD"]) {
      const r = ws.tool("git_show", { rev })
      expect(r.stdout + r.stderr).not.toContain(canary)
    }
  }, 30_000)

  it("git_diff with a symlink's target and a hard link changed: the diff works, other changes shown, the secrets' withheld", () => {
    const ws = attackWorkspace(cleanups)
    fs.mkdirSync(path.join(ws.root, "env"))
    fs.writeFileSync(path.join(ws.root, "env/development"), `TOKEN=${canary}old\n`)
    fs.symlinkSync("env/development", path.join(ws.root, ".env"))
    fs.mkdirSync(path.join(ws.root, "config"))
    fs.writeFileSync(path.join(ws.root, "config/prod.env"), `K=${canary}linkold\n`)
    fs.linkSync(path.join(ws.root, "config/prod.env"), path.join(ws.root, "notes.txt"))
    fs.writeFileSync(path.join(ws.root, "app.js"), "one\n")
    ws.git("add", "-A")
    ws.git("commit", "-q", "-m", "init")
    fs.writeFileSync(path.join(ws.root, "env/development"), `TOKEN=${canary}new\n`)
    fs.writeFileSync(path.join(ws.root, "config/prod.env"), `K=${canary}linknew\n`)
    fs.writeFileSync(path.join(ws.root, "app.js"), "two\n")
    for (const args of [{}, { staged: true }]) {
      const r = ws.tool("git_diff", args)
      const shown = r.stdout + r.stderr
      expect(shown).not.toContain(canary)
      if ("staged" in args) continue
      expect(r.status, shown).toBe(0)
      expect(shown).toContain("+two")
    }
  }, 60_000)
})
