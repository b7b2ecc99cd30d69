/**
 * The store check remembers every protected file's content it sees, for ever (StoreSecrets). minicode's own state
 * files in `.minicode/` (the journal, the caches, the store check's own state) change on nearly every call, so they
 * made the remembered set grow with use; they are left out (StateDir.isOwnState), a user's file there is not.
 */
import { execFileSync } from "node:child_process"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { assert, describe, it } from "vitest"
import * as SecretObjects from "../../../src/adapters/shell/SecretObjects.js"
import * as StoreSecrets from "../../../src/adapters/shell/StoreSecrets.js"
import * as WorkspaceScan from "../../../src/adapters/shell/WorkspaceScan.js"
import * as StateDir from "../../../src/adapters/fs/StateDir.js"

const blob = (text: string) => createHash("sha1").update(`blob ${Buffer.byteLength(text)}\0`).update(text).digest("hex")

describe("the store check and minicode's own state", () => {
  it("remembers a user's file in .minicode/ and .env, not the journal or the caches, however often they change", () => {
    const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "minicode-ownstate-")))
    try {
      execFileSync("git", ["init", "-q", "-b", "main"], { cwd: root })
      fs.writeFileSync(path.join(root, ".env"), "TOKEN=ENVSECRET\n")
      fs.mkdirSync(path.join(root, ".minicode"))
      fs.writeFileSync(path.join(root, ".minicode", "config.json"), '{"token":"CONFIGSECRET"}\n')
      const own: Array<string> = []
      for (let call = 0; call < 5; call++) {
        for (const name of ["state.db", "state.db-wal", "scan-cache", "secret-history", "gitcontrol.json", `scan-cache.${4000 + call}-ab12cd34.tmp`]) {
          const text = `${name} after call ${call}\n`
          fs.writeFileSync(path.join(root, ".minicode", name), text)
          own.push(blob(text))
        }
        SecretObjects.toHide(root, WorkspaceScan.scan(root))
      }
      const remembered = StoreSecrets.remembered(root)
      assert.isTrue(remembered.has(blob("TOKEN=ENVSECRET\n")), "the workspace's .env is remembered")
      assert.isTrue(remembered.has(blob('{"token":"CONFIGSECRET"}\n')), "the user's config in .minicode/ is remembered")
      for (const id of own) assert.isFalse(remembered.has(id), "an own state file's content is not remembered")
      // The store check's own state files are not remembered either (they are rewritten by the check itself).
      for (const name of fs.readdirSync(path.join(root, ".minicode"))) {
        if (!name.startsWith("secret-objects")) continue
        assert.isFalse(remembered.has(blob(fs.readFileSync(path.join(root, ".minicode", name), "latin1"))), name)
      }
    } finally {
      fs.rmSync(root, { recursive: true, force: true })
    }
  })

  it("names as its own only what minicode writes there", () => {
    for (const name of ["state.db", "state.db-shm", "secret-objects.json", "secret-objects.add", "secret-objects.123.k3j4.tmp", "secret-objects.9.x1.taken", "scan-cache.77-0a1b2c3d.tmp", "gitcontrol.json", ".gitignore"])
      assert.isTrue(StateDir.isOwnState(name), name)
    for (const name of ["config.json", "token", "config.json.123-abc.tmp", "notes.tmp", "state.db.bak", ".env", "secret-objects"])
      assert.isFalse(StateDir.isOwnState(name), name)
  })
})
