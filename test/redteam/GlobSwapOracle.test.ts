/**
 * Red team (issue 19, invariant 2), was a hole: glob walks by path (Walk.ts `byPath`), so while sandboxed bash swaps a
 * workspace folder `d` with a symlink to a folder outside (`renameat2(RENAME_EXCHANGE)` in a loop, from a second CLI
 * process), the walk lists the outside folder. `pathJudge.listed` keeps every outside name out of the list shown,
 * but glob says how many it left out (`[1 match left out: not in a listing of the workspace that follows no link]`):
 * the count is an oracle on the outside folder's names. `glob {"pattern":"OUTSIDEN*"}` gets the note, `OUTSIDEX*`
 * never does, so an agent learns an outside file's name a character at a time (or whether `~/.ssh/id_ed25519`
 * exists). The same walk's other notes (`[truncated: N more matches]`, `stopped after N entries`) count outside
 * entries too. Through the built binary (default sandbox, allow-all).
 *
 * Now glob's one walk (tools/Walk.ts over FileSystem.walkTree) opens each folder relative to its parent's descriptor
 * without following a link, so it never lists the outside folder: what it shows and counts is what a walk that
 * follows no link finds, and there is nothing left out to count.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { attackFile, attackWorkspace, startSwapper } from "./support/Attack.js"
import { title, unavailable } from "../support/Sandbox.js"

const cleanups = attackFile()

describe.skipIf(unavailable !== undefined)(title("glob while bash swaps a folder for a symlink outside"), () => {
  it("glob's output does not depend on the names outside the workspace", async () => {
    const { root, parent, tool } = attackWorkspace(cleanups)
    const outside = path.join(parent, "outdir")
    fs.mkdirSync(outside)
    fs.writeFileSync(path.join(outside, "OUTSIDENAME.txt"), "x\n")
    fs.mkdirSync(path.join(root, "d"))
    fs.writeFileSync(path.join(root, "d/f1.txt"), "inside\n")
    // Honest first: nothing inside matches either pattern.
    const quiet = (pattern: string) => `no files match ${pattern}`
    const text = (r: { readonly stdout: string }) => String((JSON.parse(r.stdout) as { text: unknown }).text).trim()
    for (const pattern of ["OUTSIDEN*", "OUTSIDEX*"]) expect(text(tool("glob", { pattern }))).toBe(quiet(pattern))
    const stop = await startSwapper(cleanups, root, outside, tool)
    const differs: Array<string> = []
    for (let i = 0; i < 40 && differs.length === 0; i++) {
      // Each call is a synchronous CLI run: let the test runner's own messages through between them.
      await new Promise((r) => setTimeout(r, 0))
      const r = tool("glob", { pattern: "OUTSIDEN*" })
      // A call that met `d` as a symlink at its start is refused (jail.symlink-escape); the others must look alike.
      if (r.status === 0 && text(r) !== quiet("OUTSIDEN*")) differs.push(text(r))
    }
    await stop()
    expect(differs).toEqual([])
  }, 320_000)
})
