/**
 * Red team (issue 19), language servers and the object store: a server runs repository code (a workspace
 * tsserver.js, a build step), so what it can read can come back to the agent in a hover. The stand-in server
 * (support/lsp-file-reader.mjs) answers every hover with the files it can read and `git cat-file --batch-all-objects --batch`.
 *
 * Was a hole: with a secret committed and then removed (and the file now holding other content), `lsp_hover` printed
 * the secret's blob: the servers' sandbox showed the object store that bash's hides. Now the launcher passes the same
 * history check to the servers' sandbox (app/NodeLayers.ts `serverLauncher`).
 */
import { execFileSync, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, beforeAll, describe, expect, it } from "vitest"
import { bin, ensureBuilt, makeGitWorkspace } from "../serve/support/McpServeHarness.js"
import { title, unavailable } from "../support/Sandbox.js"

const canary = "LSPSTORECANARY"
const reader = path.resolve(import.meta.dirname, "support/lsp-file-reader.mjs")
const cleanups: Array<() => unknown> = []
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c()
})
beforeAll(() => ensureBuilt())

const setup = () => {
  const ws = makeGitWorkspace()
  cleanups.push(ws.cleanup)
  const home = path.join(ws.parent, "home")
  fs.mkdirSync(home)
  const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(home, ".config") }
  const add = spawnSync(process.execPath, [bin, "config", "lsp", "add", ".txt", "--global", "--command", process.execPath, "--arg", reader], { env, encoding: "utf8" })
  expect(add.status, add.stderr).toBe(0)
  fs.writeFileSync(path.join(ws.root, "a.txt"), "hello\n")
  const hover = () =>
    spawnSync(process.execPath, [bin, "tool", "lsp_hover", JSON.stringify({ path: "a.txt", line: 1, character: 1 }), "--cwd", ws.root, "--work-mode", "BUILD", "--policy", "allow-all", "--json"], {
      env,
      encoding: "utf8",
      timeout: 60_000
    })
  return { ...ws, hover }
}

describe.skipIf(unavailable !== undefined)(title("a language server reading the object store"), () => {
  it("the attack has teeth: with a clean history the server reads a committed file's content", () => {
    const { root, git, hover } = setup()
    fs.writeFileSync(path.join(root, "b.txt"), `${canary}-PLAIN\n`)
    git("add", "b.txt")
    git("commit", "-q", "-m", "plain")
    // Only in the store now: what the hover shows of it comes from the objects.
    fs.rmSync(path.join(root, "b.txt"))
    expect(hover().stdout).toContain(`${canary}-PLAIN`)
  }, 90_000)

  it("a secret in the history (removed since, the file changed) never reaches a hover", () => {
    const { root, git, hover } = setup()
    fs.writeFileSync(path.join(root, ".env"), `TOKEN=${canary}\n`)
    git("add", "-f", ".env")
    git("commit", "-q", "-m", "oops")
    git("rm", "-q", "--cached", ".env")
    git("commit", "-q", "-m", "untrack")
    fs.writeFileSync(path.join(root, ".env"), "TOKEN=rotated\n")
    expect(execFileSync("git", ["log", "--oneline"], { cwd: root, encoding: "utf8" })).toContain("oops")
    const r = hover()
    expect(r.stdout).toContain("hover of a.txt")
    expect(r.stdout + r.stderr).not.toContain(canary)
  }, 90_000)
})
