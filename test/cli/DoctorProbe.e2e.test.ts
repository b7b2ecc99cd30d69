/**
 * `minicode doctor` tells a slow MCP server from a dead one (issue 44 item 6): through the built CLI, with real
 * stdio MCP servers configured in a scratch config folder and the probe's patience shortened by
 * MINICODE_DOCTOR_PROBE_MS (3 s; the second chance is 18 s): a server that answers tools/list after 6 s "answers
 * slowly" and doctor exits 0 (margins wide enough for a server start at the CI machine's load: with 1 s and 2.5 s a
 * loaded machine made the slow server a dead one); one that never answers, and one that exits at start, "DOES NOT ANSWER" and doctor
 * exits 1. The pure verdict is tested in test/domain/core/Probe.test.ts.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { runCli } from "../support/Cli.js"

const bin = path.resolve("dist/bin.js")
const server = path.resolve("test/support/misbehaving-server.mjs")
const scratch: Array<string> = []
afterEach(() => {
  for (const dir of scratch.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
})

const doctorWith = async (mcpServers: Record<string, { command: string; args: Array<string> }>) => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "minicode-doctor-"))
  scratch.push(home)
  fs.mkdirSync(path.join(home, "minicode"))
  fs.writeFileSync(path.join(home, "minicode/config.json"), JSON.stringify({ mcpServers }))
  const env = { ...process.env, XDG_CONFIG_HOME: home, MINICODE_DOCTOR_PROBE_MS: "3000" }
  const text = await runCli(bin, ["doctor", "--cwd", home], { env, cwd: home })
  const json = await runCli(bin, ["doctor", "--json", "--cwd", home], { env, cwd: home })
  return { text, probes: JSON.parse(json.stdout).probes as Array<{ name: string; ok: boolean; slow: boolean; says: string }> }
}

describe("doctor: a slow MCP server is not a dead one", () => {
  it("answers slowly: named so, exit 0", async () => {
    const { text, probes } = await doctorWith({ slow: { command: process.execPath, args: [server, "slow-list", "6000"] } })
    expect(text.stdout).toMatch(/MCP server slow: answers slowly \(\d\.\d s; an ordinary answer takes under 3\.0 s\)/)
    expect(text.status, text.stdout).toBe(0)
    expect(probes).toEqual([expect.objectContaining({ name: "slow", ok: true, slow: true })])
  }, 180_000)

  it("silent through the second chance, or dead at start: DOES NOT ANSWER, exit 1", async () => {
    const { text, probes } = await doctorWith({
      hung: { command: process.execPath, args: [server, "slow-list", "never"] },
      dead: { command: process.execPath, args: [server, "crash"] }
    })
    expect(text.status).toBe(1)
    expect(text.stdout).toMatch(/MCP server hung: DOES NOT ANSWER: no answer within 18(\.0)? s/)
    expect(text.stdout).toMatch(/MCP server dead: DOES NOT ANSWER: .*/)
    expect(text.stdout).not.toMatch(/dead: DOES NOT ANSWER: no answer within/)
    expect(probes.map((p) => [p.name, p.ok, p.slow])).toEqual([["hung", false, false], ["dead", false, false]])
  }, 180_000)
})
