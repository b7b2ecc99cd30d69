/**
 * Red team (issue 19), a hole: a blob holding a protected file's CURRENT content, reachable under a non-secret path,
 * is shown by the git tools. Here `.env` was never committed; the user wrote a note from it (`git notes add -F .env`),
 * so the notes tree holds `.env`'s content at a path named by a commit id. Sandboxed bash refuses it (the store check,
 * adapters/shell/SecretObjects.ts, hashes each masked file's current content and masks the store that holds it), but
 * git_show's filter knows only the blob ids that sat at a secret path in the history or the index, so
 * `refs/notes/commits:<commit>` and the notes commit's patch print the secret (until a bash call has run: its store
 * check's record then seems to reach git_show too, so the order of calls decides).
 * (GitNotesSecret: the same when `.env` WAS committed, where only the inline `Notes:` leaks.)
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { attackFile, attackWorkspace } from "./support/Attack.js"
import { title, unavailable } from "../support/Sandbox.js"

const canary = "CURNOTECANARY"
const cleanups = attackFile()

describe.skipIf(unavailable !== undefined)(title("a note written from a never-committed .env"), () => {
  it("bash cannot read it and neither can git_show, by its path in the notes tree or the notes commit", () => {
    const { root, git, tool, script } = attackWorkspace(cleanups)
    fs.writeFileSync(path.join(root, ".env"), `TOKEN=${canary}\n`)
    git("notes", "add", "-F", ".env")
    const head = git("rev-parse", "HEAD").trim()
    // The first calls of the session, as an agent's might be: the notes blob by its path and the notes commit's patch
    // (the inline `Notes:` of HEAD is GitNotesSecret's hole, left out here).
    const shown = [tool("git_show", { rev: `refs/notes/commits:${head}` }), tool("git_show", { rev: "refs/notes/commits" })].map((r) => r.stdout + r.stderr)
    // Bash: the store holding the masked file's content is hidden (this already holds).
    expect(script("git notes show 2>&1; git log -1 2>&1")).not.toContain(canary)
    expect(shown.filter((s) => s.includes(canary))).toEqual([])
  })
})
