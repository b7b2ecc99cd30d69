/**
 * Moves that change what a symlink at an editor control's name leads to (round 9, after red team 8's
 * `EditorControlAliases`). Were holes on 5f90f8c, each leaving a `folderOpen` task where VS Code reads it:
 * - `a/b/.vscode -> ../cfg` (a relative link), `cfg/tasks.json` written (no control then), move_file `a/b` to `b`:
 *   the moved link now leads to `cfg`;
 * - `.vscode -> config/vscode`: move_file `config` away (the link dangles), then a folder holding `vscode/tasks.json`
 *   moved to `config`: judged by its own names only;
 * - `.vscode -> a/vscode` with `a -> b`: move `a` away, then a symlink `x -> evil` moved to `a`.
 * Now a moved folder is judged by every name the editor reads its entries by (dangling links resolved as far as they
 * go), a symlink at a control folder's name inside it is refused, and a symlink is not moved onto the way a control
 * link resolves (`Aliases.onControlWay`). Sandboxed bash doing the same has its plant removed at the call's end.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { connect, textOf } from "../serve/support/McpServeHarness.js"
import { title, unavailable } from "../support/Sandbox.js"
import { attackFile, attackWorkspace, fileText as text, served, startSwapper } from "./support/Attack.js"

const cleanups = attackFile()

const tasks = JSON.stringify({ version: "2.0.0", tasks: [{ label: "x", type: "shell", command: "touch /tmp/minicode-pwned-moves", runOptions: { runOn: "folderOpen" } }] })

describe("moves that retarget a symlink at an editor control's name", () => {
  it("a folder holding a relative control link, moved so the link leads to a folder the agent wrote", () => {
    const ws = attackWorkspace(cleanups)
    for (const d of ["a/b", "a/cfg", "cfg"]) fs.mkdirSync(path.join(ws.root, d), { recursive: true })
    fs.writeFileSync(path.join(ws.root, "a/cfg/settings.json"), `{"editor.tabSize": 2}`)
    fs.writeFileSync(path.join(ws.root, "a/b/f.txt"), "f\n")
    fs.symlinkSync("../cfg", path.join(ws.root, "a/b/.vscode"))
    expect(ws.tool("write_file", { path: "cfg/tasks.json", content: tasks }).status).toBe(0)
    expect(ws.tool("move_file", { from: "a/b", to: "b" }).stdout).toContain("jail.editor-control")
    expect(text(ws.root, "b/.vscode/tasks.json")).toBeUndefined()
    // Honest: a folder with an ordinary relative link moves.
    fs.symlinkSync("../cfg", path.join(ws.root, "a/b/shared"))
    fs.rmSync(path.join(ws.root, "a/b/.vscode"))
    expect(ws.tool("move_file", { from: "a/b", to: "b" }).status).toBe(0)
    expect(fs.readlinkSync(path.join(ws.root, "b/shared"))).toBe("../cfg")
  }, 60_000)

  it("the folder a control link leads to moved away, then another folder moved in its place", () => {
    const ws = attackWorkspace(cleanups)
    for (const d of ["config/vscode", "evil/vscode", "plain/lib"]) fs.mkdirSync(path.join(ws.root, d), { recursive: true })
    fs.writeFileSync(path.join(ws.root, "config/vscode/settings.json"), "{}")
    fs.writeFileSync(path.join(ws.root, "plain/lib/x.ts"), "export {}\n")
    fs.symlinkSync("config/vscode", path.join(ws.root, ".vscode"))
    expect(ws.tool("write_file", { path: "evil/vscode/tasks.json", content: tasks }).status).toBe(0)
    // Honest: the folder moves away, and a folder with no control files may take its place.
    expect(ws.tool("move_file", { from: "config", to: "old" }).status).toBe(0)
    expect(ws.tool("move_file", { from: "evil", to: "config" }).stdout).toContain("jail.editor-control")
    expect(text(ws.root, ".vscode/tasks.json")).toBeUndefined()
    expect(ws.tool("move_file", { from: "plain", to: "config" }).status).toBe(0)
    // A file moved there is judged by its content as before.
    expect(ws.tool("write_file", { path: "t.json", content: tasks }).status).toBe(0)
    expect(ws.tool("move_file", { from: "t.json", to: "config/vscode/tasks.json" }).stdout).toContain("jail.editor-control")
  }, 60_000)

  it("a symlink on the way a control link resolves, replaced by one to a folder the agent wrote", () => {
    const ws = attackWorkspace(cleanups)
    for (const d of ["b/vscode", "evil/vscode"]) fs.mkdirSync(path.join(ws.root, d), { recursive: true })
    fs.writeFileSync(path.join(ws.root, "b/vscode/settings.json"), "{}")
    fs.symlinkSync("b", path.join(ws.root, "a"))
    fs.symlinkSync("a/vscode", path.join(ws.root, ".vscode"))
    fs.symlinkSync("evil", path.join(ws.root, "x"))
    expect(ws.tool("write_file", { path: "evil/vscode/tasks.json", content: tasks }).status).toBe(0)
    expect(ws.tool("move_file", { from: "a", to: "a2" }).status).toBe(0)
    expect(ws.tool("move_file", { from: "x", to: "a" }).stdout).toContain("jail.editor-control")
    expect(text(ws.root, ".vscode/tasks.json")).toBeUndefined()
    expect(ws.tool("move_file", { from: "evil", to: "a" }).stdout).toContain("jail.editor-control")
    expect(text(ws.root, ".vscode/tasks.json")).toBeUndefined()
    // Honest: an ordinary symlink moves elsewhere.
    expect(ws.tool("move_file", { from: "x", to: "y" }).status).toBe(0)
  }, 60_000)

  it("through one mcp serve: each chain refused, the moves an editor never reads allowed", async () => {
    const ws = attackWorkspace(cleanups)
    for (const d of ["a/b", "a/cfg", "cfg", "config/vscode", "evil/vscode", "l2/vscode"]) fs.mkdirSync(path.join(ws.root, d), { recursive: true })
    fs.writeFileSync(path.join(ws.root, "a/cfg/settings.json"), "{}")
    fs.writeFileSync(path.join(ws.root, "config/vscode/settings.json"), "{}")
    fs.symlinkSync("../cfg", path.join(ws.root, "a/b/.vscode"))
    fs.symlinkSync("config/vscode", path.join(ws.root, ".vscode"))
    fs.symlinkSync("l2", path.join(ws.root, "l"))
    fs.mkdirSync(path.join(ws.root, "pkg"))
    fs.symlinkSync("../l/vscode", path.join(ws.root, "pkg/.vscode"))
    fs.symlinkSync("evil", path.join(ws.root, "x"))
    const s = await connect(ws.root, ["--allow-all", "--no-ask"])
    cleanups.push(() => s.close())
    const call = async (name: string, args: Record<string, unknown>) => textOf(await s.client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 }))
    expect(await call("write_file", { path: "cfg/tasks.json", content: tasks })).toContain("created")
    expect(await call("write_file", { path: "evil/vscode/tasks.json", content: tasks })).toContain("created")
    expect(await call("move_file", { from: "a/b", to: "b" })).toContain("jail.editor-control")
    expect(await call("move_file", { from: "config", to: "old" })).toContain("moved")
    expect(await call("move_file", { from: "evil", to: "config" })).toContain("jail.editor-control")
    expect(await call("move_file", { from: "l", to: "l3" })).toContain("moved")
    expect(await call("move_file", { from: "x", to: "l" })).toContain("jail.editor-control")
    for (const rel of ["b/.vscode/tasks.json", ".vscode/tasks.json", "pkg/.vscode/tasks.json"]) expect(text(ws.root, rel) ?? "").not.toContain("folderOpen")
  }, 120_000)

  it.skipIf(unavailable !== undefined)(title("a second process swapping the folder a control link leads through, while file tools write and move there"), async () => {
    const ws = attackWorkspace(cleanups)
    for (const d of ["d/vscode", "evil/vscode", "pack/vscode"]) fs.mkdirSync(path.join(ws.root, d), { recursive: true })
    fs.writeFileSync(path.join(ws.root, "d/vscode/settings.json"), "{}")
    fs.writeFileSync(path.join(ws.root, "evil/vscode/settings.json"), "{}")
    fs.symlinkSync("d/vscode", path.join(ws.root, ".vscode"))
    // Sandboxed bash exchanging `d` with `l -> evil` in a loop (renameat2 RENAME_EXCHANGE), from its own process.
    const stop = await startSwapper(cleanups, ws.root, path.join(ws.root, "evil"), ws.tool)
    const outs: Array<string> = []
    // The rounds through one `mcp serve` (a few ms a call, so many more of them land mid-swap than the 8 rounds of
    // CLI processes this made before, ~1-3 s a call), then two rounds through the CLI as a user runs it.
    const s = await served(cleanups, ws.root)
    const round = async (call: (name: string, args: Record<string, unknown>) => Promise<string>) => {
      outs.push(await call("write_file", { path: "d/vscode/tasks.json", content: tasks }))
      outs.push(await call("write_file", { path: "pack/vscode/tasks.json", content: tasks }))
      outs.push(await call("move_file", { from: "pack", to: "d" }))
      fs.rmSync(path.join(ws.root, "pack/vscode/tasks.json"), { force: true })
    }
    for (let i = 0; i < 60; i++) await round(async (name, args) => (await s.call(name, args)).text)
    await s.close()
    for (let i = 0; i < 2; i++) await round(async (name, args) => (await ws.toolAsync(name, args)).stdout)
    await stop()
    // Whatever a call saw mid-swap, what the editor reads at `.vscode` when the calls are over runs nothing.
    expect(fs.lstatSync(path.join(ws.root, "d")).isDirectory()).toBe(true)
    expect(text(ws.root, ".vscode/tasks.json") ?? "").not.toContain("folderOpen")
    expect(outs.join("\n")).toContain("jail.editor-control")
  }, 320_000)

  it.skipIf(unavailable !== undefined)(title("sandboxed bash doing the same: the plant does not stay"), () => {
    const ws = attackWorkspace(cleanups)
    for (const d of ["a/b", "a/cfg", "b2/vscode", "evil/vscode"]) fs.mkdirSync(path.join(ws.root, d), { recursive: true })
    fs.writeFileSync(path.join(ws.root, "a/cfg/settings.json"), "{}")
    fs.writeFileSync(path.join(ws.root, "b2/vscode/settings.json"), "{}")
    fs.symlinkSync("../cfg", path.join(ws.root, "a/b/.vscode"))
    fs.symlinkSync("b2", path.join(ws.root, "l"))
    fs.symlinkSync("l/vscode", path.join(ws.root, ".vscode"))
    const out = ws.script(`mkdir -p cfg && printf '%s' '${tasks}' > cfg/tasks.json
printf '%s' '${tasks}' > evil/vscode/tasks.json
mv a/b b && mv l l2 && ln -s evil l
grep -l folderOpen b/.vscode/tasks.json .vscode/tasks.json`)
    expect(out).toContain("b/.vscode/tasks.json")
    expect(out).toMatch(/(^|\\n|\n)\.vscode\/tasks\.json/)
    expect(text(ws.root, "b/.vscode/tasks.json") ?? "").not.toContain("folderOpen")
    expect(text(ws.root, ".vscode/tasks.json") ?? "").not.toContain("folderOpen")
  }, 120_000)
})
