/**
 * Red team (issue 19), a HOLE: a workspace holding projects that are repositories of their own, whose configuration
 * names a control OUTSIDE the project's folder but inside the workspace: `projA` has `core.hooksPath =
 * ../shared-hooks`, `projB` an absolute `core.hooksPath` naming `sibling/hooks`, `projC` `include.path =
 * ../../common.gitconfig`, `projD` `core.fsmonitor = ../tools/mon.sh`; `projE`'s `.git` is a `gitdir:` file naming
 * `gd/projE` (`git init --separate-git-dir`), whose config names `../shared2`; `wtF` is a linked worktree of a
 * repository outside the workspace, whose config names `<workspace>/shared3` as its hooks folder. Only the
 * repositories on the written path's way were read, so write_file `shared-hooks/pre-commit` went through (projA is
 * not on its way) and the user's next `git commit` in projA ran the plant; sandboxed bash planted in `shared2` and
 * `shared3` (the gitdir cases), which no read-only bind covered.
 *
 * Invariant: no program a repository's configuration controls can be planted, by file tools or bash, so that the
 * user's git on the host runs it, whichever repository of the workspace names it. Through the built CLI (and one
 * case through `mcp serve`). Honest work beside them (files no configuration names, the user's own commits) runs.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { bin, connect, textOf } from "../serve/support/McpServeHarness.js"
import { title, unavailable } from "../support/Sandbox.js"
import { attackFile, attackWorkspace } from "./support/Attack.js"

const cleanups = attackFile()
const honest = "#!/bin/sh\nexit 0\n"
const hostEnv = { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" }

const setup = () => {
  const ws = attackWorkspace(cleanups)
  const { root, parent } = ws
  const marker = path.join(parent, "PWNED")
  const host = (cwd: string, ...args: Array<string>) => spawnSync("git", args, { cwd: path.join(root, cwd), encoding: "utf8", env: hostEnv })
  const project = (dir: string, ...init: Array<string>) => {
    fs.mkdirSync(path.join(root, dir), { recursive: true })
    expect(spawnSync("git", ["init", "-q", ...init, path.join(root, dir)], { env: hostEnv }).status).toBe(0)
    host(dir, "config", "user.email", "u@example.com")
    host(dir, "config", "user.name", "u")
    fs.writeFileSync(path.join(root, dir, "a.txt"), "a\n")
    host(dir, "add", "a.txt")
    expect(host(dir, "commit", "-q", "-m", "first").status).toBe(0)
  }
  for (const [dir, file] of [["shared-hooks", "pre-commit"], ["sibling/hooks", "pre-commit"], ["tools", "mon.sh"], ["shared2", "pre-commit"], ["shared3", "pre-commit"]] as const) {
    fs.mkdirSync(path.join(root, dir), { recursive: true })
    fs.writeFileSync(path.join(root, dir, file), honest, { mode: 0o755 })
  }
  fs.writeFileSync(path.join(root, "common.gitconfig"), "[pull]\n\trebase = true\n")
  for (const p of ["projA", "projB", "projC", "projD"]) project(p)
  host("projA", "config", "core.hooksPath", "../shared-hooks")
  host("projB", "config", "core.hooksPath", path.join(root, "sibling/hooks"))
  host("projC", "config", "include.path", "../../common.gitconfig")
  host("projD", "config", "core.fsmonitor", "../tools/mon.sh")
  fs.mkdirSync(path.join(root, "gd"))
  project("projE", `--separate-git-dir=${path.join(root, "gd/projE")}`)
  host("projE", "config", "core.hooksPath", "../shared2")
  // A linked worktree of a repository outside the workspace.
  const ext = path.join(parent, "ext")
  fs.mkdirSync(ext)
  expect(spawnSync("sh", ["-c", `git init -q && git -c user.email=u@example.com -c user.name=u commit -q --allow-empty -m e && git worktree add -q ${path.join(root, "wtF")}`], { cwd: ext, env: hostEnv }).status).toBe(0)
  spawnSync("git", ["config", "core.hooksPath", path.join(root, "shared3")], { cwd: ext, env: hostEnv })
  host("wtF", "config", "user.email", "u@example.com")
  host("wtF", "config", "user.name", "u")
  /** The user's own work on the host afterwards: a commit in each project, a status where a program is named. */
  const hostWork = () => {
    for (const p of ["projA", "projB", "projE", "wtF"]) {
      fs.appendFileSync(path.join(root, p, "b.txt"), "more\n")
      host(p, "add", "b.txt")
      expect(host(p, "commit", "-q", "-m", "user commit").status, p).toBe(0)
    }
    for (const p of ["projC", "projD"]) host(p, "status", "--short")
    return fs.existsSync(marker)
  }
  const hook = `#!/bin/sh\ntouch ${marker}\n`
  const config = `[core]\n\tfsmonitor = touch ${marker}\n`
  /** Each control and what a plant there would hold. */
  const plants: ReadonlyArray<readonly [string, string]> = [
    ["shared-hooks/pre-commit", hook],
    ["shared-hooks/post-commit", hook],
    ["sibling/hooks/pre-commit", hook],
    ["common.gitconfig", config],
    ["tools/mon.sh", hook],
    ["shared2/post-commit", hook],
    ["shared3/post-commit", hook]
  ]
  return { ...ws, marker, host, hostWork, plants }
}

