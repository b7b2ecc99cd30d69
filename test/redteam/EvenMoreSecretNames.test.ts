/**
 * Red team (issue 19), credential files by names the jail does not know yet (after MoreSecretNames): a bare
 * `credentials` file (the AWS CLI's shared credentials format, copied next to a project; issue 19 lists
 * "credentials" among the protected files), Cloudflare Wrangler's `.dev.vars` (its `.env`), Yarn Berry's
 * `.yarnrc.yml` (`npmAuthToken`, Yarn's `.npmrc`) and a `.secrets` file. read_file and sandboxed bash show them.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { attackFile, attackWorkspace, readEach } from "./support/Attack.js"
import { title, unavailable } from "../support/Sandbox.js"

const cleanups = attackFile()

const files: Record<string, string> = {
  credentials: "[default]\naws_access_key_id = AKIAEXAMPLE\naws_secret_access_key = canary-aws-credentials\n",
  ".dev.vars": "API_TOKEN=canary-dev-vars\n",
  ".yarnrc.yml": 'npmAuthToken: "canary-yarnrc"\n',
  ".secrets": "DEPLOY_KEY=canary-dot-secrets\n"
}

describe.skipIf(unavailable !== undefined)(title("credential files by names the jail does not know yet"), () => {
  it("read_file and sandboxed bash show none of them", async () => {
    const ws = attackWorkspace(cleanups)
    for (const [name, content] of Object.entries(files)) fs.writeFileSync(path.join(ws.root, name), content)
    const shown: Array<string> = []
    const read = await readEach(ws, Object.keys(files))
    for (const name of Object.keys(files)) if (read[name]?.includes("canary-") !== false) shown.push(`read_file ${name}`)
    const out = ws.script(`cat ${Object.keys(files).join(" ")} 2>/dev/null; echo read-done`)
    expect(out).toContain("read-done")
    for (const [name, content] of Object.entries(files)) if (out.includes(/canary-[a-z-]+/.exec(content)?.[0] ?? "?")) shown.push(`bash ${name}`)
    expect(shown).toEqual([])
  })
})
