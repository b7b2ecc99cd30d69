/**
 * The store check remembers every protected file's content it sees, for ever (StoreSecrets). minicode's own files in
 * `.minicode/` (the journal) change on nearly every call, so they made the remembered set grow with use; they are left
 * out (StateDir.isOwnState), a user's file there is not. The caches and records are no longer in the workspace
 * (StateHome); one found in `.minicode/` (a clone's) is data like the user's files.
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
import { stateOf } from "../../support/StateHome.js"

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
        for (const name of ["state.db", "state.db-wal", "state.db-shm"]) {
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
      for (const name of fs.readdirSync(stateOf(root))) {
        if (!name.startsWith("secret-objects")) continue
        assert.isFalse(remembered.has(blob(fs.readFileSync(path.join(stateOf(root), name), "latin1"))), name)
      }
      assert.deepStrictEqual(fs.readdirSync(path.join(root, ".minicode")).filter((n) => n.startsWith("secret-objects")), [], "nothing of the store check's in the workspace")
    } finally {
      fs.rmSync(root, { recursive: true, force: true })
    }
  })

  it("names as its own only what minicode writes there", () => {
    for (const name of ["state.db", "state.db-shm", "state.db-wal", "state.db-journal", ".gitignore"]) assert.isTrue(StateDir.isOwnState(name), name)
    // A record or cache found there is not minicode's (they live outside the workspace now): data, like the user's.
    for (const name of ["config.json", "token", "config.json.123-abc.tmp", "notes.tmp", "state.db.bak", ".env", "secret-objects", "gitcontrol.json", "editorcontrols.json", "scan-cache", "secret-objects.json", "exposed.json", "scan-cache.77-0a1b2c3d.tmp"])
      assert.isFalse(StateDir.isOwnState(name), name)
  })
})
