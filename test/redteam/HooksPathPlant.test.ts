/**
 * Red team, planted hooks in the folder `core.hooksPath` names: many repositories keep their hooks in the tree and
 * point git at them (`git config core.hooksPath .githooks`; husky does it on `npm install`). That folder is git's
 * hooks folder as much as `.git/hooks` is: whatever is there runs on the user's next `git commit` on the host,
 * outside any sandbox. Through the built binary (default sandbox, policy allow-all).
 *
 * Was a hole: `write_file .githooks/pre-commit` (replacing the project's hook), `move_file x .githooks/post-commit`,
 * and sandboxed bash writing `.githooks/post-commit` + `chmod +x` all went through; the user's next commit ran them.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { bin } from "../serve/support/McpServeHarness.js"
import { attackFile, attackWorkspace } from "./support/Attack.js"
import { title, unavailable } from "../support/Sandbox.js"
import { liveSandbox } from "../support/Staged.js"

// The live sandbox's repair machinery (a core.hooksPath folder planted and removed during the call) is what this file attacks; staged bash (the
// default) never lets such a plant reach the tree: test/adapters/staged/StagedBash.e2e.test.ts.
liveSandbox()

const cleanups = attackFile()

const setup = (hooksPath: (root: string) => string, folder: string) => {
  const ws = attackWorkspace(cleanups)
  const { root, git } = ws
  const marker = path.join(ws.parent, "PWNED")
  fs.mkdirSync(path.join(root, folder), { recursive: true })
  fs.writeFileSync(path.join(root, folder, "pre-commit"), "#!/bin/sh\nexit 0\n", { mode: 0o755 })
  git("add", folder)
  git("commit", "-q", "-m", "hooks")
  git("config", "core.hooksPath", hooksPath(root))
  const payload = `#!/bin/sh\ntouch ${marker}\n`
  /** The user's own commit on the host, later, with no global configuration. */
  const hostCommit = () => {
    fs.appendFileSync(path.join(root, "a.txt"), "more\n")
    const r = spawnSync("git", ["commit", "-q", "-am", "user commit"], { cwd: root, encoding: "utf8", env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" } })
    return r.status
  }
  return { ...ws, marker, payload, hostCommit }
}

const layouts = [
  { name: "relative core.hooksPath (.githooks)", folder: ".githooks", hooksPath: () => ".githooks" },
  { name: "absolute core.hooksPath (tools/git-hooks)", folder: "tools/git-hooks", hooksPath: (root: string) => path.join(root, "tools/git-hooks") }
]

describe.skipIf(unavailable !== undefined)(title("hooks planted in the folder core.hooksPath names"), () => {
  for (const layout of layouts) {
    it(`file tools never write, replace or move a hook there: ${layout.name}`, () => {
      const { tool, marker, payload, hostCommit, root } = setup(layout.hooksPath, layout.folder)
      const hook = (name: string) => `${layout.folder}/${name}`
      const attempts: ReadonlyArray<readonly [string, unknown]> = [
        ["write_file", { path: hook("pre-commit"), content: payload }],
        ["write_file", { path: hook("post-commit"), content: payload }],
        ["edit_file", { path: hook("pre-commit"), old_string: "exit 0", new_string: `touch ${marker}` }]
      ]
      for (const [name, args] of attempts) {
        const r = tool(name, args)
        expect(r.status, `${name} ${JSON.stringify(args)}: ${r.stdout}`).not.toBe(0)
        expect(r.stdout).toMatch(/jail/)
      }
      expect(tool("write_file", { path: "staged.sh", content: payload }).status).toBe(0)
      const moved = tool("move_file", { from: "staged.sh", to: hook("post-commit") })
      expect(moved.status, moved.stdout).not.toBe(0)
      expect(moved.stdout).toMatch(/jail/)
      expect(fs.readFileSync(path.join(root, hook("pre-commit")), "utf8")).toBe("#!/bin/sh\nexit 0\n")
      expect(hostCommit()).toBe(0)
      expect(fs.existsSync(marker)).toBe(false)
      // Honest neighbours: a file beside the hooks folder is written as ever.
      expect(tool("write_file", { path: "tools/notes.txt", content: "fine\n" }).status).toBe(0)
    }, 120_000)

    it(`sandboxed bash never leaves a hook there: ${layout.name}`, () => {
      const { script, marker, payload, hostCommit, root } = setup(layout.hooksPath, layout.folder)
      const quoted = payload.replace(/\n/g, "\\n")
      script(`printf '${quoted}' > ${layout.folder}/post-commit; chmod +x ${layout.folder}/post-commit
printf '${quoted}' > ${layout.folder}/pre-commit
echo done`)
      expect(fs.existsSync(path.join(root, layout.folder, "post-commit"))).toBe(false)
      expect(fs.readFileSync(path.join(root, layout.folder, "pre-commit"), "utf8")).toBe("#!/bin/sh\nexit 0\n")
      expect(hostCommit()).toBe(0)
      expect(fs.existsSync(marker)).toBe(false)
    }, 120_000)
  }
})

/**
 * Same family: a repository whose config includes a file of the tree (`git config include.path ../.gitconfig`, the
 * usual way to share a project's git settings). Git reads that file as its own configuration, so a `core.fsmonitor`
 * written there runs on the user's next `git status`. Was a hole: write_file `.gitconfig` went through.
 */
describe.skipIf(unavailable !== undefined)(title("a config file the repository's config includes"), () => {
  it("file tools and sandboxed bash never plant a program in it; the user's git status runs nothing", () => {
    const ws = attackWorkspace(cleanups)
    const { root, git, tool, script } = ws
    const marker = path.join(ws.parent, "PWNED")
    fs.writeFileSync(path.join(root, "project.gitconfig"), "[pull]\n\trebase = true\n")
    git("config", "include.path", "../project.gitconfig")
    git("config", "includeIf.onbranch:main.path", "../branch.gitconfig")
    const evil = `[core]\n\tfsmonitor = touch ${marker}\n`
    for (const file of ["project.gitconfig", "branch.gitconfig"]) {
      const r = tool("write_file", { path: file, content: evil })
      expect(r.status, `${file}: ${r.stdout}`).not.toBe(0)
      expect(r.stdout).toMatch(/jail/)
    }
    script(`printf '${evil.replace(/\n/g, "\\n").replace(/\t/g, "\\t")}' > project.gitconfig; printf '${evil.replace(/\n/g, "\\n").replace(/\t/g, "\\t")}' > branch.gitconfig; echo done`)
    expect(fs.readFileSync(path.join(root, "project.gitconfig"), "utf8")).toBe("[pull]\n\trebase = true\n")
    expect(fs.existsSync(path.join(root, "branch.gitconfig"))).toBe(false)
    spawnSync("git", ["status", "--short"], { cwd: root, env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" } })
    expect(fs.existsSync(marker)).toBe(false)
  }, 120_000)
})

/**
 * Same family: a program the repository's config names by a path of the tree (`core.fsmonitor = ./fsmon.sh`, a
 * `!scripts/x.sh` alias), and husky 9's layout (`core.hooksPath = .husky/_`, whose stubs run `.husky/<hook>`).
 * Was a hole: write_file replaced `fsmon.sh` (the user's `git status` ran it) and `.husky/pre-commit` (their commit).
 */
describe.skipIf(unavailable !== undefined)(title("a program the repository's config names in the tree"), () => {
  const hostGit = (root: string, ...args: Array<string>) =>
    spawnSync("git", args, { cwd: root, encoding: "utf8", env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" } })

  it("core.fsmonitor's script is never replaced, by file tools or bash", () => {
    const ws = attackWorkspace(cleanups)
    const { root, git, tool, script } = ws
    const marker = path.join(ws.parent, "PWNED")
    const honest = "#!/bin/sh\nexit 0\n"
    fs.writeFileSync(path.join(root, "fsmon.sh"), honest, { mode: 0o755 })
    git("config", "core.fsmonitor", "./fsmon.sh")
    const evil = `#!/bin/sh\ntouch ${marker}\n`
    const r = tool("write_file", { path: "fsmon.sh", content: evil })
    expect(r.status, r.stdout).not.toBe(0)
    expect(r.stdout).toMatch(/jail/)
    script(`printf '${evil.replace(/\n/g, "\\n")}' > fsmon.sh; echo done`)
    expect(fs.readFileSync(path.join(root, "fsmon.sh"), "utf8")).toBe(honest)
    hostGit(root, "status", "--short")
    expect(fs.existsSync(marker)).toBe(false)
  }, 120_000)

  it("husky 9 (core.hooksPath = .husky/_): .husky/pre-commit is never replaced", () => {
    const ws = attackWorkspace(cleanups)
    const { root, git, tool, script } = ws
    const marker = path.join(ws.parent, "PWNED")
    fs.mkdirSync(path.join(root, ".husky/_"), { recursive: true })
    fs.writeFileSync(path.join(root, ".husky/_/pre-commit"), '#!/bin/sh\nexec sh -e "$(dirname "$0")/../pre-commit"\n', { mode: 0o755 })
    fs.writeFileSync(path.join(root, ".husky/pre-commit"), "exit 0\n")
    git("config", "core.hooksPath", ".husky/_")
    const r = tool("write_file", { path: ".husky/pre-commit", content: `touch ${marker}\n` })
    expect(r.status, r.stdout).not.toBe(0)
    script(`echo 'touch ${marker}' > .husky/pre-commit; echo done`)
    expect(fs.readFileSync(path.join(root, ".husky/pre-commit"), "utf8")).toBe("exit 0\n")
    fs.appendFileSync(path.join(root, "a.txt"), "more\n")
    expect(hostGit(root, "commit", "-q", "-am", "user commit").status).toBe(0)
    expect(fs.existsSync(marker)).toBe(false)
  }, 120_000)
})

describe.skipIf(unavailable !== undefined)(title("core.hooksPath in a linked worktree"), () => {
  // A linked worktree's `.git` is a file (`gitdir: …`): git reads the main repository's config, hooksPath included.
  it("the workspace is a linked worktree: write_file never plants a hook in the folder the common config names", () => {
    const ws = attackWorkspace(cleanups)
    const { git } = ws
    const marker = path.join(ws.parent, "PWNED")
    git("config", "core.hooksPath", ".githooks")
    const wt = path.join(ws.parent, "wt")
    git("worktree", "add", "-q", wt)
    const out = spawnSync(
      process.execPath,
      [bin, "tool", "write_file", JSON.stringify({ path: ".githooks/pre-commit", content: `#!/bin/sh\ntouch ${marker}\n` }), "--cwd", wt, "--work-mode", "BUILD", "--policy", "allow-all", "--json"],
      { encoding: "utf8" }
    )
    expect(out.status, out.stdout).not.toBe(0)
    expect(out.stdout).toMatch(/core\.hooksPath/)
  }, 120_000)
})

describe.skipIf(unavailable !== undefined)(title("a core.hooksPath that cannot be a folder"), () => {
  // Was a bug: every sandboxed bash call in such a repository failed ("cannot record the git control files:
  // ENOTDIR"), as the folder was looked up beneath a file.
  it("a file where its folder would be: bash still runs, and the file is left as it was", () => {
    const ws = attackWorkspace(cleanups)
    ws.git("config", "core.hooksPath", "tools/hooks")
    fs.writeFileSync(path.join(ws.root, "tools"), "a file\n")
    expect(ws.script("echo ran-ok")).toContain("ran-ok")
    expect(fs.readFileSync(path.join(ws.root, "tools"), "utf8")).toBe("a file\n")
    // Nor can the call swap the file for the folder and plant a hook there (the file is read-only for the call).
    const marker = path.join(ws.parent, "PWNED")
    const out = ws.script(`rm -f tools; echo "rm $?"; mkdir -p tools/hooks && printf '#!/bin/sh\\ntouch ${marker}\\n' > tools/hooks/pre-commit && chmod +x tools/hooks/pre-commit; echo "plant $?"`)
    expect(out).toMatch(/rm [1-9]/)
    expect(out).toMatch(/plant [1-9]/)
    expect(fs.readFileSync(path.join(ws.root, "tools"), "utf8")).toBe("a file\n")
  }, 120_000)
})
