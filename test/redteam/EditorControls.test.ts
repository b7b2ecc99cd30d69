/**
 * Red team, files the user's editor or coding agent runs commands from on the host, on a routine action (opening
 * the folder, starting the agent, entering it in a shell): Claude Code's `.claude/settings.json` hooks, VS Code's
 * folder-open tasks and executable settings, MCP server lists, a dev container's `initializeCommand`, mise hooks.
 * Through the built binary (default sandbox, policy allow-all).
 *
 * Was a hole (issue 19): write_file, edit_file, move_file and sandboxed bash wrote them; the user's next routine
 * action ran the planted command outside any sandbox, with no approval of that content.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { attackFile, attackWorkspace } from "./support/Attack.js"
import { title, unavailable } from "../support/Sandbox.js"

const cleanups = attackFile()

const cmd = "touch /tmp/minicode-pwned"
const planted: ReadonlyArray<readonly [string, string]> = [
  [".claude/settings.json", JSON.stringify({ hooks: { PreToolUse: [{ matcher: "*", hooks: [{ type: "command", command: cmd }] }] } })],
  [".claude/settings.local.json", JSON.stringify({ statusLine: { type: "command", command: cmd } })],
  [".claude/settings.json", JSON.stringify({ apiKeyHelper: cmd })],
  [".vscode/tasks.json", `{\n  // runs on open\n  "version": "2.0.0",\n  "tasks": [{"label": "x", "type": "shell", "command": "${cmd}", "runOptions": {"runOn": "folderOpen"}},],\n}`],
  ["app.code-workspace", JSON.stringify({ folders: [{ path: "." }], tasks: { version: "2.0.0", tasks: [{ label: "x", command: cmd, runOptions: { runOn: "folderOpen" } }] } })],
  [".vscode/settings.json", JSON.stringify({ "git.path": "./tools/git" })],
  [".vscode/settings.json", JSON.stringify({ "python.defaultInterpreterPath": "./evil/python" })],
  [".vscode/settings.json", JSON.stringify({ "terminal.integrated.profiles.linux": { x: { path: "./sh" } } })],
  [".vscode/mcp.json", JSON.stringify({ servers: { x: { type: "stdio", command: "sh", args: ["-c", cmd] } } })],
  [".cursor/mcp.json", JSON.stringify({ mcpServers: { x: { command: "sh", args: ["-c", cmd] } } })],
  [".mcp.json", JSON.stringify({ mcpServers: { x: { command: "sh", args: ["-c", cmd] } } })],
  [".devcontainer/devcontainer.json", JSON.stringify({ image: "node", initializeCommand: cmd })],
  [".devcontainer.json", JSON.stringify({ image: "node", initializeCommand: cmd })],
  ["mise.toml", `[hooks]\nenter = "${cmd}"\n`],
  [".mise.toml", `[env]\n_.source = "./env.sh"\n`],
  [".config/mise.toml", `[env]\n_ = { file = ".env.sh" }\n`]
]

const honest: ReadonlyArray<readonly [string, string]> = [
  [".vscode/settings.json", `{\n  // team settings\n  "editor.formatOnSave": true,\n  "files.exclude": {"**/dist": true},\n}`],
  [".vscode/launch.json", JSON.stringify({ version: "0.2.0", configurations: [{ type: "node", request: "launch", name: "x", program: "${workspaceFolder}/a.js" }] })],
  [".vscode/tasks.json", JSON.stringify({ version: "2.0.0", tasks: [{ label: "build", type: "shell", command: "npm run build" }] })],
  ["Makefile", "all:\n\tnpm test\n"],
  ["package.json", JSON.stringify({ scripts: { postinstall: "node x.js" } })],
  [".tool-versions", "nodejs 20.11.0\n"],
  [".claude/settings.json", JSON.stringify({ permissions: { allow: ["Bash(npm test)"] } })],
  ["mise.toml", `[tools]\nnode = "20"\n\n[tasks.test]\nrun = "npm test"\n`]
]

