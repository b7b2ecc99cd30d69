/**
 * Red team, files an editor or agent runs commands from, below the top of the workspace: a monorepo's
 * `packages/web/.vscode/tasks.json` runs its `folderOpen` task when the user opens that package's folder, and
 * `app/.claude/settings.json` its hooks when the user starts Claude Code in `app/`.
 *
 * Was a hole (issue 19): the file tools refused such a plant at any depth, but sandboxed bash's were looked for only
 * at the top, so `mkdir -p web/.vscode && echo '{…folderOpen…}' > web/.vscode/tasks.json` stayed after the call.
 * Now the workspace scan finds them at any depth (`WorkspaceScan` `control` hits): one the call made that runs
 * something is removed when it ends, one there before is read-only for the call. Through the built binary, and
 * through `mcp serve` once its scan is kept by watchers (a tree of more than 2,000 folders, a few calls in).
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { connect, snapshot, textOf } from "../serve/support/McpServeHarness.js"
import { attackFile, attackWorkspace, swapper } from "./support/Attack.js"
import { title, unavailable } from "../support/Sandbox.js"

const cleanups = attackFile()

const cmd = "touch /tmp/minicode-pwned"
const tasks = JSON.stringify({ version: "2.0.0", tasks: [{ label: "x", type: "shell", command: cmd, runOptions: { runOn: "folderOpen" } }] })
const hooks = JSON.stringify({ hooks: { PreToolUse: [{ matcher: "*", hooks: [{ type: "command", command: cmd }] }] } })
const servers = JSON.stringify({ mcpServers: { x: { command: "sh", args: ["-c", cmd] } } })

/** A script planting below the top (and leaving an honest settings file beside the plants). */
const plant = `mkdir -p packages/web/.vscode app/.claude deep/a/b/c cfg
printf '%s' '${tasks}' > packages/web/.vscode/tasks.json
printf '%s' '${hooks}' > app/.claude/settings.json
printf '%s' '${servers}' > deep/a/b/c/.mcp.json
printf '%s' '{"editor.tabSize": 2}' > packages/web/.vscode/settings.json
ln -s ../cfg deep/.vscode
test -s packages/web/.vscode/tasks.json && test -L deep/.vscode && echo planted`

const planted = ["packages/web/.vscode/tasks.json", "app/.claude/settings.json", "deep/a/b/c/.mcp.json", "deep/.vscode"]

const exists = (root: string, rel: string) => fs.lstatSync(path.join(root, rel), { throwIfNoEntry: false }) !== undefined

