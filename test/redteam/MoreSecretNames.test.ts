/**
 * Red team (issue 19, "secret names the list misses"), was a hole: credential files by names the jail did not know.
 * `bundle config set --local gems.example.com user:pass` writes Bundler's `.bundle/config` in the project; hub keeps
 * its GitHub token in `.config/hub`; GnuPG 1 its secret keys in `secring.gpg`; the AWS console hands out access keys
 * as `credentials.csv`. read_file showed them and sandboxed bash read them. Through the built binary.
 *
 * Now they are in Jail.ts's `secretNames` / `secretPairs` (the sandbox's scan and ripgrep's exclusions follow).
 * Judged and left out: `.yarnrc.yml` (its `npmAuthToken` is a secret, but most projects commit the file and yarn
 * must read it), `auth.json` outside `.composer/` (too common a name), `known_hosts` and `authorized_keys` (public).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { attackFile, attackWorkspace, readEach } from "./support/Attack.js"
import { title, unavailable } from "../support/Sandbox.js"

const cleanups = attackFile()
const canary = "NAMECANARY"
const names = [".bundle/config", ".config/hub", "secring.gpg", "keys/credentials.csv"]

describe.skipIf(unavailable !== undefined)(title("credential files by names the jail did not know"), () => {
  it("read_file and sandboxed bash show none of them; their folders' other files stay readable", async () => {
    const ws = attackWorkspace(cleanups)
    const { root, script } = ws
    for (const n of names) {
      fs.mkdirSync(path.dirname(path.join(root, n)), { recursive: true })
      fs.writeFileSync(path.join(root, n), `${canary} ${n}\n`)
    }
    fs.writeFileSync(path.join(root, ".bundle/notes.txt"), "plain bundle notes\n")
    const read = await readEach(ws, names)
    expect(names.filter((n) => read[n]?.includes(canary) !== false)).toEqual([])
    const out = script(`for f in ${names.join(" ")}; do cat "$f"; done; cat .bundle/notes.txt`)
    expect(names.filter((n) => out.includes(`${canary} ${n}`))).toEqual([])
    expect(out).toContain("plain bundle notes")
  })
})
