/**
 * `minicode recover` on the built CLI: each open item in one sentence (what it was, why its outcome is unknown,
 * the command that settles it), exit 4 while one waits for a human, 0 once each is resolved.
 */
import { spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"

const bin = path.resolve("dist/bin.js")
const ws = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "minicode-recover-")))
afterAll(() => fs.rmSync(ws, { recursive: true, force: true }))
const minicode = (args: ReadonlyArray<string>) => spawnSync(process.execPath, [bin, ...args, "--cwd", ws], { encoding: "utf8", timeout: 60_000 })
const records = () => JSON.parse(minicode(["journal", "--json"]).stdout) as ReadonlyArray<{ seq: number; state: string }>

/** A bash call that runs until `stop`, once its pending record is in the journal. */
const stopped = async (stop: NodeJS.Signals, expectSeq: number) => {
  const child = spawn(process.execPath, [bin, "tool", "bash", '{"command":"sleep 30 # then tidy"}', "--cwd", ws, "--work-mode", "BUILD", "--sandbox", "none", "--policy", "allow-all"], {
    stdio: ["ignore", "ignore", "pipe"]
  })
  child.stderr.resume()
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)))
  for (;;) {
    if (records().some((r) => r.seq === expectSeq && r.state === "pending")) break
    await new Promise((r) => setTimeout(r, 100))
  }
  child.kill(stop)
  return exited
}

describe("minicode recover", () => {
  it("explains each open item in one sentence and exits 4 until each is settled", async () => {
    expect(minicode(["recover"]).stdout.trim()).toBe("nothing to recover: every turn was finalised")
    await stopped("SIGKILL", 1)
    expect(await stopped("SIGINT", 2)).toBe(130)
    const plan = minicode(["recover"])
    expect(plan.status).toBe(4)
    expect(plan.stdout.trim().split("\n")).toEqual([
      "- #1 bash `sleep 30 # then tidy` (turn cli/1) never recorded an outcome: the process running it stopped first (killed, crashed, or the machine went down): look at what that command changes, then run `minicode recover resolve 1 applied` if it happened, `minicode recover resolve 1 absent` if not.",
      "- #2 bash `sleep 30 # then tidy` (turn cli/2) was interrupted while it ran (Ctrl-C, SIGTERM or a cancelled request), so it may have done part of its work: look at what that command changes, then run `minicode recover resolve 2 applied` if it happened, `minicode recover resolve 2 absent` if not.",
      "Nothing was re-executed. 2 calls wait for a human: settle each with the command on their line."
    ])
    const json = JSON.parse(minicode(["recover", "--json"]).stdout) as { items: ReadonlyArray<{ seq: number; classification: string; explanation: string }> }
    expect(json.items.map((i) => [i.seq, i.classification])).toEqual([[1, "verify"], [2, "verify"]])
    expect(json.items[0]?.explanation).toMatch(/^#1 bash .*resolve 1 absent` if not\.$/)

    // The commands it names settle the items.
    expect(minicode(["recover", "resolve", "1", "absent"]).status).toBe(0)
    const one = minicode(["recover"])
    expect(one.status).toBe(4)
    expect(one.stdout).toContain("- #1 bash `sleep 30 # then tidy` (turn cli/1) was resolved by a human as absent: it did not happen, and it may be retried after a look.")
    expect(one.stdout).toContain("One call waits for a human: settle it with the command on its line.")
    expect(minicode(["recover", "resolve", "2", "applied"]).status).toBe(0)
    const done = minicode(["recover"])
    expect(done.status).toBe(0)
    expect(done.stdout).toContain("- #2 bash `sleep 30 # then tidy` (turn cli/2) was resolved by a human as applied: nothing to do, and it is not to be repeated.")
    expect(done.stdout.trim().split("\n").pop()).toBe("Nothing waits for a human: every outcome above is known (nothing is ever repeated by itself).")
  })
})
