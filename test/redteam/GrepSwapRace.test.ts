/**
 * Red team (issue 19), was a hole: grep (through ripgrep, the default engine) reads files outside the workspace when a
 * folder is swapped for a symlink to outside while it runs. Through the built binary (default sandbox, allow-all).
 *
 * Sandboxed bash runs a swapper (python3 ctypes `renameat2(RENAME_EXCHANGE)` in a loop) exchanging the real folder
 * `d` with a symlink `l` → a folder outside the workspace holding a file of the same name. Meanwhile, from another
 * process, `grep {"pattern":"line","path":"d"}` (and `grep {"pattern":"line"}` at the root): the jail checks `d`,
 * then rg opens `d/f1.txt` by path (an explicit path argument is followed even when it is a symlink, and files are
 * opened by path while walking), and the `lstat` check afterwards sees the real folder again. Seen: about 1 call in 7
 * printed `d/f1.txt:1:OUTSIDECANARY…`, the outside file's line.
 *
 * GrepRipgrep.ts's header called this an accepted residual race; it broke invariant 2 (nothing outside the workspace
 * is read) and, with a symlink to a folder whose files are named innocently, invariant 1 for content outside.
 *
 * Now rg runs inside the read-only sandbox whenever one is usable (adapters/search/RipgrepSearch.ts `wrap`, from
 * app/NodeLayers.ts textSearch): a swapped-in link leads to a path the sandbox does not show, or masks.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { attackFile, attackWorkspace, startSwapper } from "./support/Attack.js"
import { title, unavailable } from "../support/Sandbox.js"

const canary = "OUTSIDECANARY"
const cleanups = attackFile()

describe.skipIf(unavailable !== undefined)(title("grep while bash swaps a folder for a symlink outside"), () => {
  it("no grep output shows the outside file's content", async () => {
    const { root, parent, tool, toolAsync } = attackWorkspace(cleanups)
    const outside = path.join(parent, "outdir")
    fs.mkdirSync(outside)
    fs.writeFileSync(path.join(outside, "f1.txt"), `${canary} line\n`)
    fs.mkdirSync(path.join(root, "d"))
    fs.writeFileSync(path.join(root, "d/f1.txt"), "inside line\n")
    // Honest first: grep finds the workspace line.
    expect(tool("grep", { pattern: "line", path: "d" }).stdout).toContain("inside line")
    const stop = await startSwapper(cleanups, root, outside, tool)
    const leaks: Array<string> = []
    for (let i = 0; i < 20 && leaks.length === 0; i++) {
      // Not blocking the test worker (a blocked worker misses vitest's messages: an RPC timeout fails the run).
      for (const args of [{ pattern: "line", path: "d" }, { pattern: "line" }]) {
        const r = await toolAsync("grep", args)
        if ((r.stdout + r.stderr).includes(canary)) leaks.push(`${JSON.stringify(args)} → ${r.stdout}`)
      }
    }
    await stop()
    expect(leaks).toEqual([])
    // Rounds of CLI greps racing the swapper: over 5 min at a load of 8 on 2 cores.
  }, 900_000)
})
