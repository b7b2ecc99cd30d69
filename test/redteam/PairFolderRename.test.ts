/**
 * Red team (issue 19), HOLE: the credential files that are secret only together with their folder (`.docker/
 * config.json`, `.cargo/credentials`, `.m2/settings.xml`, `gh/hosts.yml`, `.config/gcloud/…`, …: `secretPairs` in
 * domain/jail/Jail.ts) are masked in the sandbox as files, but their FOLDER is no mount point. Sandboxed bash renames
 * the folder (`mv .docker dock`; the masked file moves along inside the sandbox, but on the host the real file is now
 * `dock/config.json`), and the next read_file, which judges by name, prints the credentials. Through the built binary
 * (default sandbox, allow-all); the script is written by write_file, so no guard sees the names.
 *
 * move_file refuses the same move (checkContents); only bash can do it. Folders that are secret by themselves
 * (`.ssh`, `.aws`) and every `.git` are mount points and cannot be moved (EBUSY): that held.
 *
 * Suggested fix: adapters/shell/BwrapSandbox.ts / domain/sandbox/SandboxProfile.ts: bind each pair's folder onto
 * itself (a mount point cannot be renamed or removed: EBUSY), as is done for `.git`.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { attackFile, attackWorkspace } from "./support/Attack.js"
import { title, unavailable } from "../support/Sandbox.js"

const canary = "PAIRCANARY"
const cleanups = attackFile()
const pairs = [".docker/config.json", ".cargo/credentials", ".m2/settings.xml", "gh/hosts.yml", ".config/gcloud/credentials.db", ".composer/auth.json", ".oci/config", ".gradle/gradle.properties"]

describe.skipIf(unavailable !== undefined)(title("HOLE: a credential pair's folder renamed from bash"), () => {
  it("after `mv <folder> <folder>_x` in bash, read_file of the moved credentials shows no canary", () => {
    const { root, tool, script } = attackWorkspace(cleanups)
    for (const p of pairs) {
      fs.mkdirSync(path.join(root, path.dirname(p)), { recursive: true })
      fs.writeFileSync(path.join(root, p), `${canary} ${p}\n`)
    }
    const folders = [...new Set(pairs.map((p) => p.split("/")[0] ?? ""))]
    script(`for d in ${folders.join(" ")}; do mv "$d" "\${d}_x"; done; echo moved`)
    const outputs = pairs.map((p) => {
      const [first, ...rest] = p.split("/")
      const r = tool("read_file", { path: [`${first}_x`, ...rest].join("/") })
      return r.stdout + r.stderr
    })
    expect(outputs.filter((o) => o.includes(canary))).toEqual([])
  })
})
