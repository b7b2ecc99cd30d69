/**
 * Red team (issue 19), a hole: git_show prints a commit's notes inline (`Notes:` after the message), and a note whose
 * blob is a protected file's content is shown whole. git_show hides a patch section or `<rev>:<path>` whose blob id
 * ever sat at a secret path, but the notes git itself prints under the message are not a section, so the filter never
 * looks at them; the same blob through `refs/notes/commits` is hidden. Sandboxed bash already refuses it (the store
 * is masked since the blob is in the history), so only the git tool leaks.
 *
 * The user's own steps: `.env` committed by mistake, a note written from it (`git notes add -F .env`, or `-C` its
 * blob), the file then untracked. Through the built binary (allow-all, default sandbox).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { attackFile, attackWorkspace } from "./support/Attack.js"

const canary = "NOTESCANARY"
const cleanups = attackFile()

describe("git notes holding a secret's blob", () => {
  it("git_show of the annotated commit does not print the secret's content as its note", () => {
    const { root, git, tool } = attackWorkspace(cleanups)
    fs.writeFileSync(path.join(root, ".env"), `TOKEN=${canary}\n`)
    git("add", "-f", ".env")
    git("commit", "-q", "-m", "oops")
    git("notes", "add", "-F", ".env")
    git("rm", "-q", "--cached", ".env")
    git("commit", "-q", "-m", "untrack .env")
    // The same blob through its notes path is hidden: the filter knows it as a secret's.
    const viaNotesRef = tool("git_show", { rev: "refs/notes/commits" })
    expect(viaNotesRef.status).toBe(0)
    expect(viaNotesRef.stdout).not.toContain(canary)
    const shown = tool("git_show", { rev: "HEAD~1" })
    expect(shown.stdout + shown.stderr).not.toContain(canary)
  })
})