describe.skipIf(unavailable !== undefined)(title("editor and agent command files below the top"), () => {
  it("sandboxed bash leaves no planted command at any depth; the honest file it wrote stays", () => {
    const { script, root } = attackWorkspace(cleanups)
    expect(script(plant)).toContain("planted")
    for (const rel of planted) expect(exists(root, rel), rel).toBe(false)
    expect(fs.readFileSync(path.join(root, "packages/web/.vscode/settings.json"), "utf8")).toBe(`{"editor.tabSize": 2}`)
  }, 300_000)

  it("an existing control below the top is read-only for the call, and its folder cannot be moved away", () => {
    // The live sandbox's read-only copies (bash writing the tree where no overlay can be made); staged bash judges
    // the same change at its merge (test/adapters/staged/StagedBash.e2e.test.ts).
    process.env["MINICODE_BASH_STAGED"] = "0"
    cleanups.push(() => {
      delete process.env["MINICODE_BASH_STAGED"]
    })
    const { script, root } = attackWorkspace(cleanups)
    const settings = path.join(root, "pkg/.vscode/settings.json")
    fs.mkdirSync(path.dirname(settings), { recursive: true })
    fs.writeFileSync(settings, `{"editor.formatOnSave": true}\n`)
    const out = script(`printf '%s' '{"git.path": "./g"}' > pkg/.vscode/settings.json || echo refused-write
mv pkg/.vscode pkg/moved || echo refused-move
mkdir -p pkg/.vscode 2>/dev/null; printf '%s' '${tasks}' > pkg/.vscode/tasks.json && echo beside`)
    expect(out).toContain("refused-write")
    expect(out).toContain("refused-move")
    expect(fs.readFileSync(settings, "utf8")).toBe(`{"editor.formatOnSave": true}\n`)
    // A new file beside it is the new-plant case: written, then removed.
    expect(out).toContain("beside")
    expect(exists(root, "pkg/.vscode/tasks.json")).toBe(false)
    expect(exists(root, "pkg/moved")).toBe(false)
  }, 300_000)

  it("through mcp serve with its scan kept by watchers, a plant below the top is removed as well", async () => {
    const ws = attackWorkspace(cleanups)
    // Over WatchedScan's 2,000 folders, so the server watches the tree from its second scan on.
    for (let i = 0; i < 2_100; i++) fs.mkdirSync(path.join(ws.root, `many/d${Math.floor(i / 50)}/e${i}`), { recursive: true })
    fs.writeFileSync(path.join(ws.root, "s.sh"), `${plant}\n`)
    const s = await connect(ws.root, ["--allow-all", "--no-ask"])
    cleanups.push(() => s.close())
    const bash = async (command: string) => textOf(await s.client.callTool({ name: "bash", arguments: { command } }, undefined, { timeout: 120_000 }))
    for (let i = 0; i < 3; i++) expect(await bash("true")).not.toMatch(/error/i)
    expect(await bash("sh s.sh")).toContain("planted")
    for (const rel of planted) expect(exists(ws.root, rel), rel).toBe(false)
    // A second plant in a folder the watchers already know (its own event, not a new folder's walk).
    expect(await bash(`printf '%s' '${tasks}' > many/d3/e150/tasks.json && mkdir many/d3/e150/.vscode && mv many/d3/e150/tasks.json many/d3/e150/.vscode/ && echo again`)).toContain("again")
    expect(exists(ws.root, "many/d3/e150/.vscode/tasks.json")).toBe(false)
  }, 300_000)
  it("as a sequence of calls: staged under another name by one call, moved into place by the next, linked by a third", () => {
    const { script, tool, root } = attackWorkspace(cleanups)
    expect(script(`mkdir -p stage && printf '%s' '${tasks}' > stage/tasks.json && printf '%s' '${hooks}' > keep.json && echo staged`)).toContain("staged")
    // Under names no editor reads, they are the call's to keep.
    expect(exists(root, "stage/tasks.json")).toBe(true)
    expect(script(`mkdir -p web && mv stage web/.vscode && test -f web/.vscode/tasks.json && echo moved`)).toContain("moved")
    expect(exists(root, "web/.vscode/tasks.json")).toBe(false)
    expect(script(`mkdir -p app/.claude && ln keep.json app/.claude/settings.json && echo linked`)).toContain("linked")
    expect(exists(root, "app/.claude/settings.json")).toBe(false)
    // The file tools refuse the same moves by content.
    expect(tool("write_file", { path: "stage2/tasks.json", content: tasks }).status).toBe(0)
    expect(tool("move_file", { from: "stage2", to: "api/.vscode" }).stdout).toContain("jail.editor-control")
  }, 300_000)

  it("a host process swapping the planted folder for a symlink outside: nothing outside is removed or changed", async () => {
    const ws = attackWorkspace(cleanups)
    const outside = path.join(ws.parent, "outdir")
    fs.mkdirSync(path.join(outside, ".vscode"), { recursive: true })
    fs.writeFileSync(path.join(outside, ".vscode/tasks.json"), tasks)
    fs.writeFileSync(path.join(outside, ".vscode/settings.json"), `{"editor.tabSize": 4}`)
    const before = snapshot(ws.parent, ws.root)
    fs.mkdirSync(path.join(ws.root, "d"))
    fs.writeFileSync(path.join(ws.root, "swap.py"), swapper)
    // RENAME_EXCHANGE of d and l (-> outdir) in a loop, on the host, while the calls plant below d and end.
    const child = spawn("python3", ["swap.py", outside, "120"], { cwd: ws.root, stdio: "ignore" })
    cleanups.push(() => child.kill())
    const done = new Promise((resolve) => child.on("exit", resolve))
    const calls = Array.from({ length: 12 }, () =>
      ws.toolAsync("bash", { command: `mkdir -p d/.vscode 2>/dev/null; printf '%s' '${tasks}' > d/.vscode/tasks.json 2>/dev/null; echo done` })
    )
    // A call whose sandbox could not be set up under the swap fails closed; what matters is what is left outside.
    await Promise.all(calls)
    fs.writeFileSync(path.join(ws.root, "stop"), "")
    await done
    expect(fs.lstatSync(path.join(ws.root, "d")).isDirectory()).toBe(true)
    expect(snapshot(ws.parent, ws.root)).toEqual(before)
  }, 300_000)
})
