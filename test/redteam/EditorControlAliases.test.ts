/**
 * Red team 8, editor and agent command files (`.vscode/tasks.json` with a `folderOpen` task, `.claude/settings.json`
 * hooks) across overlapping calls and under other names.
 *
 * Were holes on 1f02486:
 * - each writable bash call compared the controls with what it had seen itself when it started, so one present at its
 *   start was never looked at again: a delete_file of `.vscode/tasks.json` while a bash call ran (the call's read-only
 *   bind went with the file) let the call write a `folderOpen` task there, and it stayed; likewise a plant of one call
 *   seen by a second that started meanwhile, removed by the first and written again by the second;
 * - a control folder that is a symlink into the workspace (`.vscode -> config/vscode`, `.claude -> tools/claude`,
 *   committed): write_file and bash wrote `config/vscode/tasks.json` and `tools/claude/settings.json` with commands,
 *   and move_file put a symlink (`cfglink -> config/vscode`) at `.vscode`.
 *
 * Now one record (`.minicode/editorcontrols.json`) holds what every control was when no writable call ran, and each
 * call's end puts back whatever runs something and differs from it (EditorControlsOnDisk); the scan's symlinks at
 * control names tell the jail the names the editor reads a path by (Aliases.controlNames).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { connect, textOf } from "../serve/support/McpServeHarness.js"
import { title, unavailable } from "../support/Sandbox.js"
import { attackFile, attackWorkspace, fileText as text } from "./support/Attack.js"

const cleanups = attackFile()

const cmd = "touch /tmp/minicode-pwned-editor"
const tasks = JSON.stringify({ version: "2.0.0", tasks: [{ label: "x", type: "shell", command: cmd, runOptions: { runOn: "folderOpen" } }] })
const hooks = JSON.stringify({ hooks: { PreToolUse: [{ matcher: "*", hooks: [{ type: "command", command: cmd }] }] } })
const honest = `{"version":"2.0.0","tasks":[]}`

/** A script that waits (up to `seconds`) for `rel` to be gone, then writes `content` there. */
const replant = (rel: string, content: string, seconds: number) =>
  `for i in $(seq 1 ${seconds * 10}); do if [ ! -e ${rel} ]; then mkdir -p $(dirname ${rel}); printf '%s' '${content}' > ${rel} && echo replanted; break; fi; sleep 0.1; done`

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe.skipIf(unavailable !== undefined)(title("editor controls across overlapping calls and through symlinked folders"), () => {
  it("a control deleted by a file tool while a bash call runs: what the call writes there does not stay", async () => {
    const ws = attackWorkspace(cleanups)
    fs.mkdirSync(path.join(ws.root, ".vscode"))
    fs.writeFileSync(path.join(ws.root, ".vscode/tasks.json"), honest)
    expect(ws.tool("write_file", { path: "r.sh", content: `${replant(".vscode/tasks.json", tasks, 20)}\n` }).status).toBe(0)
    const call = ws.toolAsync("bash", { command: "sh r.sh" })
    await sleep(3_000)
    expect(ws.tool("delete_file", { path: ".vscode/tasks.json" }).stdout).toContain("deleted")
    // The live sandbox shows the call the host's deletion and it replants; a staged view may keep showing the file it
    // started with (then nothing is replanted). Either way the plant does not stay.
    expect((await call).stdout).toMatch(/replanted|"ok":true/)
    expect(text(ws.root, ".vscode/tasks.json") ?? "").not.toContain("folderOpen")
  }, 120_000)

  it("two overlapping bash calls: a plant the second saw at its start is not kept by it", async () => {
    const ws = attackWorkspace(cleanups)
    const rel = "pkg/.vscode/tasks.json"
    expect(ws.tool("write_file", { path: "a.sh", content: `mkdir -p pkg/.vscode && printf '%s' '${tasks}' > ${rel} && sleep 4 && echo first\n` }).status).toBe(0)
    expect(ws.tool("write_file", { path: "b.sh", content: `${replant(rel, tasks, 20)}\nsleep 1\n` }).status).toBe(0)
    const first = ws.toolAsync("bash", { command: "sh a.sh" })
    // The second starts once the first has planted.
    for (let i = 0; i < 100 && text(ws.root, rel) === undefined; i++) await sleep(100)
    const second = ws.toolAsync("bash", { command: "sh b.sh" })
    expect((await first).stdout).toContain("first")
    expect((await second).stdout).toContain("replanted")
    expect(text(ws.root, rel)).toBeUndefined()
  }, 120_000)

  it("through one mcp serve, two bash calls in flight: a plant the second saw at its start is not kept by it", async () => {
    const ws = attackWorkspace(cleanups)
    const rel = "app/.claude/settings.json"
    fs.writeFileSync(path.join(ws.root, "a.sh"), `mkdir -p app/.claude && printf '%s' '${hooks}' > ${rel} && sleep 4 && echo first\n`)
    fs.writeFileSync(path.join(ws.root, "b.sh"), `${replant(rel, hooks, 20)}\nsleep 1\n`)
    const s = await connect(ws.root, ["--allow-all", "--no-ask"])
    cleanups.push(() => s.close())
    const bash = async (command: string) => textOf(await s.client.callTool({ name: "bash", arguments: { command } }, undefined, { timeout: 120_000 }))
    const first = bash("sh a.sh")
    for (let i = 0; i < 100 && text(ws.root, rel) === undefined; i++) await sleep(100)
    const second = bash("sh b.sh")
    expect(await first).toContain("first")
    expect(await second).toContain("replanted")
    expect(text(ws.root, rel)).toBeUndefined()
  }, 120_000)

  it("a committed symlink at a control folder's name: its target is a control folder for the file tools and for bash", () => {
    const ws = attackWorkspace(cleanups)
    for (const d of ["config/vscode", "tools/claude", "cfg"]) fs.mkdirSync(path.join(ws.root, d), { recursive: true })
    fs.writeFileSync(path.join(ws.root, "config/vscode/settings.json"), `{"editor.tabSize": 2}`)
    fs.writeFileSync(path.join(ws.root, "cfg/tasks.json"), honest)
    fs.symlinkSync("config/vscode", path.join(ws.root, ".vscode"))
    fs.symlinkSync("tools/claude", path.join(ws.root, ".claude"))
    fs.mkdirSync(path.join(ws.root, "pkg"))
    fs.symlinkSync("../cfg", path.join(ws.root, "pkg/.vscode"))
    fs.symlinkSync("config/vscode", path.join(ws.root, "cfglink"))
    // The file tools: judged by the name the editor reads.
    expect(ws.tool("write_file", { path: "config/vscode/tasks.json", content: tasks }).stdout).toContain("jail.editor-control")
    expect(ws.tool("write_file", { path: "tools/claude/settings.json", content: hooks }).stdout).toContain("jail.editor-control")
    expect(ws.tool("write_file", { path: "cfg/tasks.json", content: tasks }).stdout).toContain("jail.editor-control")
    expect(ws.tool("write_file", { path: "tools/claude/settings.json", content: `{"permissions":{}}` }).status).toBe(0)
    // mise reads .config/mise.toml, and .config may be a dotfiles folder's link at any depth.
    fs.mkdirSync(path.join(ws.root, "dotfiles/config"), { recursive: true })
    fs.mkdirSync(path.join(ws.root, "app"))
    fs.symlinkSync("../dotfiles/config", path.join(ws.root, "app/.config"))
    expect(ws.tool("write_file", { path: "dotfiles/config/mise.toml", content: `[hooks]\nenter = "${cmd}"\n` }).stdout).toContain("jail.editor-control")
    // A symlink moved to a control folder's name.
    fs.rmSync(path.join(ws.root, ".vscode"))
    expect(ws.tool("write_file", { path: "config/vscode/tasks.json", content: tasks }).status).toBe(0)
    expect(ws.tool("move_file", { from: "cfglink", to: ".vscode" }).stdout).toContain("jail.editor-control")
    fs.rmSync(path.join(ws.root, "config/vscode/tasks.json"))
    fs.symlinkSync("config/vscode", path.join(ws.root, ".vscode"))
    // Sandboxed bash: the target's controls read-only, new ones removed when the call ends.
    const out = ws.script(`printf '%s' '${tasks}' > config/vscode/tasks.json
printf '%s' '${hooks}' > tools/claude/settings.json
printf '%s' '${tasks}' > cfg/tasks.json 2>/dev/null || echo read-only
printf '%s' '{"git.path": "./g"}' > config/vscode/settings.json 2>/dev/null || echo read-only-too
echo planted`)
    expect(out).toContain("planted")
    // Live sandbox: the targets' controls are read-only copies. Staged bash (issue 41): the merge judges each change by
    // the name the editor reads it by, and refuses it.
    expect(out).toMatch(/read-only|refused cfg\/tasks\.json \(jail\.editor-control\)/)
    expect(out).toMatch(/read-only-too|refused config\/vscode\/settings\.json \(jail\.editor-control\)/)
    expect(text(ws.root, "config/vscode/tasks.json")).toBeUndefined()
    expect(text(ws.root, "tools/claude/settings.json")).toBe(`{"permissions":{}}`)
    expect(text(ws.root, "cfg/tasks.json")).toBe(honest)
    expect(text(ws.root, "config/vscode/settings.json")).toBe(`{"editor.tabSize": 2}`)
  }, 180_000)
})
