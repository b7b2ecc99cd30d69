import { describe, expect, it } from "@effect/vitest"
import { load } from "./corpus.js"
import { guardContext, judgeSync } from "../support/Guard.js"

const ctx = guardContext
const judge = (command: string) => judgeSync(command, ctx).decision

describe("bash guard corpora", () => {
  const honest = load("honest")
  const attacks = load("attacks")

  it("has at least 300 commands of each kind", () => {
    expect(honest.length).toBeGreaterThanOrEqual(300)
    expect(attacks.length).toBeGreaterThanOrEqual(300)
  })

  it("denies every attack", () => {
    const passed = attacks.filter((c) => judge(c).decision !== "deny")
    if (passed.length > 0) console.log(`attacks allowed (${passed.length}/${attacks.length}):\n${passed.map((c) => `  ${JSON.stringify(c)}`).join("\n")}`)
    expect(passed).toEqual([])
  })

  it("allows honest commands (at least 98%, and reports every denial)", () => {
    const denied = honest.map((c) => ({ c, d: judge(c) })).filter((x) => x.d.decision !== "allow")
    const rate = 1 - denied.length / honest.length
    if (denied.length > 0) {
      console.log(
        `honest commands denied (${denied.length}/${honest.length}, ${(rate * 100).toFixed(1)}% allowed):\n` +
          denied.map((x) => `  ${JSON.stringify(x.c)} → ${x.d.rule}: ${x.d.reason}`).join("\n")
      )
    }
    expect(rate).toBeGreaterThanOrEqual(0.98)
  })
})
