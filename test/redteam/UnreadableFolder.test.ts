/**
 * Red team (issue 19), secrets in folders the scan cannot read: the sandbox's scan treats a folder it cannot list as
 * empty ("unreadable to minicode is unreadable to the sandbox, which runs as the same user"). But the sandbox runs as
 * the folder's owner, who may chmod it back. minicode as an ordinary user (the usual install): bash makes `conf/`
 * (holding `conf/.env`) mode 000 in one call; the next call's scan lists nothing there, masks nothing, and the
 * script chmods `conf/` back and reads `conf/.env`.
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

const root = process.getuid?.() === 0
const setpriv = spawnSync("setpriv", ["--version"]).status === 0
const cleanups: Array<() => void> = []
afterEach(() => {
  for (const c of cleanups.splice(0)) c()
})
beforeAll(() => ensureBuilt())

const asUser = (args: ReadonlyArray<string>, home: string) =>
  root
    ? spawnSync("setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", "env", `HOME=${home}`, process.execPath, bin, ...args], { encoding: "utf8" })
    : spawnSync(process.execPath, [bin, ...args], { encoding: "utf8", env: { ...process.env, HOME: home } })

describe.skipIf(unavailable !== undefined || (root && !setpriv))(title("a folder holding a secret made unreadable from bash"), () => {
  it("the next call's bash cannot read the secret after making the folder readable again", () => {
    const parent = fs.mkdtempSync(path.join(os.tmpdir(), "minicode-unreadable-"))
    cleanups.push(() => fs.rmSync(parent, { recursive: true, force: true }))
    const ws = path.join(parent, "ws")
    const home = path.join(parent, "home")
    fs.mkdirSync(path.join(ws, "conf"), { recursive: true })
    fs.mkdirSync(home)
    execFileSync("git", ["init", "-q"], { cwd: ws })
    fs.writeFileSync(path.join(ws, "conf/.env"), "SECRET=canary-unreadable-folder\n")
    fs.writeFileSync(path.join(ws, "lock.sh"), "chmod 000 conf && echo locked\n")
    fs.writeFileSync(path.join(ws, "read.sh"), "chmod 755 conf; cat conf/.env; echo read-done\n")
    if (root) {
      fs.chmodSync(parent, 0o755)
      execFileSync("chown", ["-R", "65534:65534", ws, home])
    }
    const tool = (name: string, args: unknown) =>
      asUser(["tool", name, JSON.stringify(args), "--cwd", ws, "--work-mode", "BUILD", "--policy", "allow-all"], home)
    // The attack has teeth: the script runs, and a secret the scan can read is masked.
    const direct = tool("bash", { command: "sh read.sh" })
    expect(direct.stdout).toContain("read-done")
    expect(direct.stdout + direct.stderr).not.toContain("canary-unreadable-folder")
    expect(tool("bash", { command: "sh lock.sh" }).stdout).toContain("locked")
    const r = tool("bash", { command: "sh read.sh" })
    expect(r.stdout).toContain("read-done")
    expect(r.stdout + r.stderr).not.toContain("canary-unreadable-folder")
  })
})
