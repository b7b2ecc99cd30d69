/**
 * Files the user's editor or coding agent runs commands from, on the host, on a routine action (opening the folder,
 * starting the agent, entering the directory), with no approval tied to their content: Claude Code's project
 * settings (`hooks`, `statusLine`, `apiKeyHelper`…), VS Code's tasks run on folder open and settings naming an
 * executable, MCP server lists (`.mcp.json`, `.vscode/mcp.json`, `.cursor/mcp.json`), a dev container's
 * `initializeCommand`, mise's `[hooks]` and `[env] _.source`, Cursor's project hooks, Gemini CLI's project settings
 * (MCP servers, hooks, tool discovery commands), opencode's project config (MCP servers, formatters, language servers,
 * plugins). Pure: the caller hands the workspace-relative path
 * and the texts before and after a change; a change that adds or alters an entry that runs something is refused.
 *
 * Was a hole (issue 19, red team): with `--policy allow-all`, write_file `.claude/settings.json` with a
 * `PreToolUse` hook, or `.vscode/tasks.json` with a `folderOpen` task, ran the planted command outside any sandbox
 * on the user's next start of the agent or opening of the folder.
 */
import * as HookManagers from "./HookManagers.js"
import * as Jsonc from "./Jsonc.js"
import * as MiseToml from "./MiseToml.js"

type EditorKind =
  | "claude-settings" | "vscode-tasks" | "vscode-settings" | "code-workspace" | "mcp-servers" | "devcontainer" | "mise"
  | "cursor-hooks" | "gemini-settings" | "opencode"

/** An editor's or agent's control, or a git-hook manager's (`HookManagers`: same family, same guarantees). */
export type Kind = EditorKind | HookManagers.Kind

/** An entry that runs something: the key it is under and its value as text (its identity, before and after). */
export interface Runner {
  readonly key: string
  readonly value: string
}

export type Found = { readonly ok: true; readonly runners: ReadonlyArray<Runner> } | { readonly ok: false; readonly reason: string }

const lower = (rel: string) => rel.toLowerCase()

