/**
 * Red team (issue 19), a secret's patch kept in `.git/COMMIT_EDITMSG` under a quoted path: `git commit -v` leaves the
 * diff below the scissors line, and the sandbox masks that file when a `diff --git`/`+++` line names a protected
 * path (SecretObjects.secretMessages). Git quotes a path with a byte outside printable ASCII (core.quotePath, on by
 * default): `diff --git "a/caf\303\251/.env" "b/caf\303\251/.env"`. The check takes the quoted token as the path, whose
 * last segment is `.env"`, not `.env`: the file stays readable from bash with the secret's lines in it.
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { attackFile, attackWorkspace } from "./support/Attack.js"
import { title, unavailable } from "../support/Sandbox.js"

const canary = "canary-quoted-editmsg"
const cleanups = attackFile()

describe.skipIf(unavailable !== undefined)(title("a secret's patch in COMMIT_EDITMSG under a quoted path"), () => {
  it("git commit -v of café/.env by the user: the message file is not readable from bash", () => {
    const ws = attackWorkspace(cleanups)
    fs.mkdirSync(path.join(ws.root, "café"))
    fs.writeFileSync(path.join(ws.root, "café/.env"), `SECRET=${canary}\n`)
    ws.git("add", "café")
    // The user's verbose commit on the host (the editor writes the message above the kept diff).
    execFileSync("git", ["commit", "-q", "-v"], { cwd: ws.root, env: { ...process.env, GIT_EDITOR: "sed -i '1s/^/add config/'" } })
    expect(fs.readFileSync(path.join(ws.root, ".git/COMMIT_EDITMSG"), "utf8")).toContain(canary)
    const out = ws.script("cat .git/COMMIT_EDITMSG; echo read-done")
    expect(out).toContain("read-done")
    expect(out).not.toContain(canary)
  })

  it("git commit -v of a .env in a folder whose name has a space (not quoted, split at the space): not readable either", () => {
    const ws = attackWorkspace(cleanups)
    fs.mkdirSync(path.join(ws.root, "my conf"))
    fs.writeFileSync(path.join(ws.root, "my conf/.env"), `SECRET=${canary}-space\n`)
    ws.git("add", "my conf")
    execFileSync("git", ["commit", "-q", "-v"], { cwd: ws.root, env: { ...process.env, GIT_EDITOR: "sed -i '1s/^/add config/'" } })
    expect(fs.readFileSync(path.join(ws.root, ".git/COMMIT_EDITMSG"), "utf8")).toContain(`${canary}-space`)
    const out = ws.script("cat .git/COMMIT_EDITMSG; echo read-done")
    expect(out).toContain("read-done")
    expect(out).not.toContain(canary)
  })
})