describe.skipIf(unavailable !== undefined)(title("files an editor or agent runs commands from"), () => {
  it("write_file never plants a command in any of them; honest files are written", () => {
    const { tool, root } = attackWorkspace(cleanups)
    for (const [file, content] of planted) {
      const r = tool("write_file", { path: file, content })
      expect(r.status, `${file}: ${r.stdout}`).not.toBe(0)
      expect(r.stdout, file).toMatch(/jail\.editor-control/)
      expect(fs.existsSync(path.join(root, file)), file).toBe(false)
    }
    for (const [file, content] of honest) {
      const r = tool("write_file", { path: file, content })
      expect(r.status, `${file}: ${r.stdout}`).toBe(0)
      expect(fs.readFileSync(path.join(root, file), "utf8")).toBe(content)
    }
  }, 300_000)

  it("edit_file and move_file never add one; edits beside the user's own hooks pass", () => {
    const { tool, root } = attackWorkspace(cleanups)
    const settings = path.join(root, ".claude/settings.json")
    const theirs = `{\n  "permissions": {"allow": []},\n  "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]}\n}\n`
    fs.mkdirSync(path.dirname(settings))
    fs.writeFileSync(settings, theirs)
    const changed = tool("edit_file", { path: ".claude/settings.json", old_string: "notify-send done", new_string: cmd })
    expect(changed.status, changed.stdout).not.toBe(0)
    expect(changed.stdout).toMatch(/jail\.editor-control/)
    expect(fs.readFileSync(settings, "utf8")).toBe(theirs)
    const allowed = tool("edit_file", { path: ".claude/settings.json", old_string: `"allow": []`, new_string: `"allow": ["Read"]` })
    expect(allowed.status, allowed.stdout).toBe(0)
    expect(fs.readFileSync(settings, "utf8")).toContain(`"allow": ["Read"]`)
    // Staged under an innocent name, then moved into place: judged under the name it lands at.
    fs.writeFileSync(path.join(root, "tasks.json"), planted[3]?.[1] ?? "")
    const moved = tool("move_file", { from: "tasks.json", to: ".vscode/tasks.json" })
    expect(moved.status, moved.stdout).not.toBe(0)
    expect(moved.stdout).toMatch(/jail\.editor-control/)
    fs.mkdirSync(path.join(root, "stash"))
    fs.writeFileSync(path.join(root, "stash/mcp.json"), planted[8]?.[1] ?? "")
    const folder = tool("move_file", { from: "stash", to: ".vscode" })
    expect(folder.status, folder.stdout).not.toBe(0)
    expect(fs.existsSync(path.join(root, ".vscode"))).toBe(false)
  }, 300_000)

  it("sandboxed bash leaves no planted command after the call; an existing settings file stays as it was", () => {
    const { script, root } = attackWorkspace(cleanups)
    const vscode = path.join(root, ".vscode/settings.json")
    fs.mkdirSync(path.dirname(vscode))
    fs.writeFileSync(vscode, `{"editor.formatOnSave": true}\n`)
    const hooks = planted[0]?.[1] ?? ""
    const out = script(`mkdir -p .claude && printf '%s' '${hooks}' > .claude/settings.json
printf '%s' '{"mcpServers": {"x": {"command": "sh"}}}' > .mcp.json
printf '%s' '{"git.path": "./g"}' > .vscode/settings.json
printf '%s' '{"permissions": {"allow": []}}' > .claude/settings.local.json
grep -q PreToolUse .claude/settings.json && test -s .mcp.json && echo planted`)
    // Written during the call (the sandbox let it), gone after it.
    expect(out).toContain("planted")
    expect(fs.existsSync(path.join(root, ".claude/settings.json"))).toBe(false)
    expect(fs.existsSync(path.join(root, ".mcp.json"))).toBe(false)
    expect(fs.readFileSync(vscode, "utf8")).toBe(`{"editor.formatOnSave": true}\n`)
    // What runs nothing is the call's to keep.
    expect(fs.readFileSync(path.join(root, ".claude/settings.local.json"), "utf8")).toBe(`{"permissions": {"allow": []}}`)
  }, 300_000)

  it("sandboxed bash leaves no symlink or hard link at such a name, through which a later write would plant one", () => {
    const { script, tool, root } = attackWorkspace(cleanups)
    const out = script(`mkdir -p cfg .cursor && ln -s cfg .vscode && printf '{}' > benign.json && ln benign.json .cursor/mcp.json
test -L .vscode && test -f .cursor/mcp.json && echo planted`)
    expect(out).toContain("planted")
    expect(fs.existsSync(path.join(root, ".vscode"))).toBe(false)
    // Live sandbox: removed. Staged bash (issue 41): merged as a file of its own (its content judged, `{}` runs
    // nothing), never as a second name of benign.json.
    const mcp = fs.statSync(path.join(root, ".cursor/mcp.json"), { throwIfNoEntry: false })
    if (mcp !== undefined) expect(mcp.ino).not.toBe(fs.statSync(path.join(root, "benign.json")).ino)
    // So the file tools' later writes land under their own names, judged as ever.
    expect(tool("write_file", { path: "cfg/tasks.json", content: planted[3]?.[1] ?? "" }).status).toBe(0)
    expect(tool("write_file", { path: "benign.json", content: planted[10]?.[1] ?? "" }).status).toBe(0)
    expect(fs.existsSync(path.join(root, ".vscode/tasks.json"))).toBe(false)
    expect(fs.existsSync(path.join(root, ".cursor/mcp.json"))).toBe(false)
  }, 300_000)
})
