/**
 * Red team (issue 19), a hole: a hard link to `.env` that was there before minicode started (a backup tool, `cp -l`,
 * `ln .env notes.txt` by the user) is the secret's very file under an unprotected name. The jail judges names and
 * refuses only to WRITE a file with several links (Jail `jail.hardlink`); a read of the other name, grep's walk and the
 * sandbox's mask scan (which masks by name) all let the content through. BashReach covers a link made inside the
 * sandbox, which the masked mount refuses; this one needs no call at all.
 *
 * Through the built binary (allow-all, default sandbox).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { attackFile, attackWorkspace } from "./support/Attack.js"
import { title, unavailable } from "../support/Sandbox.js"

const canary = "HARDLINKCANARY"
const cleanups = attackFile()

const linked = () => {
  const ws = attackWorkspace(cleanups)
  fs.writeFileSync(path.join(ws.root, ".env"), `TOKEN=${canary}\n`)
  fs.mkdirSync(path.join(ws.root, "docs"))
  fs.linkSync(path.join(ws.root, ".env"), path.join(ws.root, "docs/notes.txt"))
  return ws
}

describe("a hard link to a secret made before minicode started", () => {
  it("read_file of the other name does not show the secret", () => {
    const { tool } = linked()
    const r = tool("read_file", { path: "docs/notes.txt" })
    expect(r.stdout + r.stderr).not.toContain(canary)
  })

  it("grep does not print the secret's line", () => {
    const { tool } = linked()
    const r = tool("grep", { pattern: "TOKEN" })
    expect(r.stdout + r.stderr).not.toContain(canary)
  })

  it.skipIf(unavailable !== undefined)(title("sandboxed bash cannot cat the other name"), () => {
    const { script } = linked()
    expect(script("cat docs/notes.txt")).not.toContain(canary)
  })
})
