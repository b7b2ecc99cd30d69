/**
 * Red team (issue 19), HOLES: git configuration the workspace's own `.git` does not hold, naming files inside the
 * workspace. minicode protected the folder `core.hooksPath` names and the files `include.path` names only when
 * they were set in `<workspace>/.git/config`, resolved against the workspace root. Two other places hold them:
 *
 * - **A repository above the workspace** (the workspace is `app/` of a monorepo). Its `core.hooksPath =
 *   app/.githooks` is relative to the repository's top: write_file replaced `.githooks/pre-commit` and the user's
 *   next `git commit` in the repository ran it on the host.
 * - **The user's own configuration** (`~/.gitconfig`, `~/.config/git/config`), which every git on the host reads:
 *   `core.hooksPath = .githooks` (per-repository hooks for every repository), `include.path` naming a file in the
 *   workspace (a dotfiles repository), or `~/.config/git/config` itself a symlink into the workspace (stow). A
 *   hook written there, or a `core.fsmonitor` written into the included file, ran on the user's next commit or
 *   `git status`; `init.templateDir` naming a workspace folder: a `hooks/post-checkout` written there ran on the
 *   user's next `git clone`.
 * - **A repository inside the workspace** (a folder of projects, each its own repository with husky's
 *   `core.hooksPath = .husky/_`): write_file replaced `projA/.husky/pre-commit`, which the user's next commit in
 *   projA ran.
 *
 * Invariant: no file tool and no sandboxed bash call leaves a file that git, as the user runs it, reads as its
 * configuration or runs as a hook. Through the built binary (default sandbox, policy allow-all), the user's git
 * with the same home and no system configuration.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { bin, connect, textOf } from "../serve/support/McpServeHarness.js"
import { attackFile, attackWorkspace } from "./support/Attack.js"
import { title, unavailable } from "../support/Sandbox.js"

const cleanups = attackFile()

/** A home of the test's own (outside the workspace) and the built CLI and the user's git run with it. */
const withHome = (ws: ReturnType<typeof attackWorkspace>) => {
  const home = path.join(ws.parent, "home")
  fs.mkdirSync(home, { recursive: true })
  const env: Record<string, string> = {}
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("GIT_") && k !== "XDG_CONFIG_HOME") env[k] = v
  Object.assign(env, { HOME: home, GIT_CONFIG_NOSYSTEM: "1" })
  const marker = path.join(ws.parent, "PWNED")
  const tool = (cwd: string, name: string, args: unknown) =>
    spawnSync(process.execPath, [bin, "tool", name, JSON.stringify(args), "--cwd", cwd, "--work-mode", "BUILD", "--policy", "allow-all", "--json"], { encoding: "utf8", env })
  /** The user's own git on the host, later. */
  const userGit = (cwd: string, ...args: Array<string>) => spawnSync("git", args, { cwd, encoding: "utf8", env })
  const userCommit = (repo: string, file: string) => {
    fs.appendFileSync(file, "more\n")
    return userGit(repo, "-c", "user.name=U", "-c", "user.email=u@example.com", "commit", "-q", "-am", "user commit").status
  }
  return { home, env, marker, tool, userGit, userCommit }
}

const hookPayload = (marker: string) => `#!/bin/sh\ntouch ${marker}\n`

/** Every file tool's way to put a hook in `folder`: all refused by the jail, the committed hook unchanged. */
const fileToolsRefused = (tool: (name: string, args: unknown) => { readonly status: number | null; readonly stdout: string }, folder: string, marker: string) => {
  const attempts: ReadonlyArray<readonly [string, unknown]> = [
    ["write_file", { path: `${folder}/pre-commit`, content: hookPayload(marker) }],
    ["write_file", { path: `${folder}/post-commit`, content: hookPayload(marker) }],
    ["edit_file", { path: `${folder}/pre-commit`, old_string: "exit 0", new_string: `touch ${marker}` }]
  ]
  for (const [name, args] of attempts) {
    const r = tool(name, args)
    expect(r.status, `${name} ${JSON.stringify(args)}: ${r.stdout}`).not.toBe(0)
    expect(r.stdout).toMatch(/jail/)
  }
  expect(tool("write_file", { path: "staged.sh", content: hookPayload(marker) }).status).toBe(0)
  const moved = tool("move_file", { from: "staged.sh", to: `${folder}/post-commit` })
  expect(moved.status, moved.stdout).not.toBe(0)
  expect(moved.stdout).toMatch(/jail/)
}

