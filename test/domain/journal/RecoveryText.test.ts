import { describe, expect, it } from "vitest"
import * as Recovery from "../../../src/domain/journal/Recovery.js"
import * as RecoveryText from "../../../src/domain/journal/RecoveryText.js"

const record = (over: Partial<Recovery.RecoveryInput>): Recovery.RecoveryInput => ({
  seq: 7, session: "mcp-server", turn: 3, tool: "write_file", paths: ["a.txt"], remote: false, state: "unknown",
  finalized: false, note: null, ...over
})
const item = (over: Partial<Recovery.RecoveryInput>) => {
  const [only] = Recovery.plan([record(over)]).items
  if (only === undefined) throw new Error("no item")
  return only
}

describe("RecoveryText.explain", () => {
  it("names the call, why its outcome is unknown and the commands that settle it", () => {
    expect(RecoveryText.explain(item({}), { note: "ToolFailed: disk full" })).toBe(
      "#7 write_file on a.txt (turn mcp-server/3) ended without a clear outcome (ToolFailed: disk full): look at a.txt, then run `minicode recover resolve 7 applied` if it happened, `minicode recover resolve 7 absent` if not."
    )
    expect(RecoveryText.explain(item({ tool: "mcp__gh__create_issue", paths: [], remote: true, state: "pending" }), { note: null })).toMatch(
      /^#7 mcp__gh__create_issue \(turn mcp-server\/3\) ran on an MCP server and never recorded an outcome: .*ask it, then run `minicode recover resolve 7 applied`/
    )
    expect(RecoveryText.explain(item({ state: "failed" }), { note: "old_string was not found" })).toBe(
      "#7 write_file on a.txt (turn mcp-server/3) failed (old_string was not found) and left nothing behind: it may be retried after a look; `minicode recover resolve 7 absent` records that you checked."
    )
  })

  it("a damaged journal with no record says there is none to resolve; only unknown outcomes wait for a human", () => {
    const [damage] = Recovery.plan([], [{ seq: null, reason: "database disk image is malformed" }]).items
    if (damage === undefined) throw new Error("no item")
    expect(RecoveryText.explain(damage)).toMatch(/^The journal cannot be trusted here \(database disk image is malformed\).*there is no single record to resolve/)
    expect([damage, item({}), item({ state: "failed" }), item({ resolution: "absent" }), item({ state: "committed" })].map(RecoveryText.open)).toEqual([
      true, true, false, false, false
    ])
  })
})