const unchanged = (root: string) => {
  for (const dir of ["shared-hooks", "sibling/hooks", "shared2"]) expect(fs.readdirSync(path.join(root, dir)), dir).toEqual(["pre-commit"])
  expect(fs.readdirSync(path.join(root, "shared3")).filter((n) => n !== "pre-commit")).toEqual([])
  for (const f of ["shared-hooks/pre-commit", "sibling/hooks/pre-commit", "tools/mon.sh", "shared2/pre-commit"]) expect(fs.readFileSync(path.join(root, f), "utf8"), f).toBe(honest)
  expect(fs.readFileSync(path.join(root, "common.gitconfig"), "utf8")).toBe("[pull]\n\trebase = true\n")
}

describe.skipIf(unavailable !== undefined)(title("a nested repository's controls elsewhere in the workspace"), () => {
  it("file tools never write, move into, move away or delete them", () => {
    const { tool, root, plants, hostWork } = setup()
    for (const [file, content] of plants) {
      const r = tool("write_file", { path: file, content })
      expect(r.status, `write_file ${file}: ${r.stdout}`).not.toBe(0)
      expect(r.stdout).toMatch(/jail/)
    }
    expect(tool("write_file", { path: "staged.sh", content: plants[0]?.[1] ?? "" }).status).toBe(0)
    for (const [file] of plants) {
      const moved = tool("move_file", { from: "staged.sh", to: file })
      expect(moved.status, `move_file to ${file}: ${moved.stdout}`).not.toBe(0)
    }
    for (const target of ["shared-hooks/pre-commit", "tools/mon.sh", "common.gitconfig", "shared2/pre-commit"]) {
      expect(tool("delete_file", { path: target }).status, `delete ${target}`).not.toBe(0)
      expect(tool("move_file", { from: target, to: "moved-away" }).status, `move ${target}`).not.toBe(0)
    }
    for (const folder of ["shared-hooks", "sibling", "tools", "shared2", "shared3"]) {
      expect(tool("move_file", { from: folder, to: `${folder}-old` }).status, `move ${folder}`).not.toBe(0)
    }
    unchanged(root)
    expect(hostWork()).toBe(false)
  }, 240_000)

  it("sandboxed bash never leaves a plant there", () => {
    const { script, root, plants, hostWork } = setup()
    const lines = plants.map(([file, content]) => `printf '%s' '${content}' > ${file}; chmod +x ${file}`)
    script([...lines, "echo done"].join("\n"))
    unchanged(root)
    expect(hostWork()).toBe(false)
  }, 240_000)

  it("honest work beside them runs: files no configuration names, the user's own commits with the named hooks", () => {
    const { tool, script, root, hostWork } = setup()
    for (const file of ["sibling/src/main.c", "shared-notes/readme.txt", "tools/README.md", "projA/b.txt", "gd/notes.txt"]) {
      const r = tool("write_file", { path: file, content: "fine\n" })
      expect(r.status, `${file}: ${r.stdout}`).toBe(0)
    }
    expect(tool("move_file", { from: "shared-notes", to: "notes" }).status).toBe(0)
    expect(script("echo ok > sibling/src/gen.txt; echo ok > tools/other.txt; cat sibling/src/gen.txt")).toContain("ok")
    expect(fs.readFileSync(path.join(root, "tools/other.txt"), "utf8")).toBe("ok\n")
    unchanged(root)
    // The hooks the projects name still run for the user (honest ones: exit 0).
    expect(hostWork()).toBe(false)
  }, 240_000)

  it("through mcp serve: the same plants refused and removed", async () => {
    const { root, plants, hostWork } = setup()
    const s = await connect(root, ["--allow-all", "--no-ask"])
    cleanups.push(() => s.close())
    const call = async (name: string, args: Record<string, unknown>) => textOf(await s.client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 }))
    for (const [file, content] of plants) expect(await call("write_file", { path: file, content }), file).toMatch(/jail/)
    await call("bash", { command: plants.map(([file]) => `echo evil > ${file}`).join("; ") })
    unchanged(root)
    expect(hostWork()).toBe(false)
  }, 240_000)
})

/**
 * Same family, the top repository: the workspace `app/` of a larger repository whose `core.hooksPath` leaves the
 * repository's top and comes back into the workspace (`../r/app/hooks`). Covered before (the path is resolved from
 * the top); kept so it stays covered.
 */
describe.skipIf(unavailable !== undefined)(title("the top repository's hooks path through `..` into the workspace"), () => {
  it("file tools and bash never plant there", () => {
    const ws = attackWorkspace(cleanups)
    const app = path.join(ws.root, "app")
    fs.mkdirSync(path.join(app, "hooks"), { recursive: true })
    ws.git("config", "core.hooksPath", `../${path.basename(ws.root)}/app/hooks`)
    const tool = (name: string, args: unknown) =>
      spawnSync(process.execPath, [bin, "tool", name, JSON.stringify(args), "--cwd", app, "--work-mode", "BUILD", "--policy", "allow-all", "--json"], { encoding: "utf8" })
    expect(tool("write_file", { path: "hooks/pre-commit", content: "x" }).stdout).toMatch(/jail/)
    tool("bash", { command: "echo evil > hooks/post-commit; echo done" })
    expect(fs.readdirSync(path.join(app, "hooks"))).toEqual([])
    expect(tool("write_file", { path: "notes.txt", content: "fine\n" }).status).toBe(0)
  }, 120_000)
})
