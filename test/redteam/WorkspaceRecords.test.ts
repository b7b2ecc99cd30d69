/**
 * Issue 41 (red team): the records that decide what a writable call puts back were trusted from the workspace. A
 * workspace script made `sub/.minicode/gitcontrol.json` (a nested `.minicode` is no state folder of the session's, so
 * not masked) saying a killed call had left `sub/.git/commondir` = `../evil`; the next writable call of a session
 * rooted at `sub` "restored" it, and the user's `git status` ran the planted `core.fsmonitor` on the host. A cloned
 * repository committing such a record (`.minicode/gitcontrol.json`, `sub/.minicode/gitcontrol.json`) did the same at
 * its first bash call. Now the records live outside the workspace (`StateHome`: `$XDG_STATE_HOME/minicode/<id>`), and
 * one found in any `.minicode/` is data, never read. Through the built CLI and `mcp serve`.
 */
import { execFileSync, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { bin, connect, textOf } from "../serve/support/McpServeHarness.js"
import { runCli } from "../support/Cli.js"
import { title, unavailable } from "../support/Sandbox.js"
import { stateOf } from "../support/StateHome.js"
import { attackFile, attackWorkspace } from "./support/Attack.js"

const cleanups = attackFile()

/** A pid no process has (`kill -0` fails): the record's call looks killed. */
const dead = 999_999_999

/** A GitControl record as a killed call would have left it: `commondir` of `gitDir` was `../evil`. */
const record = (gitDir: string) =>
  JSON.stringify({
    calls: [{ owner: { pid: dead, start: "" }, id: `${dead}-g1` }],
    gitDirs: [gitDir],
    files: [[path.join(gitDir, "commondir"), { kind: "file", content: Buffer.from("../evil\n").toString("base64") }]]
  })

/** The repository `evil/` beside `gitDir` would lead to: a config running `touch marker`, objects and refs to pass as one. */
const evilFiles = (repo: string, marker: string): Record<string, string> => ({
  [path.join(repo, "evil/config")]: `[core]\n\trepositoryformatversion = 0\n\tfsmonitor = touch ${marker}\n`,
  [path.join(repo, "evil/objects/info/keep")]: "",
  [path.join(repo, "evil/refs/heads/keep")]: ""
})

/** The user's own git on the host, later, with no global configuration. */
const hostGit = (cwd: string) =>
  spawnSync("git", ["status", "--short"], { cwd, encoding: "utf8", env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" } })

/** One bash call by the built CLI in a session rooted at `cwd`. */
const cliBash = async (cwd: string, command: string) => {
  const r = await runCli(bin, ["tool", "bash", JSON.stringify({ command }), "--cwd", cwd, "--work-mode", "BUILD", "--policy", "allow-all"], { timeoutMs: 120_000 })
  return `${r.stdout}${r.stderr}`
}

/** One bash call through `mcp serve` rooted at `cwd`. */
const serveBash = async (cwd: string, command: string) => {
  const s = await connect(cwd, ["--allow-all", "--no-ask"])
  try {
    return textOf(await s.client.callTool({ name: "bash", arguments: { command } }, undefined, { timeout: 120_000 }))
  } finally {
    await s.close()
  }
}

const through = { cli: cliBash, serve: serveBash } as const

/** Nothing was "restored": no `commondir` in `repo`'s git folder, and the user's `git status` there runs nothing planted. */
const nothingRestored = (repo: string, marker: string) => {
  expect(fs.existsSync(path.join(repo, ".git/commondir"))).toBe(false)
  expect(hostGit(repo).status).toBe(0)
  expect(fs.existsSync(marker)).toBe(false)
}

describe.skipIf(unavailable !== undefined)(title("records found in the workspace are data (issue 41)"), () => {
  for (const [name, bash] of Object.entries(through)) {
    it(`${name}: a nested record a workspace script made is never read by a session rooted there`, async () => {
      const w = attackWorkspace(cleanups)
      const sub = path.join(w.root, "sub")
      const marker = path.join(w.parent, "PWNED")
      execFileSync("git", ["init", "-q", sub])
      // The script, in sandboxed bash of a session rooted at the top: the repository `sub/evil` and the record.
      const files = { ...evilFiles(sub, marker), [path.join(sub, ".minicode/gitcontrol.json")]: record(path.join(sub, ".git")) }
      const body = Object.entries(files)
        .map(([f, text]) => `mkdir -p '${path.dirname(f)}' && printf '%s' '${text.replace(/'/g, "'\\''")}' > '${f}'`)
        .join("\n")
      const planted = w.script(`${body}\necho planted`)
      expect(planted).toContain("planted")
      const recordAt = path.join(sub, ".minicode/gitcontrol.json")
      if (!fs.existsSync(recordAt)) {
        // Staged bash (issue 41): the merge refuses a change under any `.minicode`, by its rule; the record is put
        // there by hand, as a clone would bring it, and the rest of the attack goes on.
        expect(planted).toContain("jail.minicode-state")
        fs.mkdirSync(path.dirname(recordAt), { recursive: true })
        fs.writeFileSync(recordAt, files[recordAt] ?? "")
      }
      // What the old code read as the record is there (the attack is real), and the top's call ended cleanly.
      expect(fs.readFileSync(recordAt, "utf8")).toContain("commondir")
      nothingRestored(sub, marker)
      // A session rooted at `sub`: its first writable call.
      expect(await bash(sub, "echo first")).toContain("first")
      nothingRestored(sub, marker)
      // The records are where no tool reaches: outside the workspace, and the sub session's own is gone (call ended).
      expect(path.relative(w.root, stateOf(sub)).startsWith("..")).toBe(true)
      expect(fs.existsSync(path.join(stateOf(sub), "gitcontrol.json"))).toBe(false)
    }, 240_000)

    it(`${name}: a cloned repository's committed records (top and nested) are never read by its first bash call`, async () => {
      const parent = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "minicode-clone-")))
      cleanups.push(() => fs.rmSync(parent, { recursive: true, force: true }))
      const origin = path.join(parent, "origin")
      const root = path.join(parent, "clone")
      const marker = path.join(parent, "PWNED")
      const git = (cwd: string, ...args: Array<string>) => execFileSync("git", ["-c", "user.name=a", "-c", "user.email=a@a", ...args], { cwd, encoding: "utf8" })
      fs.mkdirSync(origin)
      git(origin, "init", "-q", "-b", "main")
      // Committed by the repository's author, guessing where it will be cloned: records for the top and for `sub`.
      const files = {
        "README.md": "hello\n",
        ".minicode/gitcontrol.json": record(path.join(root, ".git")),
        "sub/.minicode/gitcontrol.json": record(path.join(root, "sub/.git")),
        ...Object.fromEntries(Object.entries(evilFiles(root, marker)).map(([f, t]) => [path.relative(root, f), t])),
        ...Object.fromEntries(Object.entries(evilFiles(path.join(root, "sub"), marker)).map(([f, t]) => [path.relative(root, f), t]))
      }
      for (const [f, text] of Object.entries(files)) {
        fs.mkdirSync(path.dirname(path.join(origin, f)), { recursive: true })
        fs.writeFileSync(path.join(origin, f), text)
      }
      git(origin, "add", "-f", ".")
      git(origin, "commit", "-q", "-m", "a project")
      git(parent, "clone", "-q", origin, root)
      expect(fs.readFileSync(path.join(root, ".minicode/gitcontrol.json"), "utf8")).toContain("commondir")
      // The first bash call of a session rooted at the clone.
      expect(await bash(root, "echo first")).toContain("first")
      nothingRestored(root, marker)
      // The user makes `sub` a repository of its own and works there.
      git(root, "init", "-q", "sub")
      expect(await bash(path.join(root, "sub"), "echo first")).toContain("first")
      nothingRestored(path.join(root, "sub"), marker)
    }, 240_000)
  }

  it("the state folder is at ~/.local/state/minicode/<id> by default, private, outside the workspace, and bash sees none of it", async () => {
    const w = attackWorkspace(cleanups)
    const home = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "minicode-home-")))
    cleanups.push(() => fs.rmSync(home, { recursive: true, force: true }))
    const env: NodeJS.ProcessEnv = { ...process.env, HOME: home }
    delete env["XDG_STATE_HOME"]
    const states = path.join(home, ".local/state/minicode")
    const r = await runCli(bin, ["tool", "bash", JSON.stringify({ command: `ls -A ${states} 2>&1; ls -A ${home} 2>&1; echo end` }), "--cwd", w.root, "--work-mode", "BUILD", "--policy", "allow-all"], { env, timeoutMs: 120_000 })
    const out = r.stdout + r.stderr
    expect(out).toContain("end")
    // Made by this call (its records, the scan cache), but not shown to it: the sandbox's home is empty.
    const made = fs.readdirSync(states)
    expect(made).toHaveLength(1)
    expect(made[0]).toMatch(new RegExp(`^${path.basename(w.root).replace(/[^A-Za-z0-9._-]/g, "_")}-[0-9a-f]{20}$`))
    expect(fs.statSync(path.join(states, made[0] ?? "")).mode & 0o777).toBe(0o700)
    expect(out).toContain("No such file or directory")
    expect(out).not.toContain(made[0])
    // Nothing of minicode's records in the workspace's `.minicode/` (the journal only).
    for (const n of fs.readdirSync(path.join(w.root, ".minicode"))) expect(["state.db", "state.db-wal", "state.db-shm", "state.db-reserve", ".gitignore"]).toContain(n)
  }, 120_000)

  it("a workspace that holds the home and no XDG_STATE_HOME or XDG_RUNTIME_DIR: writable bash is refused, saying what to set; nothing is kept inside", async () => {
    const w = attackWorkspace(cleanups)
    const env: NodeJS.ProcessEnv = { ...process.env, HOME: w.root }
    delete env["XDG_STATE_HOME"]
    delete env["XDG_RUNTIME_DIR"]
    const r = await runCli(bin, ["tool", "bash", JSON.stringify({ command: "echo ran > ran.txt" }), "--cwd", w.root, "--work-mode", "BUILD", "--policy", "allow-all"], { env, timeoutMs: 120_000 })
    expect(r.status).not.toBe(0)
    expect(r.stdout + r.stderr).toContain("XDG_STATE_HOME")
    expect(fs.existsSync(path.join(w.root, "ran.txt"))).toBe(false)
    expect(fs.existsSync(path.join(w.root, ".local/state/minicode"))).toBe(false)
    // With a place outside named, it runs.
    const state = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "minicode-xdg-")))
    cleanups.push(() => fs.rmSync(state, { recursive: true, force: true }))
    const ok = await runCli(bin, ["tool", "bash", JSON.stringify({ command: "echo ran > ran.txt" }), "--cwd", w.root, "--work-mode", "BUILD", "--policy", "allow-all"], { env: { ...env, XDG_STATE_HOME: state }, timeoutMs: 120_000 })
    expect(ok.status, ok.stderr).toBe(0)
    expect(fs.readFileSync(path.join(w.root, "ran.txt"), "utf8")).toBe("ran\n")
    expect(fs.readdirSync(path.join(state, "minicode"))).toHaveLength(1)
  }, 120_000)
})
