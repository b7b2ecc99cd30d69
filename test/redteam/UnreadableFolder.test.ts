/**
 * Red team (issue 19), secrets in folders the scan cannot read: the sandbox's scan treats a folder it cannot list as
 * empty ("unreadable to minicode is unreadable to the sandbox, which runs as the same user"). But the sandbox runs as
 * the folder's owner, who may chmod it back. minicode as an ordinary user (the usual install): bash makes `conf/`
 * (holding `conf/.env`) mode 000 in one call; the next call's scan lists nothing there, masks nothing, and the
 * script chmods `conf/` back and reads `conf/.env`.
 *
 * Likewise GitControl's check of a nested repository's hooks lists `hooks/` to find them: a hook planted there, its
 * folder then made mode 311 (searchable, not listable), is never seen, stays, and the user's next commit in that
 * repository runs it on the host.
 *
 * Run as uid 65534 through setpriv when the tests run as root (root's scan reads any folder, so the hole needs an
 * ordinary user); as the current user otherwise.
 */
import { execFileSync, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterEach, beforeAll, describe, expect, it } from "vitest"
import { bin, ensureBuilt } from "../serve/support/McpServeHarness.js"
import { title, unavailable } from "../support/Sandbox.js"
import { liveSandbox } from "../support/Staged.js"

// A folder made unlistable from bash, as an ordinary user: the live sandbox's masks of what it cannot scan. Staged
// bash as an ordinary user (an overlay over folders of root's) is not attacked here yet.
liveSandbox()

const root = process.getuid?.() === 0
const setpriv = spawnSync("setpriv", ["--version"]).status === 0
const cleanups: Array<() => void> = []
afterEach(() => {
  for (const c of cleanups.splice(0)) c()
})
beforeAll(() => ensureBuilt())

const asUser = (args: ReadonlyArray<string>, home: string) =>
  root
    ? // minicode's state folder is the user's own (the test run's XDG_STATE_HOME is root's).
      spawnSync("setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", "env", `HOME=${home}`, `XDG_STATE_HOME=${home}/.local/state`, process.execPath, bin, ...args], { encoding: "utf8" })
    : spawnSync(process.execPath, [bin, ...args], { encoding: "utf8", env: { ...process.env, HOME: home, XDG_STATE_HOME: `${home}/.local/state` } })

/** A workspace (a git repository) owned by the user the CLI runs as, its home, and the CLI's tool call as that user. */
const setup = () => {
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), "minicode-unreadable-"))
  cleanups.push(() => fs.rmSync(parent, { recursive: true, force: true }))
  const ws = path.join(parent, "ws")
  const home = path.join(parent, "home")
  fs.mkdirSync(ws)
  fs.mkdirSync(home)
  execFileSync("git", ["init", "-q"], { cwd: ws })
  const own = () => {
    if (!root) return
    fs.chmodSync(parent, 0o755)
    execFileSync("chown", ["-R", "65534:65534", ws, home])
  }
  const tool = (name: string, args: unknown) =>
    asUser(["tool", name, JSON.stringify(args), "--cwd", ws, "--work-mode", "BUILD", "--policy", "allow-all"], home)
  return { ws, home, own, tool }
}

describe.skipIf(unavailable !== undefined || (root && !setpriv))(title("folders made unlistable from bash (minicode as an ordinary user)"), () => {
  it("the next call's bash cannot read the secret after making the folder readable again", () => {
    const { ws, own, tool } = setup()
    fs.mkdirSync(path.join(ws, "conf"))
    fs.writeFileSync(path.join(ws, "conf/.env"), "SECRET=canary-unreadable-folder\n")
    fs.writeFileSync(path.join(ws, "lock.sh"), "chmod 000 conf && echo locked\n")
    fs.writeFileSync(path.join(ws, "read.sh"), "chmod 755 conf; cat conf/.env; echo read-done\n")
    own()
    // The attack has teeth: the script runs, and a secret the scan can read is masked.
    const direct = tool("bash", { command: "sh read.sh" })
    expect(direct.stdout).toContain("read-done")
    expect(direct.stdout + direct.stderr).not.toContain("canary-unreadable-folder")
    expect(tool("bash", { command: "sh lock.sh" }).stdout).toContain("locked")
    const r = tool("bash", { command: "sh read.sh" })
    expect(r.stdout).toContain("read-done")
    expect(r.stdout + r.stderr).not.toContain("canary-unreadable-folder")
  })

  it("a hook planted in a nested repository whose hooks folder is made unlistable is removed: the user's commit there runs nothing", () => {
    const { ws, home, own, tool } = setup()
    const marker = path.join(home, "PWNED")
    fs.writeFileSync(path.join(ws, "plant.sh"), `mkdir sub && cd sub && git init -q && git -c user.name=x -c user.email=y commit -q --allow-empty -m s
printf '#!/bin/sh\\ntouch ${marker}\\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit
chmod 311 .git/hooks && echo planted
`)
    own()
    expect(tool("bash", { command: "sh plant.sh" }).stdout).toContain("planted")
    // The user's own commit in the nested repository, later, as the same user.
    const args = ["-C", path.join(ws, "sub"), "-c", "user.name=u", "-c", "user.email=e", "commit", "-q", "--allow-empty", "-m", "user"]
    const env = { ...process.env, HOME: home, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" }
    if (root) spawnSync("setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", "git", ...args], { env })
    else spawnSync("git", args, { env })
    expect(fs.existsSync(marker)).toBe(false)
  })
})
