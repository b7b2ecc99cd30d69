/**
 * End to end: long work is visible. The BUILT `minicode mcp serve` with the SDK's real Client: a bash call with a
 * progressToken gets notifications/progress while it runs, carrying its output's last line, and then its whole
 * result; without a token nothing is sent. `logging` is declared and `logging/setLevel` honoured: a journal an
 * earlier (killed) run left needing `recover` is told as a warning, and not below the level the client set.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { LoggingMessageNotificationSchema, type Progress } from "@modelcontextprotocol/sdk/types.js"
import { beforeAll, describe, expect, it } from "vitest"
import { connect, ensureBuilt, isErrorResult, makeWorkspace, Raw, sleep, textOf, workspaces } from "./support/McpServeHarness.js"

const { cleanups, workspace } = workspaces(makeWorkspace)
beforeAll(() => ensureBuilt(), 120_000)

const server = async (root: string, flags: ReadonlyArray<string> = []) => {
  const s = await connect(root, ["--sandbox", "none", ...flags])
  cleanups.push(() => s.close().catch(() => undefined))
  return s
}

describe("mcp serve: progress and log messages", () => {
  it("bash with a progressToken: progress at least every 2 s with the output's last line, then the whole result", async () => {
    const { root } = workspace()
    const { client } = await server(root)
    const seen: Array<Progress & { readonly at: number }> = []
    const started = Date.now()
    const result = await client.callTool(
      { name: "bash", arguments: { command: "echo step1; sleep 1; echo step2; sleep 1; echo step3; sleep 1; echo step4; sleep 1; echo step5; sleep 1" } },
      undefined,
      { onprogress: (p) => seen.push({ ...p, at: Date.now() }), timeout: 60_000 }
    )
    const took = Date.now() - started
    expect(isErrorResult(result), textOf(result)).toBe(false)
    expect(textOf(result)).toContain("step1\nstep2\nstep3\nstep4\nstep5")
    // One at least every 2 s of the run (the first after 1 s).
    expect(seen.length).toBeGreaterThanOrEqual(Math.floor(took / 2_000))
    expect(seen.length).toBeGreaterThanOrEqual(2)
    expect(seen.map((p) => p.progress)).toEqual([...seen.map((p) => p.progress)].sort((a, b) => a - b))
    expect(new Set(seen.map((p) => p.progress)).size).toBe(seen.length)
    expect(seen.some((p) => /^step[1-5]$/.test(p.message ?? ""))).toBe(true)
    for (const p of seen) expect(p.message ?? "").toMatch(/^(step[1-5]|running \(\d+ s\))$/)
  })

  it("without a progressToken nothing is sent, and the result is the same", async () => {
    const { root } = workspace()
    const { client } = await server(root)
    let notified = 0
    client.fallbackNotificationHandler = async (n) => {
      if (n.method === "notifications/progress") notified++
    }
    const result = await client.callTool({ name: "bash", arguments: { command: "echo a; sleep 2.5; echo b" } })
    expect(textOf(result)).toContain("a\nb")
    expect(notified).toBe(0)
  })

  it("declares logging; a journal left needing recover by a killed run is a warning, filtered by logging/setLevel", async () => {
    const { root } = workspace()
    // A run killed while a mutating call runs leaves its record pending.
    const killed = new Raw(root, ["--sandbox", "none"])
    cleanups.push(() => killed.kill())
    await killed.init()
    killed.call(1, "bash", { command: "echo started > started.txt; sleep 60" })
    for (let i = 0; i < 200 && !fs.existsSync(path.join(root, "started.txt")); i++) await sleep(50)
    killed.kill()
    await killed.exit()

    const messages = async (level: "warning" | "error") => {
      const { client } = await server(root)
      expect(client.getServerCapabilities()?.logging).toEqual({})
      const got: Array<{ level: string; data: unknown }> = []
      client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
        got.push({ level: n.params.level, data: n.params.data })
      })
      await client.setLoggingLevel(level)
      const w = await client.callTool({ name: "write_file", arguments: { path: `w-${level}.txt`, content: "x\n" } })
      expect(isErrorResult(w), textOf(w)).toBe(false)
      // The check runs beside the call; a read after it gives it time to be sent.
      for (let i = 0; i < 40 && got.length === 0; i++) await sleep(100)
      return got
    }
    const warnings = await messages("warning")
    expect(warnings).toEqual([expect.objectContaining({ level: "warning", data: expect.stringContaining("minicode recover") })])
    const errorsOnly = await messages("error")
    expect(errorsOnly).toEqual([])
  })
})
