/**
 * Issue 40, item 1, as a user meets it: grep answered "no matches" where there were matches, because the own walk's
 * required-literal prefilter read an escape's payload as text (`\u00a0` as "00a0"). Through the built CLI and `mcp
 * serve`: the own walk (MINICODE_GREP=node), a pattern rg cannot take (a back-reference), and with rg a file it
 * calls binary past 8 KiB (a NUL after 8 KiB: searched again by the own walk's matcher).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { runCli } from "../support/Cli.js"
import { bin, connect, ensureBuilt, makeWorkspace, textOf } from "../serve/support/McpServeHarness.js"

let ws: ReturnType<typeof makeWorkspace>
beforeAll(() => {
  ensureBuilt()
  ws = makeWorkspace()
  fs.writeFileSync(path.join(ws.root, "nbsp.txt"), "price:\u00a0100\nplain line\n")
  fs.writeFileSync(path.join(ws.root, "caps.txt"), "xAy and xQy\nxay\n")
  fs.writeFileSync(path.join(ws.root, "tab.txt"), "Q\tR\n")
  fs.writeFileSync(path.join(ws.root, "twice.txt"), "7 77 7\n")
  // Text to rg until its NUL, 9 KiB in: rg names it binary, grep searches it again as text (a NUL after 8 KiB).
  fs.writeFileSync(path.join(ws.root, "late.log"), Buffer.concat([Buffer.from(`${"filler\n".repeat(1400)}late:\u00a0hit\n`), Buffer.from([0]), Buffer.from("\nend\n")]))
}, 120_000)
afterAll(() => ws.cleanup())

const cases: ReadonlyArray<{ readonly args: Record<string, unknown>; readonly want: string }> = [
  { args: { pattern: "\\u00a0100" }, want: "nbsp.txt:1:price:\u00a0100" },
  { args: { pattern: "x\\x41y" }, want: "caps.txt:1:xAy and xQy" },
  { args: { pattern: "Q\\cIR" }, want: "tab.txt:1:Q\tR" },
  { args: { pattern: "(?<d>7)\\k<d>" }, want: "twice.txt:1:7 77 7" },
  { args: { pattern: "x\\p{Lu}y and", ignore_case: true }, want: "caps.txt:1:xAy and xQy" },
  { args: { pattern: "late:\\u00a0hit" }, want: "late.log:1401:late:\u00a0hit" }
]

const cli = (args: Record<string, unknown>, engine: "rg" | "node") =>
  runCli(bin, ["tool", "grep", JSON.stringify(args), "--cwd", ws.root], {
    timeoutMs: 60_000,
    env: engine === "node" ? { ...process.env, MINICODE_GREP: "node" } : { ...process.env, MINICODE_GREP: "" }
  })

describe("grep finds what an escape means (built CLI and mcp serve)", () => {
  for (const engine of ["node", "rg"] as const) {
    it(`the CLI, ${engine === "node" ? "the own walk" : "rg's path"}`, async () => {
      for (const c of cases) {
        const r = await cli(c.args, engine)
        expect(r.stdout, JSON.stringify(c.args)).toContain(c.want)
      }
    }, 120_000)
  }

  it("mcp serve, the own walk", async () => {
    const { client, close } = await connect(ws.root, [], undefined, { MINICODE_GREP: "node" })
    try {
      for (const c of cases) {
        const r = await client.callTool({ name: "grep", arguments: c.args })
        expect(textOf(r), JSON.stringify(c.args)).toContain(c.want)
      }
    } finally {
      await close()
    }
  }, 120_000)
})
