/**
 * Red team (issue 19, "secret names the list misses"), was a hole: copies of secret files under the names editors,
 * tools and people give them were not protected. Emacs leaves `.env~` and `#.env#`, Terraform `terraform.tfstate.<time>.backup`,
 * people `id_rsa.bak`, `.npmrc.bak`, `server.key.bak`, `.env-prod`. read_file (and grep, and bash) showed their content.
 * Through the built binary (default sandbox, allow-all).
 *
 * Now Jail's `undecorated` strips those decorations (`~`, `#…#`, `.bak`, `.orig`, `.<digits>`, …) and judges each name it
 * is a copy of, and `.env-*` / `.env_*` are environment files; the sandbox's scan uses the same rule (protectedName).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { attackFile, attackWorkspace, readEach } from "./support/Attack.js"

const cleanups = attackFile()
const canary = "BACKUPCANARY"
const names = [
  ".env~",
  "#.env#",
  ".env-prod",
  ".env_local",
  "prod.env.bak",
  ".envrc.bak",
  ".npmrc.bak",
  ".pgpass~",
  ".netrc~",
  ".git-credentials.bak",
  "id_rsa.bak",
  "id_ed25519~",
  "server.key.bak",
  "server.pem.orig",
  "credentials.json.old",
  "terraform.tfstate.1699999999.backup"
]

describe("backup copies of secret files", () => {
  it("read_file and grep show none of them", async () => {
    const ws = attackWorkspace(cleanups)
    const { root, tool } = ws
    for (const n of names) fs.writeFileSync(path.join(root, n), `${canary} ${n}\n`)
    const read = await readEach(ws, names)
    const shown = names.filter((n) => read[n]?.includes(canary) !== false)
    expect(shown).toEqual([])
    // grep echoes its pattern when nothing matches: a match line is `name:line:text`.
    expect(tool("grep", { pattern: canary }).stdout).not.toMatch(new RegExp(`:\\d+:${canary}`))
  })
})
