/**
 * Red team (issue 19), copies of secrets under the names sync clients, merge tools and downloads give them, which
 * the jail does not know (after BackupNames and CopyNames): Dropbox's `.env (Bob's conflicted copy 2024-01-01)`,
 * Nextcloud's `.env (conflicted copy 2024-01-01 123456)`, Syncthing's `id_rsa.sync-conflict-…` (the `.env` one is
 * known), git mergetool's `id_rsa_BACKUP_12345` (`.env_BACKUP_12345` is known), a browser's second download
 * `id_rsa(1)` / `.env(1)` (`.env (1)` with a space is known), macOS's `.env 2` and `terraform.tfstate_BACKUP_1`.
 * read_file and sandboxed bash show them.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { attackFile, attackWorkspace, readEach } from "./support/Attack.js"
import { title, unavailable } from "../support/Sandbox.js"

const cleanups = attackFile()

const names = [
  ".env (Bob's conflicted copy 2024-01-01)",
  ".env (conflicted copy 2024-01-01 123456)",
  "id_rsa.sync-conflict-20240101-123456-ABCDEFG",
  "id_rsa_BACKUP_12345",
  "id_rsa(1)",
  ".env(1)",
  ".env 2",
  "terraform.tfstate_BACKUP_1"
]
const canary = (i: number) => `canary-sync-${i}-x`

describe.skipIf(unavailable !== undefined)(title("secrets' copies under sync-conflict, merge-tool and download names"), () => {
  it("read_file and sandboxed bash show none of them", async () => {
    const ws = attackWorkspace(cleanups)
    names.forEach((name, i) => fs.writeFileSync(path.join(ws.root, name), `TOKEN=${canary(i)}\n`))
    const shown: Array<string> = []
    const read = await readEach(ws, names)
    names.forEach((name, i) => {
      if (read[name]?.includes(canary(i)) !== false) shown.push(`read_file ${name}`)
    })
    const out = ws.script("cat -- * .env* 2>/dev/null; echo read-done")
    expect(out).toContain("read-done")
    names.forEach((name, i) => {
      if (out.includes(canary(i))) shown.push(`bash ${name}`)
    })
    expect(shown).toEqual([])
  })
})
