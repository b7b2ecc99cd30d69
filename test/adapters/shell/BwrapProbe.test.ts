/**
 * bwrap is probed once per process and path, however many sandboxes a session builds (bash, git's reads and
 * commits, servers, the `auto` mode's decision): a counting wrapper around the real bwrap sees one `--version`.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import * as BwrapSandbox from "../../../src/adapters/shell/BwrapSandbox.js"
import { title, unavailable } from "../../support/Sandbox.js"

describe.skipIf(unavailable !== undefined)(title("the bwrap probe"), () => {
  it("runs once for many sandboxes", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "minicode-probe-"))
    try {
      const log = path.join(dir, "calls")
      const wrapper = path.join(dir, "bwrap")
      fs.writeFileSync(wrapper, `#!/bin/sh\necho "$1" >> ${log}\nexec bwrap "$@"\n`, { mode: 0o755 })
      const statuses = await Effect.runPromise(Effect.all(Array.from({ length: 4 }, () => Effect.map(BwrapSandbox.make({ bwrap: wrapper }), (s) => s.status._tag))))
      expect(statuses).toEqual(["Available", "Available", "Available", "Available"])
      expect(fs.readFileSync(log, "utf8").split("\n").filter((l) => l === "--version")).toHaveLength(1)
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})