/** Sandboxed bash writing hooks there (executable), then `extra` (more lines of the script). */
const bashPlants = (folder: string, marker: string, extra = "") =>
  `mkdir -p ${folder}; printf '${hookPayload(marker).replace(/\n/g, "\\n")}' > ${folder}/post-commit; chmod +x ${folder}/post-commit
printf '${hookPayload(marker).replace(/\n/g, "\\n")}' > ${folder}/pre-commit; chmod +x ${folder}/pre-commit
${extra}
echo planted`

describe.skipIf(unavailable !== undefined)(title("git configuration outside the workspace's .git naming files in it"), () => {
  it("the workspace is app/ of a repository whose core.hooksPath is app/.githooks: no hook is planted, by file tools or bash", () => {
    const ws = attackWorkspace(cleanups)
    const h = withHome(ws)
    const app = path.join(ws.root, "app")
    fs.mkdirSync(path.join(app, ".githooks"), { recursive: true })
    fs.writeFileSync(path.join(app, ".githooks/pre-commit"), "#!/bin/sh\nexit 0\n", { mode: 0o755 })
    fs.writeFileSync(path.join(app, "main.c"), "int main(void) { return 0; }\n")
    ws.git("add", "app")
    ws.git("commit", "-q", "-m", "app")
    ws.git("config", "core.hooksPath", "app/.githooks")
    // An included file in the workspace, named relative to the repository's .git above it.
    fs.writeFileSync(path.join(app, "repo.gitconfig"), "[user]\n\tname = Dev\n")
    ws.git("config", "include.path", "../app/repo.gitconfig")
    const tool = (name: string, args: unknown) => h.tool(app, name, args)
    fileToolsRefused(tool, ".githooks", h.marker)
    const inc = tool("write_file", { path: "repo.gitconfig", content: `[core]\n\tfsmonitor = "touch ${h.marker}; false"\n` })
    expect(inc.status, inc.stdout).not.toBe(0)
    expect(fs.readFileSync(path.join(app, ".githooks/pre-commit"), "utf8")).toBe("#!/bin/sh\nexit 0\n")
    fs.writeFileSync(path.join(app, "s.sh"), bashPlants(".githooks", h.marker, `printf '[core]\\n\\tfsmonitor = "touch ${h.marker}; false"\\n' > repo.gitconfig`))
    const r = tool("bash", { command: "sh s.sh" })
    expect(r.stdout).toContain("planted")
    expect(h.userGit(ws.root, "status", "--short").status).toBe(0)
    expect(h.userCommit(ws.root, path.join(app, "main.c"))).toBe(0)
    expect(fs.existsSync(h.marker)).toBe(false)
    // Honest neighbours: the rest of the workspace is written as ever.
    expect(tool("write_file", { path: "src/notes.txt", content: "fine\n" }).status).toBe(0)
  }, 180_000)

  it("~/.gitconfig says core.hooksPath = .githooks (every repository's own folder): no hook is planted in the workspace's", () => {
    const ws = attackWorkspace(cleanups)
    const h = withHome(ws)
    fs.writeFileSync(path.join(h.home, ".gitconfig"), "[core]\n\thooksPath = .githooks\n")
    fs.mkdirSync(path.join(ws.root, ".githooks"))
    fs.writeFileSync(path.join(ws.root, ".githooks/pre-commit"), "#!/bin/sh\nexit 0\n", { mode: 0o755 })
    ws.git("add", ".githooks")
    ws.git("commit", "-q", "-m", "hooks")
    // A nested project, its own repository: its .githooks is its hooks folder by the same key.
    const proj = path.join(ws.root, "vendor/projB")
    fs.mkdirSync(path.join(proj, ".githooks"), { recursive: true })
    expect(h.userGit(proj, "init", "-q").status).toBe(0)
    fs.writeFileSync(path.join(proj, "b.txt"), "b\n")
    fs.writeFileSync(path.join(proj, ".githooks/pre-commit"), "#!/bin/sh\nexit 0\n", { mode: 0o755 })
    expect(h.userGit(proj, "add", "-A").status).toBe(0)
    expect(h.userGit(proj, "-c", "user.name=U", "-c", "user.email=u@example.com", "commit", "-q", "-m", "b").status).toBe(0)
    const tool = (name: string, args: unknown) => h.tool(ws.root, name, args)
    fileToolsRefused(tool, ".githooks", h.marker)
    fileToolsRefused(tool, "vendor/projB/.githooks", h.marker)
    fs.writeFileSync(path.join(ws.root, "s.sh"), bashPlants(".githooks", h.marker, bashPlants("vendor/projB/.githooks", h.marker)))
    expect(tool("bash", { command: "sh s.sh" }).stdout).toContain("planted")
    expect(h.userCommit(ws.root, path.join(ws.root, "a.txt"))).toBe(0)
    expect(h.userCommit(proj, path.join(proj, "b.txt"))).toBe(0)
    expect(fs.existsSync(h.marker)).toBe(false)
  }, 180_000)

  it("~/.gitconfig includes a file of the workspace (a dotfiles repository), and ~/.config/git/config is a symlink into it: neither is written", () => {
    const ws = attackWorkspace(cleanups)
    const h = withHome(ws)
    fs.mkdirSync(path.join(ws.root, "git"))
    fs.writeFileSync(path.join(ws.root, "git/aliases.gitconfig"), "[alias]\n\tst = status\n")
    fs.writeFileSync(path.join(ws.root, "git/config"), "[color]\n\tui = auto\n")
    fs.writeFileSync(path.join(h.home, ".gitconfig"), `[include]\n\tpath = ${path.join(ws.root, "git/aliases.gitconfig")}\n`)
    fs.mkdirSync(path.join(h.home, ".config"))
    fs.symlinkSync(path.join(ws.root, "git"), path.join(h.home, ".config/git"))
    ws.git("add", "git")
    ws.git("commit", "-q", "-m", "dotfiles")
    const tool = (name: string, args: unknown) => h.tool(ws.root, name, args)
    const fsmonitor = `[core]\n\tfsmonitor = "touch ${h.marker}; false"\n`
    for (const file of ["git/aliases.gitconfig", "git/config"]) {
      const w = tool("write_file", { path: file, content: fsmonitor })
      expect(w.status, w.stdout).not.toBe(0)
      expect(w.stdout).toMatch(/jail/)
      const e = tool("edit_file", { path: file, old_string: "[", new_string: `${fsmonitor}[` })
      expect(e.status, e.stdout).not.toBe(0)
    }
    const moved = tool("move_file", { from: "git", to: "git2" })
    expect(moved.status, moved.stdout).not.toBe(0)
    expect(moved.stdout).toMatch(/jail/)
    fs.writeFileSync(path.join(ws.root, "s.sh"), `printf '[core]\\n\\tfsmonitor = "touch ${h.marker}; false"\\n' > git/aliases.gitconfig\ncp git/aliases.gitconfig git/config\necho planted\n`)
    expect(tool("bash", { command: "sh s.sh" }).stdout).toContain("planted")
    expect(h.userGit(ws.root, "status", "--short").status).toBe(0)
    expect(fs.existsSync(h.marker)).toBe(false)
    // Reading them is honest work on the dotfiles.
    expect(tool("read_file", { path: "git/aliases.gitconfig" }).stdout).toContain("st = status")
  }, 180_000)

  it("a folder of projects: projA's own repository uses husky (core.hooksPath = .husky/_): no hook is planted in projA/.husky", () => {
    const ws = attackWorkspace(cleanups)
    const h = withHome(ws)
    const proj = path.join(ws.root, "projA")
    fs.mkdirSync(path.join(proj, ".husky/_"), { recursive: true })
    const git = (...args: Array<string>) => h.userGit(proj, ...args)
    expect(git("init", "-q").status).toBe(0)
    fs.writeFileSync(path.join(proj, ".husky/pre-commit"), "#!/bin/sh\nexit 0\n", { mode: 0o755 })
    // husky 9's stub: runs the hook of the same name in the folder above.
    fs.writeFileSync(path.join(proj, ".husky/_/h"), '#!/bin/sh\nn=$(basename "$0"); s="$(dirname "$(dirname "$0")")/$n"; [ -f "$s" ] || exit 0; sh "$s"\n', { mode: 0o755 })
    for (const hook of ["pre-commit", "post-commit"]) fs.copyFileSync(path.join(proj, ".husky/_/h"), path.join(proj, ".husky/_", hook))
    fs.writeFileSync(path.join(proj, "main.c"), "int main(void) { return 0; }\n")
    expect(git("add", "-A").status).toBe(0)
    expect(git("-c", "user.name=U", "-c", "user.email=u@example.com", "commit", "-q", "-m", "husky").status).toBe(0)
    expect(git("config", "core.hooksPath", ".husky/_").status).toBe(0)
    const tool = (name: string, args: unknown) => h.tool(ws.root, name, args)
    fileToolsRefused(tool, "projA/.husky", h.marker)
    fs.writeFileSync(path.join(ws.root, "s.sh"), bashPlants("projA/.husky", h.marker))
    expect(tool("bash", { command: "sh s.sh" }).stdout).toContain("planted")
    expect(fs.readFileSync(path.join(proj, ".husky/pre-commit"), "utf8")).toBe("#!/bin/sh\nexit 0\n")
    expect(h.userCommit(proj, path.join(proj, "main.c"))).toBe(0)
    expect(fs.existsSync(h.marker)).toBe(false)
    // Honest: the project's sources are written as ever.
    expect(tool("write_file", { path: "projA/main.c", content: "int main(void) { return 1; }\n" }).status).toBe(0)
  }, 180_000)

  it("~/.gitconfig's init.templateDir is a folder of the workspace: no hook is planted there for the user's next clone", () => {
    const ws = attackWorkspace(cleanups)
    const h = withHome(ws)
    fs.mkdirSync(path.join(ws.root, "git-template/hooks"), { recursive: true })
    fs.writeFileSync(path.join(ws.root, "git-template/description"), "template\n")
    fs.writeFileSync(path.join(h.home, ".gitconfig"), `[init]\n\ttemplateDir = ${path.join(ws.root, "git-template")}\n`)
    const tool = (name: string, args: unknown) => h.tool(ws.root, name, args)
    for (const file of ["git-template/hooks/post-checkout", "git-template/hooks/pre-commit"]) {
      const w = tool("write_file", { path: file, content: hookPayload(h.marker) })
      expect(w.status, w.stdout).not.toBe(0)
      expect(w.stdout).toMatch(/jail/)
    }
    fs.writeFileSync(path.join(ws.root, "s.sh"), bashPlants("git-template/hooks", h.marker, `printf '${hookPayload(h.marker).replace(/\n/g, "\\n")}' > git-template/hooks/post-checkout; chmod +x git-template/hooks/post-checkout`))
    tool("bash", { command: "sh s.sh" })
    expect(h.userGit(ws.parent, "clone", "-q", ws.root, "clone1").status).toBe(0)
    expect(fs.existsSync(h.marker)).toBe(false)
  }, 180_000)

  it("through mcp serve: ~/.gitconfig's relative core.hooksPath, write_file into it is refused", async () => {
    const ws = attackWorkspace(cleanups)
    const h = withHome(ws)
    fs.writeFileSync(path.join(h.home, ".gitconfig"), "[core]\n\thooksPath = tools/hooks\n")
    const s = await connect(ws.root, ["--allow-all", "--no-ask"], undefined, { HOME: h.home, GIT_CONFIG_NOSYSTEM: "1" })
    cleanups.push(() => s.close())
    const out = textOf(await s.client.callTool({ name: "write_file", arguments: { path: "tools/hooks/pre-commit", content: hookPayload(h.marker) } }, undefined, { timeout: 60_000 }))
    expect(out).toMatch(/hooks folder/)
    expect(fs.existsSync(path.join(ws.root, "tools/hooks/pre-commit"))).toBe(false)
    expect(textOf(await s.client.callTool({ name: "write_file", arguments: { path: "tools/notes.txt", content: "ok\n" } }))).toMatch(/created/)
  }, 120_000)
})
