/**
 * rg's sandbox never sets the workspace's watchers (issue 22: 25,000 folders' watchers held ~20 MB for a ~50 ms
 * check): the sandboxed search, composed as the program composes it (`NodeLayers.textSearch`), asks the scan with
 * `watch: false`, and however many searches run, the scan stays the per-folder validation; a bash-like caller's
 * scans (`watch` left true) then set them, and the next search is answered by them. The grep tool's own check of
 * the paths it shows (`ProtectedAliases.of`, asked as a long call) does not set them either, on both engines: it
 * did, from a server's second grep on (the server's peak during the bench's greps: 109-119 MB instead of 92-96).
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import * as ProtectedAliasesScan from "../../src/adapters/shell/ProtectedAliasesScan.js"
import * as WatchedScan from "../../src/adapters/shell/WatchedScan.js"
import * as NodeLayers from "../../src/app/NodeLayers.js"
import { createKernel } from "../../src/index.js"
import { TextSearch } from "../../src/ports/TextSearch.js"
import { title, unavailable } from "../support/Sandbox.js"

const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "minicode-grepwatch-")))
for (let i = 0; i < 20; i++) {
  fs.mkdirSync(path.join(root, `d${i}`, "sub"), { recursive: true })
  fs.writeFileSync(path.join(root, `d${i}`, "sub", "f.txt"), `needle ${i}\n`)
}
const inner = WatchedScan.make({ minFolders: 1 })
const asked: Array<boolean | undefined> = []
const scan: WatchedScan.WatchedScan = { ...inner, scan: (r, watch) => (asked.push(watch), inner.scan(r, watch)) }
afterAll(() => {
  inner.close()
  fs.rmSync(root, { recursive: true, force: true })
})

const search = () =>
  Effect.runPromise(
    Effect.provide(
      Effect.flatMap(TextSearch, (ts) => {
        const files: Array<string> = []
        return Effect.as(
          ts.search({ root, path: root, pattern: "needle", ignoreCase: false, exclude: [], lineBytes: 4096 }, (e) => void (e._tag === "Match" && files.push(e.file))),
          files
        )
      }),
      NodeLayers.textSearch({ mode: "bwrap", bwrap: { scan } })
    )
  )

describe.skipIf(unavailable !== undefined)(title("grep's sandbox and the workspace's watchers"), () => {
  it("searches ask the scan not to set watchers, and stay on the per-folder validation until another call sets them", async () => {
    for (let i = 0; i < 3; i++) {
      expect((await search()).length).toBe(20)
      expect(inner.lastMode(root)).toBe(i === 0 ? "cold" : "stat")
    }
    expect(asked).toEqual([false, false, false])
    // Another caller's scans (bash's) set the watchers; a search is then answered by them.
    await Effect.runPromise(inner.scan(root))
    await Effect.runPromise(inner.scan(root))
    expect(inner.lastMode(root)).toBe("full")
    expect((await search()).length).toBe(20)
    expect(inner.lastMode(root)).toBe("watch")
  })
})

describe.skipIf(unavailable !== undefined)(title("the grep tool and the workspace's watchers"), () => {
  it.each(["rg", "node"] as const)("grep (%s) never sets them, however many times it runs", async (engine) => {
    const own = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "minicode-grepwatch-tool-")))
    for (let i = 0; i < 20; i++) {
      fs.mkdirSync(path.join(own, `d${i}`, "sub"), { recursive: true })
      fs.writeFileSync(path.join(own, `d${i}`, "sub", "f.txt"), `needle ${i}\n`)
    }
    const scanner = WatchedScan.make({ minFolders: 1 })
    const adapters = {
      aliases: ProtectedAliasesScan.layer(scanner),
      textSearch: NodeLayers.textSearch({ mode: "bwrap", bwrap: { scan: scanner } }, engine === "node" ? "node" : undefined)
    }
    const kernel = createKernel({ workspace: own, sandbox: "bwrap", adapters })
    try {
      for (let i = 0; i < 3; i++) {
        const r = await kernel.run("grep", { pattern: "needle" })
        expect(r.ok && r.text.split("\n").length).toBe(20)
        if (i > 0) expect(scanner.lastMode(own)).toBe("stat")
      }
    } finally {
      await kernel.close()
      scanner.close()
      fs.rmSync(own, { recursive: true, force: true })
    }
  })
})
