/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance) against minicode, both ways: `mcp serve`
 * through the stdio-to-HTTP bridge (the server scenarios that apply to it) and minicode's client driven through
 * the built CLI (initialize, tools_call, sse-retry, elicitation defaults and every auth/* scenario of the suite's
 * auth suite, back-compat and draft groups, and the client-credentials extensions; with the newest suite, the
 * 2026-07-28 draft's issuer scenarios, run.mjs `nextScenarios`). A failed scenario is run once
 * more (sse-retry times the client's reconnection to within 200 ms, which a loaded machine can miss). The suite needs Node 22 and lives in a dev cache outside the repo
 * (`node scripts/conformance/install.mjs`); without it this test is skipped, and says so.
 */
import { spawn, spawnSync } from "node:child_process"
import * as path from "node:path"
import { describe, expect, it } from "vitest"

const scripts = path.resolve("scripts/conformance")
const check = spawnSync(process.execPath, [path.join(scripts, "install.mjs"), "--check"], { encoding: "utf8" })
const installed = check.status === 0
if (!installed) console.warn(`McpConformance: skipped: ${check.stdout.trim()}`)

interface Row {
  readonly group: "server" | "client" | "auth" | "next"
  readonly scenario: string
  readonly ok: boolean
  readonly why?: string
}

const runSuite = () =>
  new Promise<{ code: number | null; rows: ReadonlyArray<Row>; stderr: string }>((resolve) => {
    // dist/ is built by the global setup.
    const child = spawn(process.execPath, [path.join(scripts, "run.mjs"), "--json", "--no-build", "--retries", "1"], { stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()))
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()))
    child.on("close", (code) => {
      const parsed: { rows?: ReadonlyArray<Row> } = stdout.trim() === "" ? {} : JSON.parse(stdout)
      resolve({ code, rows: parsed.rows ?? [], stderr })
    })
  })

describe("MCP conformance suite", () => {
  it.skipIf(!installed)(
    installed ? "every applicable server scenario, the client scenarios, every auth/* scenario and the newest suite's issuer scenarios pass" : "skipped: the suite is not installed (node scripts/conformance/install.mjs)",
    async () => {
      const { code, rows, stderr } = await runSuite()
      const failed = rows.filter((r) => !r.ok).map((r) => `${r.scenario}: ${r.why ?? ""}`)
      expect(failed, stderr).toEqual([])
      const count = (g: Row["group"]) => rows.filter((r) => r.group === g).length
      expect({ server: count("server"), client: count("client"), auth: count("auth"), next: count("next") }).toEqual({ server: 6, client: 4, auth: 21, next: 5 })
      expect(rows.map((r) => r.scenario)).toEqual(expect.arrayContaining(["server-initialize", "resources-list", "initialize", "sse-retry", "auth/scope-step-up", "auth/pre-registration", "auth/client-credentials-jwt", "auth/metadata-issuer-mismatch", "auth/iss-wrong-issuer"]))
      expect(code).toBe(0)
    },
    15 * 60_000
  )
})
