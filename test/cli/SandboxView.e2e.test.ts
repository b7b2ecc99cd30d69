/**
 * The sandbox's view through the BUILT binary (`dist/bin.js tool bash … --work-mode BUILD --policy allow-all`),
 * the guard in front as users run it: whichever wall stops it, no call shows the token in git's remote URL or a
 * secret in an ignored folder, `.git` cannot be moved away, and git still works. Skipped without a usable sandbox
 * (the CLI's default `auto` would then run unsandboxed); in CI that is a failure.
 */
import { execFileSync, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { beforeAll, describe, expect, it } from "vitest"
import { bin, ensureBuilt } from "../serve/support/McpServeHarness.js"
import { mustRun, title, unavailable } from "../support/Sandbox.js"

const TOKEN = "ghp_CliViewToken0987654321"

beforeAll(() => ensureBuilt())

if (unavailable !== undefined && mustRun) {
  describe("sandbox view through the CLI in CI", () => {
    it("bwrap must be usable in CI (CI=true)", () => expect.fail(`sandbox unavailable in CI: ${unavailable}`))
  })
}

describe.skipIf(unavailable !== undefined)(title("the sandbox's view through the CLI"), () => {
  it("no command shows a token or a vendored secret; .git stays; git status runs", () => {
    const ws = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "minicode-cliview-")))
    try {
      execFileSync("git", ["init", "-q"], { cwd: ws })
      execFileSync("git", ["remote", "add", "origin", `https://x-access-token:${TOKEN}@github.com/acme/app.git`], { cwd: ws })
      fs.mkdirSync(path.join(ws, "node_modules", "p"), { recursive: true })
      fs.writeFileSync(path.join(ws, "node_modules", "p", ".npmrc"), `//r/:_authToken=${TOKEN}`)
      fs.mkdirSync(path.join(ws, "a/b/c/d/e/f/g/h"), { recursive: true })
      fs.writeFileSync(path.join(ws, "a/b/c/d/e/f/g/h/.env"), `X=${TOKEN}`)
      fs.writeFileSync(path.join(ws, "README"), "hi\n")
      const bash = (command: string) => {
        const r = spawnSync(process.execPath, [bin, "tool", "bash", JSON.stringify({ command }), "--cwd", ws, "--work-mode", "BUILD", "--policy", "allow-all"], { encoding: "utf8", cwd: ws })
        return { status: r.status, text: `${r.stdout}\n${r.stderr}` }
      }
      for (const command of [
        "git remote -v",
        "git config --list",
        "cat .git/config",
        "cp -r .git g && cat g/config",
        "cat g/config",
        "grep -r ghp_ . ",
        "find . -name '.npmrc' -exec cat {} +",
        "find a -type f | xargs cat",
        "tar cf - node_modules a | strings"
      ]) {
        expect(bash(command).text, command).not.toContain(TOKEN)
      }
      const mv = bash("mv .git g2")
      expect(mv.status).not.toBe(0)
      expect(fs.existsSync(path.join(ws, "g2"))).toBe(false)
      expect(fs.readFileSync(path.join(ws, ".git", "config"), "utf8")).toContain(TOKEN)
      const status = bash("git status --short")
      expect(status.status, status.text).toBe(0)
      expect(status.text).toContain("README")
    } finally {
      fs.rmSync(ws, { recursive: true, force: true })
    }
  }, 120_000)
})
