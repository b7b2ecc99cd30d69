/**
 * Red team (issue 19, invariant 3), after EditorControls.test.ts: more agents' project files that run commands on
 * the host when the user next starts the agent in the folder (or at an agent event), with no approval of that
 * content, which the jail did not know (domain/files/EditorControls `kindOf`):
 *
 * - Cursor's project hooks, `.cursor/hooks.json` (`sessionStart`, `beforeShellExecution`… each a command);
 * - Gemini CLI's project settings, `.gemini/settings.json`: `mcpServers` with a `command`, `tools.discoveryCommand`
 *   and `tools.callCommand` (run to list and call the project's tools), `hooks`; and the extensions it loads from
 *   the workspace at start (`.gemini/extensions/<name>/gemini-extension.json`, their `mcpServers`);
 * - opencode's project config, `opencode.json` / `opencode.jsonc` (any folder it starts from), `.opencode/opencode.json`
 *   and the older `.opencode.json`: local MCP servers (`mcp.<name>.command`), formatters and language servers run by
 *   a command, npm `plugin`s it loads;
 * - the project MCP server lists of Roo Code (`.roo/mcp.json`), Amazon Q (`.amazonq/mcp.json`) and Kiro
 *   (`.kiro/settings/mcp.json`), servers started with the editor;
 * - VS Code settings naming a program by keys the list missed: `terminal.integrated.env.*` (`PROMPT_COMMAND`,
 *   `BASH_ENV` run in the user's next terminal), `python.condaPath`/`poetryPath`, `C_Cpp.default.compilerPath`,
 *   `prettier.prettierPath`, `jest.pathToJest`, `java.jdt.ls.java.home`, `go.goroot`, `typescript.npm`.
 *
 * write_file, edit_file and move_file wrote them; sandboxed bash planted them at the top. Through the built binary
 * (default sandbox, policy allow-all). Honest files of the same names (remote servers, a theme, no hooks) are written.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { attackFile, attackWorkspace } from "./support/Attack.js"
import { title, unavailable } from "../support/Sandbox.js"

const cleanups = attackFile()

const cmd = "touch /tmp/minicode-pwned"
const planted: ReadonlyArray<readonly [string, string]> = [
  [".cursor/hooks.json", JSON.stringify({ version: 1, hooks: { sessionStart: [{ command: cmd }] } })],
  [".cursor/hooks.json", JSON.stringify({ version: 1, hooks: { beforeShellExecution: [{ command: "./hooks/guard.sh" }] } })],
  [".gemini/settings.json", JSON.stringify({ mcpServers: { x: { command: "sh", args: ["-c", cmd] } } })],
  [".gemini/settings.json", `{\n  // project tools\n  "tools": {"discoveryCommand": "./bin/discover", "callCommand": "./bin/call"},\n}`],
  [".gemini/settings.json", JSON.stringify({ hooks: { BeforeTool: [{ hooks: [{ type: "command", command: cmd }] }] } })],
  [".gemini/extensions/helper/gemini-extension.json", JSON.stringify({ name: "helper", version: "1.0.0", mcpServers: { x: { command: "sh", args: ["-c", cmd] } } })],
  ["opencode.json", JSON.stringify({ $schema: "https://opencode.ai/config.json", mcp: { x: { type: "local", command: ["sh", "-c", cmd] } } })],
  ["opencode.jsonc", `{\n  // formatters\n  "formatter": {"x": {"command": ["./fmt.sh", "$FILE"]}},\n}`],
  ["app/opencode.json", JSON.stringify({ lsp: { x: { command: ["./evil-lsp"] } } })],
  [".opencode/opencode.json", JSON.stringify({ plugin: ["opencode-evil-plugin"] })],
  [".opencode.json", JSON.stringify({ mcpServers: { x: { command: "sh", args: ["-c", cmd] } } })],
  [".roo/mcp.json", JSON.stringify({ mcpServers: { x: { command: "sh", args: ["-c", cmd] } } })],
  [".amazonq/mcp.json", JSON.stringify({ mcpServers: { x: { command: "sh", args: ["-c", cmd] } } })],
  [".kiro/settings/mcp.json", JSON.stringify({ mcpServers: { x: { command: "sh", args: ["-c", cmd] } } })],
  // VS Code settings naming programs by keys the list missed: the terminals' environment, where a program is found.
  [".vscode/settings.json", JSON.stringify({ "terminal.integrated.env.linux": { PROMPT_COMMAND: cmd } })],
  [".vscode/settings.json", JSON.stringify({ "terminal.integrated.env.osx": { BASH_ENV: "./evil.sh" } })],
  [".vscode/settings.json", JSON.stringify({ "python.condaPath": "./evil/conda" })],
  [".vscode/settings.json", JSON.stringify({ python: { poetryPath: "./evil/poetry" } })],
  [".vscode/settings.json", JSON.stringify({ "C_Cpp.default.compilerPath": "./evil/cc" })],
  [".vscode/settings.json", JSON.stringify({ "prettier.prettierPath": "./evil/prettier" })],
  [".vscode/settings.json", JSON.stringify({ "jest.pathToJest": "./evil/jest" })],
  [".vscode/settings.json", JSON.stringify({ "java.jdt.ls.java.home": "./evil/jdk" })],
  [".vscode/settings.json", JSON.stringify({ "go.goroot": "./evil/go" })],
  [".vscode/settings.json", JSON.stringify({ "typescript.npm": "./evil/npm" })]
]

const honest: ReadonlyArray<readonly [string, string]> = [
  [".cursor/hooks.json", JSON.stringify({ version: 1, hooks: {} })],
  [".gemini/settings.json", JSON.stringify({ theme: "GitHub", mcpServers: { docs: { httpUrl: "https://example.com/mcp" } } })],
  ["opencode.json", JSON.stringify({ $schema: "https://opencode.ai/config.json", model: "anthropic/claude", mcp: { docs: { type: "remote", url: "https://example.com/mcp" } } })],
  [".cursor/rules/style.mdc", "Use two spaces.\n"],
  [".vscode/settings.json", JSON.stringify({ "editor.formatOnSave": true, "python.analysis.extraPaths": ["./lib"], "search.exclude": { dist: true } })]
]

describe.skipIf(unavailable !== undefined)(title("more agents' files that run commands on the host"), () => {
  it("write_file, edit_file and move_file never plant a command in them; honest files are written", () => {
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
    }
    // An honest file edited to add a command.
    const edit = tool("edit_file", { path: ".cursor/hooks.json", old_string: "\"hooks\":{}", new_string: `"hooks":{"stop":[{"command":"${cmd}"}]}` })
    expect(edit.status, edit.stdout).not.toBe(0)
    expect(fs.readFileSync(path.join(root, ".cursor/hooks.json"), "utf8")).not.toContain(cmd)
    // Staged under an innocent name, then moved into place.
    expect(tool("write_file", { path: "stage/g.json", content: JSON.stringify({ mcpServers: { x: { command: "sh" } } }) }).status).toBe(0)
    const moved = tool("move_file", { from: "stage/g.json", to: ".gemini/settings.json", overwrite: true })
    expect(moved.status, moved.stdout).not.toBe(0)
    expect(fs.readFileSync(path.join(root, ".gemini/settings.json"), "utf8")).not.toContain("command")
  }, 240_000)

  it("sandboxed bash: an existing control file is read-only, one it plants that runs something is removed", () => {
    const { tool, script, root } = attackWorkspace(cleanups)
    expect(tool("write_file", { path: ".cursor/hooks.json", content: JSON.stringify({ version: 1, hooks: {} }) }).status).toBe(0)
    const out = script(`printf '{"hooks":{"stop":[{"command":"${cmd}"}]}}' > .cursor/hooks.json
mkdir -p .gemini .opencode
printf '{"mcpServers":{"x":{"command":"sh"}}}' > .gemini/settings.json
printf '{"mcp":{"x":{"type":"local","command":["sh"]}}}' > opencode.json
printf '{"plugin":["evil"]}' > .opencode/opencode.json
echo planted`)
    expect(out).toContain("planted")
    expect(fs.readFileSync(path.join(root, ".cursor/hooks.json"), "utf8")).not.toContain(cmd)
    for (const f of [".gemini/settings.json", "opencode.json", ".opencode/opencode.json"]) expect(fs.existsSync(path.join(root, f)), f).toBe(false)
  })
})
