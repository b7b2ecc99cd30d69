/**
 * `minicode recover` while `mcp serve` is still mid-call (issue 44 item 6): the journal records which process wrote
 * each record (pid and start time), so recover tells a call still running in that live process from one whose
 * process died: it says "still running in process N (it was not killed)" and exits 0; once the server is killed,
 * the same record is "stopped first (killed, …)" and recover exits 4. Built CLI, real `mcp serve` with the SDK client.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, beforeAll, describe, expect, it } from "vitest"
import { runCli } from "../support/Cli.js"
import { bin, connect, ensureBuilt, makeWorkspace } from "../serve/support/McpServeHarness.js"

const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})
beforeAll(() => ensureBuilt(), 120_000)

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe("recover: a call still running is not a killed one", () => {
  it("running in a live mcp serve: said so, exit 0; after SIGKILL: killed, exit 4", async () => {
    const ws = makeWorkspace()
    cleanups.push(ws.cleanup)
    const s = await connect(ws.root, ["--allow-all", "--no-ask", "--sandbox", "none"])
    cleanups.push(() => s.close().catch(() => undefined))
    const call = s.client.callTool({ name: "bash", arguments: { command: "touch started && sleep 60" } }, undefined, { timeout: 120_000 }).catch(() => undefined)
    for (let i = 0; i < 300 && !fs.existsSync(path.join(ws.root, "started")); i++) await sleep(100)
    expect(fs.existsSync(path.join(ws.root, "started"))).toBe(true)

    const live = await runCli(bin, ["recover", "--cwd", ws.root])
    expect(live.stdout).toMatch(/#\d+ bash `touch started && sleep 60` \(turn mcp-server\/\d+\) is still running in process \d+ \(it was not killed\)/)
    expect(live.stdout).toContain(`process ${s.pid}`)
    expect(live.stdout).not.toContain("killed, crashed")
    expect(live.stdout).toContain("still running; run `minicode recover` again")
    expect(live.status, live.stdout + live.stderr).toBe(0)
    const json = JSON.parse((await runCli(bin, ["recover", "--json", "--cwd", ws.root])).stdout)
    expect(json.items).toEqual([expect.objectContaining({ tool: "bash", state: "pending", running: true })])

    process.kill(s.pid, "SIGKILL")
    await call
    for (let i = 0; i < 50; i++) {
      try {
        process.kill(s.pid, 0)
        await sleep(100)
      } catch {
        break
      }
    }
    const dead = await runCli(bin, ["recover", "--cwd", ws.root])
    expect(dead.stdout).toContain("the process running it stopped first (killed, crashed, or the machine went down)")
    expect(dead.stdout).not.toContain("still running")
    expect(dead.status).toBe(4)
  }, 120_000)
})
