/**
 * A protected file's content guessed through git's object store (issue 19, family 4). `.env` is never committed;
 * sandboxed bash cannot read it. It writes the blob of a guess (`git hash-object -w`, or a commit of a file holding
 * the guess). Was an oracle: the sandbox hides a store holding a protected file's content, and the git tools hide a
 * blob whose id is one, so the next call found the store hidden (git add failed, `.git/objects` empty), and
 * git_show hid the committed file, exactly when the guess was `.env`'s content. Objects a writable sandboxed call
 * adds are now content it knew (`StoreSecrets.noteMade`), never taken for a protected file's; so are those that
 * appear while another call runs (`mcp serve` runs calls side by side). Right and wrong guesses get the same answers.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { connect, textOf } from "../serve/support/McpServeHarness.js"
import { title, unavailable } from "../support/Sandbox.js"
import { attackFile, attackWorkspace } from "./support/Attack.js"

const cleanups = attackFile()
const secret = "PIN=4821"
// The loose objects seen (a hidden store shows none), counted by file: counting fan-out folders made the right and a
// wrong guess differ whenever one guess's id shared its first two digits with another object's (a flaky oracle).
const probe = "n=$(find .git/objects -type f -path '*/??/*' | wc -l); echo x > c.txt; git add c.txt 2>/dev/null && echo added:$n || echo refused:$n"

/** A workspace with an untracked `.env` and one sandboxed call already run (its state remembered). */
const workspace = () => {
  const w = attackWorkspace(cleanups)
  fs.writeFileSync(path.join(w.root, ".env"), `${secret}\n`)
  expect(w.script("echo ready")).toContain("ready")
  return w
}

describe.skipIf(unavailable !== undefined)(title("guesses written to git's object store are no oracle"), () => {
  it("a blob written by hash-object: the next call sees the same store for the right and a wrong guess", () => {
    const seen = (guess: string) => {
      const w = workspace()
      expect(w.script(`printf '${guess}\\n' | git hash-object -w --stdin`)).toMatch(/[0-9a-f]{40}/)
      return w.script(probe).replace(/\s*\[exit code: \d+\]/, "")
    }
    const right = seen(secret)
    expect(right).toContain("added:")
    expect(right).toBe(seen("PIN=0000"))
  }, 120_000)

  it("a guess committed under another name: git_show shows the right and a wrong guess alike", () => {
    const seen = (guess: string) => {
      const w = workspace()
      expect(w.script(`printf '${guess}\\n' > notes.txt && git add notes.txt && git commit -qm notes && echo committed`)).toContain("committed")
      const shown = w.tool("git_show", { rev: "HEAD" }).stdout
      return { hidden: shown.includes("hidden"), store: w.script(probe).replace(/\s*\[exit code: \d+\]/, "") }
    }
    const right = seen(secret)
    expect(right).toEqual({ hidden: false, store: expect.stringContaining("added:") })
    expect(right).toEqual(seen("PIN=0000"))
  }, 120_000)

  it("through mcp serve, with a second call starting while the first has written the guess", async () => {
    const w = workspace()
    const s = await connect(w.root, ["--allow-all", "--no-ask"])
    cleanups.push(() => s.close())
    const bash = async (command: string) => textOf(await s.client.callTool({ name: "bash", arguments: { command } }, undefined, { timeout: 120_000 }))
    expect(await bash("true")).not.toMatch(/error/i)
    const first = bash(`printf '${secret}\\n' | git hash-object -w --stdin && sleep 3 && echo slept`)
    await new Promise((r) => setTimeout(r, 1500))
    // Its check runs while the first call, which wrote the object, still runs.
    expect(await bash("echo second")).toContain("second")
    expect(await first).toContain("slept")
    expect(await bash(probe)).toContain("added:")
  }, 120_000)
})
