/**
 * Red team (issue 19), held: `minicode undo` and `redo` while sandboxed bash swaps the folder they restore into
 * with a symlink to a folder outside (`renameat2(RENAME_EXCHANGE)` in a loop, `support/Attack.ts` swapper). The
 * outside folder holds files of the same names: a restore that followed the swapped-in link would delete or
 * rewrite them, or create new ones there. StateDirLink.test.ts checks undo after a swap that has happened; this
 * one races the restore itself (the jail's check and the write on descriptors).
 *
 * Invariant: whatever the interleaving, undo and redo change nothing outside the workspace.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { bin } from "../serve/support/McpServeHarness.js"
import { runCli } from "../support/Cli.js"
import { attackFile, attackWorkspace, startSwapper } from "./support/Attack.js"
import { title, unavailable } from "../support/Sandbox.js"

const cleanups = attackFile()

describe.skipIf(unavailable !== undefined)(title("undo and redo while bash swaps their folder for a symlink outside"), () => {
  it("nothing outside is removed, changed or created", async () => {
    const { root, parent, tool, toolAsync } = attackWorkspace(cleanups)
    const outside = path.join(parent, "outdir")
    fs.mkdirSync(outside)
    const names = Array.from({ length: 8 }, (_, i) => `u${i}.txt`)
    for (const n of names) fs.writeFileSync(path.join(outside, n), "OUTSIDE\n")
    fs.mkdirSync(path.join(root, "d"))
    const before = Object.fromEntries(fs.readdirSync(outside).map((n) => [n, fs.readFileSync(path.join(outside, n), "utf8")]))
    const restore = (action: "undo" | "redo") => runCli(bin, [action, "--cwd", root], { timeoutMs: 120_000 })
    // Honest first: undo removes the file a turn created, redo brings it back.
    expect((await toolAsync("write_file", { path: "d/first.txt", content: "one\n" })).status).toBe(0)
    expect((await restore("undo")).status).toBe(0)
    expect(fs.existsSync(path.join(root, "d/first.txt"))).toBe(false)
    expect((await restore("redo")).status).toBe(0)
    expect(fs.readFileSync(path.join(root, "d/first.txt"), "utf8")).toBe("one\n")
    const stop = await startSwapper(cleanups, root, outside, tool)
    const outcomes: Array<string> = []
    for (let i = 0; i < 40; i++) {
      const n = names[i % names.length] ?? "u0.txt"
      outcomes.push(String((await toolAsync("write_file", { path: `d/${n}`, content: `inside ${i}\n` })).status))
      outcomes.push(String((await restore("undo")).status))
      outcomes.push(String((await restore("redo")).status))
    }
    await stop()
    const after = Object.fromEntries(fs.readdirSync(outside).map((n) => [n, fs.readFileSync(path.join(outside, n), "utf8")]))
    expect(after).toEqual(before)
    // The race had teeth: some calls met the swapped-in link and failed.
    expect(outcomes.filter((s) => s !== "0").length).toBeGreaterThan(0)
    expect(outcomes.filter((s) => s === "0").length).toBeGreaterThan(0)
    expect(fs.lstatSync(path.join(root, "d")).isDirectory()).toBe(true)
    // 120 CLI runs racing the swapper: ~3 min alone, past 10 at a load of 10 on 2 cores.
  }, 1_200_000)
})