/** What kind of control the workspace-relative path is, or undefined (compared without case: macOS's default). */
export const kindOf = (rel: string): Kind | undefined => {
  const p = lower(rel).replace(/^\.\//, "")
  const parts = p.split("/")
  const name = parts[parts.length - 1] ?? ""
  const dir = parts[parts.length - 2]
  const up = parts[parts.length - 3]
  if (dir === ".claude" && (name === "settings.json" || name === "settings.local.json")) return "claude-settings"
  if (dir === ".cursor" && name === "hooks.json") return "cursor-hooks"
  // Gemini CLI's settings, and the extensions it loads from the workspace at start (`.gemini/extensions/<x>/`).
  if ((dir === ".gemini" && name === "settings.json") || name === "gemini-extension.json") return "gemini-settings"
  if (/^opencode\.jsonc?$/.test(name) || name === ".opencode.json") return "opencode"
  if (dir === ".vscode" && name === "tasks.json") return "vscode-tasks"
  if (dir === ".vscode" && name === "settings.json") return "vscode-settings"
  if (name.endsWith(".code-workspace")) return "code-workspace"
  // Project MCP server lists of other editors and agents: Roo Code, Amazon Q, Kiro (`.kiro/settings/mcp.json`).
  if ((([".vscode", ".cursor", ".roo", ".amazonq"].includes(dir ?? "") || (dir === "settings" && up === ".kiro")) && name === "mcp.json") || name === ".mcp.json") return "mcp-servers"
  if (name === ".devcontainer.json" || (name === "devcontainer.json" && (dir === ".devcontainer" || up === ".devcontainer"))) return "devcontainer"
  if (/^\.?(mise|rtx)(\.[^/]+)?\.toml$/.test(name)) return "mise"
  if ((dir === ".config" || dir === "mise" || dir === ".mise") && (name === "mise.toml" || /^config(\.[^/]+)?\.toml$/.test(name))) return "mise"
  if (dir === "conf.d" && up === "mise" && name.endsWith(".toml")) return "mise"
  return HookManagers.kindOf(parts)
}

/**
 * Whether a control of this kind is shown read-only to a writable sandbox (and found by the workspace scan at any
 * depth): all but `package.json`, which `npm install` and the like write (its hook keys are put back at the call's end
 * at the top of the workspace instead, and judged for the file tools at any depth).
 */
export const shownReadOnly = (kind: Kind): boolean => kind !== "package-json"

/**
 * Whether a file name may be a control's at some depth: its extension alone (every kind above is JSON, JSONC, TOML or
 * a `.code-workspace`), cheap enough for every entry of a workspace walk, before `kindOf` is asked of the path.
 */
export const mayBeControl = (name: string): boolean => /\.(jsonc?|toml|code-workspace)$/i.test(name) || HookManagers.mayBeConfig(name)

/** Whether an absolute path may lie in a hook manager's script folder (`.husky/`, `.lefthook/`…): cheap, for a walk. */
export const mayBeScript = HookManagers.mayBeScript

/** The folders a control file sits in: a symlink at one of these names leads a later write of a control into place. */
export const folderNames: ReadonlySet<string> = new Set([".claude", ".vscode", ".cursor", ".gemini", ".opencode", ".roo", ".amazonq", ".kiro", ".devcontainer", ".config", ".mise", "mise", ...HookManagers.scriptFolders])

/** What may stand below a folder for `kindOf` to call it a control: each control's name, and the paths of the deeper ones. */
const probes = ["settings.json", "settings.local.json", "hooks.json", "tasks.json", "mcp.json", "devcontainer.json", "mise.toml", "config.toml", "a.toml", "settings/mcp.json", "a/devcontainer.json", "conf.d/a.toml", "mise/config.toml"]

/**
 * Whether the folder at `rel` (workspace-relative) is one a control file is a control for sitting in: some file below
 * it is a control by that folder's name and would not be elsewhere (`.vscode`, `.kiro/settings`, `mise/conf.d`,
 * `.devcontainer/app`; not `lib`, below which only `.mcp.json` and the like are, which are controls anywhere). A
 * symlink there leads a later write of a control into place. Was a hole: `.kiro/settings -> ../kset` let write_file put
 * `kset/mcp.json` in place, judged by that name only.
 */
export const isControlFolder = (rel: string): boolean =>
  folderNames.has((rel.split("/").pop() ?? "").toLowerCase()) ||
  probes.some((p) => kindOf(`${rel}/${p}`) !== undefined && kindOf(`not-a-control/${p}`) === undefined)

const runner = (key: string, v: Jsonc.Value): Runner => ({ key, value: Jsonc.show(v) })

/** Claude Code's settings keys whose value is a command it runs (or that starts servers/plugins without asking). */
const claudeCommands = new Set([
  "hooks", "statusLine", "apiKeyHelper", "awsCredentialExport", "awsAuthRefresh", "otelHeadersHelper", "fileSuggestion",
  "enableAllProjectMcpServers", "enabledMcpjsonServers", "enabledPlugins", "extraKnownMarketplaces", "mcpServers"
])
/** Environment variables that make a process load or find programs. */
const loaderEnv = /^(PATH|NODE_OPTIONS|LD_PRELOAD|LD_LIBRARY_PATH|DYLD_.*|BASH_ENV|ENV|ZDOTDIR|PYTHONSTARTUP|PYTHONPATH|PERL5OPT|PERL5LIB|RUBYOPT|GIT_.*|SHELL|EDITOR|VISUAL)$/

export const claudeSettings = (root: Jsonc.Value): ReadonlyArray<Runner> => {
  if (root.type !== "object") return []
  const out: Array<Runner> = []
  for (const [k, v] of root.members) {
    if (claudeCommands.has(k) && !Jsonc.isEmpty(v)) out.push(runner(k, v))
    if (k === "env" && v.type === "object") for (const [name, value] of v.members) if (loaderEnv.test(name)) out.push(runner(`env.${name}`, value))
  }
  return out
}

/** VS Code tasks that run by themselves: `runOptions.runOn` other than `default` (in the task or an OS block). */
export const vscodeTasks = (root: Jsonc.Value): ReadonlyArray<Runner> =>
  Jsonc.members(root, "tasks").flatMap((list) =>
    (list.type === "array" ? list.items : []).flatMap((task, n) => {
      const blocks = [task, ...["windows", "linux", "osx"].flatMap((os) => Jsonc.members(task, os))]
      const auto = blocks.some((b) =>
        Jsonc.members(b, "runOptions").some((o) => Jsonc.members(o, "runOn").some((r) => !(r.type === "string" && r.value === "default")))
      )
      const label = Jsonc.members(task, "label").find((l) => l.type === "string")
      return auto ? [runner(`tasks[${label?.type === "string" ? JSON.stringify(label.value) : n}].runOptions.runOn`, task)] : []
    })
  )

/**
 * Settings whose whole subtree names programs (terminal profiles and shells, the terminals' environment, where
 * `PROMPT_COMMAND` or `BASH_ENV` runs a command at each prompt, tool overrides, a TypeScript SDK).
 */
const programTrees = /^(terminal\.integrated\.(profiles|automationProfile|shell|shellArgs|env)\.|terminal\.external\.|go\.alternateTools$|(typescript|js\/ts)\.tsdk$)/
/**
 * The last part of a setting's key that names an executable or where one is found (`git.path`,
 * `python.defaultInterpreterPath`, `python.condaPath`, `C_Cpp.default.compilerPath`, `prettier.prettierPath`,
 * `jest.pathToJest`, `java.jdt.ls.java.home`, `go.goroot`, `typescript.npm`…).
 */
const programKey = /^(path|command|executable|exe|runtime|runtimeExecutable|binary|bin|serverPath|executablePath|interpreterPath|defaultInterpreterPath|nodePath|home|goroot|gopath|toolsGopath|npm)$|^pathTo|(Path|Executable|Command)$/

/**
 * VS Code settings that name an executable, flattened as VS Code reads them (`{"git": {"path": …}}` is `git.path`;
 * a language block `"[python]"` holds settings too). Only a string, array or object names anything.
 */
export const vscodeSettings = (root: Jsonc.Value): ReadonlyArray<Runner> => {
  const out: Array<Runner> = []
  const walk = (v: Jsonc.Value, prefix: string) => {
    if (v.type !== "object") return
    for (const [k, m] of v.members) {
      const key = k.startsWith("[") ? prefix : prefix === "" ? k : `${prefix}.${k}`
      const last = key.slice(key.lastIndexOf(".") + 1)
      const names = m.type === "string" || m.type === "array" || m.type === "object"
      if (names && !Jsonc.isEmpty(m) && key !== "" && (programTrees.test(`${key}.`) || programTrees.test(key) || (!k.startsWith("[") && programKey.test(last)))) {
        out.push(runner(key, m))
      } else walk(m, key)
    }
  }
  walk(root, "")
  return out
}

/** MCP servers the editor or agent starts as a local process (`command`); a URL server runs nothing here. */
export const mcpServers = (root: Jsonc.Value): ReadonlyArray<Runner> =>
  ["servers", "mcpServers"].flatMap((list) =>
    Jsonc.members(root, list).flatMap((servers) =>
      servers.type === "object"
        ? servers.members.filter(([, s]) => Jsonc.members(s, "command").some((c) => !Jsonc.isEmpty(c))).map(([name, s]) => runner(`${list}.${name}.command`, s))
        : []
    )
  )

/** Cursor's project hooks (`.cursor/hooks.json`): every event's entries are commands its agent runs (sessionStart…). */
export const cursorHooks = (root: Jsonc.Value): ReadonlyArray<Runner> =>
  Jsonc.members(root, "hooks").flatMap((hooks) =>
    hooks.type === "object" ? hooks.members.filter(([, v]) => !Jsonc.isEmpty(v)).map(([event, v]) => runner(`hooks.${event}`, v)) : []
  )

/**
 * Gemini CLI's project settings (`.gemini/settings.json`): MCP servers with a `command` (started with the CLI), its
 * hooks, the commands that discover and call project tools, and a command that starts every MCP server.
 */
export const geminiSettings = (root: Jsonc.Value): ReadonlyArray<Runner> => {
  const set = (key: string, values: ReadonlyArray<Jsonc.Value>) => values.filter((v) => !Jsonc.isEmpty(v)).map((v) => runner(key, v))
  return [
    ...mcpServers(root),
    ...Jsonc.members(root, "tools").flatMap((t) => [...set("tools.discoveryCommand", Jsonc.members(t, "discoveryCommand")), ...set("tools.callCommand", Jsonc.members(t, "callCommand"))]),
    ...set("toolDiscoveryCommand", Jsonc.members(root, "toolDiscoveryCommand")),
    ...set("toolCallCommand", Jsonc.members(root, "toolCallCommand")),
    ...Jsonc.members(root, "mcp").flatMap((m) => set("mcp.serverCommand", Jsonc.members(m, "serverCommand"))),
    ...set("hooks", Jsonc.members(root, "hooks"))
  ]
}

/** Entries of an object whose `command` is set: `<key>.<name>.command`. */
const withCommand = (v: Jsonc.Value, key: string): ReadonlyArray<Runner> =>
  v.type === "object" ? v.members.filter(([, e]) => Jsonc.members(e, "command").some((c) => !Jsonc.isEmpty(c))).map(([name, e]) => runner(`${key}.${name}.command`, e)) : []

/**
 * opencode's project config (`opencode.json[c]`, `.opencode/opencode.json[c]`; the older `.opencode.json`): local MCP
 * servers (`mcp.<name>.command`, `mcp.servers.<name>.command`, `mcpServers`), formatters and language servers run
 * by a command, and npm plugins it loads and runs.
 */
export const opencode = (root: Jsonc.Value): ReadonlyArray<Runner> => [
  ...Jsonc.members(root, "mcp").flatMap((m) => [...withCommand(m, "mcp"), ...Jsonc.members(m, "servers").flatMap((s) => withCommand(s, "mcp.servers"))]),
  ...mcpServers(root),
  ...Jsonc.members(root, "formatter").flatMap((f) => withCommand(f, "formatter")),
  ...Jsonc.members(root, "lsp").flatMap((l) => withCommand(l, "lsp")),
  ...["plugin", "plugins"].flatMap((k) => Jsonc.members(root, k).filter((v) => !Jsonc.isEmpty(v)).map((v) => runner(k, v)))
]

/** A dev container's `initializeCommand` runs on the host, before any container exists. */
export const devcontainer = (root: Jsonc.Value): ReadonlyArray<Runner> =>
  Jsonc.members(root, "initializeCommand").filter((v) => !Jsonc.isEmpty(v)).map((v) => runner("initializeCommand", v))

/** A `.code-workspace` file: its `tasks`, `settings` (with MCP servers) and `mcp` as the `.vscode` files are read. */
export const codeWorkspace = (root: Jsonc.Value): ReadonlyArray<Runner> => [
  ...Jsonc.members(root, "tasks").flatMap((t) => vscodeTasks(t)),
  ...Jsonc.members(root, "settings").flatMap(vscodeSettings),
  ...Jsonc.members(root, "mcp").flatMap(mcpServers)
]

/**
 * mise runs `[hooks]` (enter, leave, cd…) and `[[watch_files]]` when the user's shell enters the folder, sources
 * `[env] _.source` scripts, reads `_.file`/`_.path` into the environment, and runs `exec(…)` templates in values.
 */
export const mise = (entries: ReadonlyArray<MiseToml.Entry>): ReadonlyArray<Runner> =>
  entries.flatMap((e) => {
    const [top, second] = e.key
    const key = e.key.join(".")
    const runs = top === "hooks" || top === "watch_files" || (top === "env" && second === "_") || /\bexec\s*\(/.test(e.value)
    return runs ? [{ key, value: e.value }] : []
  })

/** The entries of `text` read as `kind` that run something, or why it cannot be read. */
export const runnersOf = (kind: Kind, text: string): Found => {
  if (isHookManager(kind)) return { ok: true, runners: HookManagers.runnersOf(kind, text) }
  if (kind === "mise") {
    const read = MiseToml.read(text)
    return read.ok ? { ok: true, runners: mise(read.entries) } : { ok: false, reason: `cannot read it as TOML (${read.reason})` }
  }
  if (text.trim() === "") return { ok: true, runners: [] }
  const parsed = Jsonc.parse(text)
  if (!parsed.ok) return { ok: false, reason: `cannot read it as JSON with comments (${parsed.reason})` }
  const by: Record<Exclude<EditorKind, "mise">, (v: Jsonc.Value) => ReadonlyArray<Runner>> = {
    "claude-settings": claudeSettings,
    "vscode-tasks": vscodeTasks,
    "vscode-settings": vscodeSettings,
    "code-workspace": codeWorkspace,
    "mcp-servers": mcpServers,
    devcontainer,
    "cursor-hooks": cursorHooks,
    "gemini-settings": geminiSettings,
    opencode
  }
  return { ok: true, runners: by[kind](parsed.value) }
}

const hookKinds: ReadonlySet<string> = new Set(Object.keys(HookManagers.who))
const isHookManager = (kind: Kind): kind is HookManagers.Kind => hookKinds.has(kind)

const who: Record<Kind, string> = {
  ...HookManagers.who,
  "claude-settings": "Claude Code runs it on the host when the user next starts it or it uses a tool",
  "vscode-tasks": "VS Code runs the task on the host when the user next opens the folder",
  "vscode-settings": "VS Code runs the program it names on the host",
  "code-workspace": "VS Code runs it on the host when the user next opens the workspace",
  "mcp-servers": "the editor or agent starts the server's command on the host",
  devcontainer: "VS Code runs it on the host before the container is built",
  mise: "mise runs it on the host when the user's shell next enters the folder",
  "cursor-hooks": "Cursor's agent runs it on the host at the hook's event (a session's start, a tool's use)",
  "gemini-settings": "Gemini CLI runs it on the host when the user next starts it in the folder",
  opencode: "opencode runs it on the host when the user next starts it in the folder"
}

export interface Refusal {
  readonly rule: "jail.editor-control" | "jail.editor-control-unreadable"
  readonly reason: string
}

/**
 * Why leaving `after` at `rel` (where `before` was, undefined when nothing) would make the host run something that
 * was not there before, or undefined. Unreadable content is refused (an editor's lenient reader may still find a
 * command in it); unreadable content before counts as running nothing.
 */
export const judge = (rel: string, before: string | undefined, after: string): Refusal | undefined => {
  const kind = kindOf(rel)
  if (kind === undefined) return undefined
  const now = runnersOf(kind, after)
  if (!now.ok) return { rule: "jail.editor-control-unreadable", reason: `${rel} is read by an editor or agent that runs commands from it, and the new content ${now.reason}: refused, the file is left as it was` }
  const was = before === undefined ? undefined : runnersOf(kind, before)
  const known = new Set(was?.ok === true ? was.runners.map((r) => `${r.key}\u0000${r.value}`) : [])
  const added = now.runners.filter((r) => !known.has(`${r.key}\u0000${r.value}`))
  if (added.length === 0) return undefined
  const keys = [...new Set(added.map((r) => r.key))].join(", ")
  return { rule: "jail.editor-control", reason: `${rel}: ${keys} would run a command outside any sandbox (${who[kind]}, with no approval of this content); write such entries by hand` }
}
