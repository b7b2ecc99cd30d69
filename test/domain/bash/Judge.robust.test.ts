/** The guard never throws: whatever the input, it answers allow or deny (prototype-named commands included). */
import { FastCheck as fc } from "effect"
import { describe, expect, it } from "vitest"
import type * as Judge from "../../../src/domain/bash/Judge.js"
import * as Modes from "../../../src/domain/core/Modes.js"
import { guardContext, judgeSync } from "../../support/Guard.js"

const ctx: Judge.GuardContext = { ...guardContext, network: false }
const protoNames = Object.getOwnPropertyNames(Object.prototype)

describe("guard robustness", () => {
  it("commands named after Object.prototype members are judged, not crashed on", () => {
    for (const name of protoNames) {
      for (const command of [`${name} -x`, `${name} a > b`, `bash -c '${name} -rf /'`, `env ${name}`, `${name}=1 ls`]) {
        expect(() => judgeSync(command, ctx), command).not.toThrow()
      }
    }
    expect(() => Modes.parseAccessPolicy("constructor", { allowUnrestricted: false })).not.toThrow()
    expect(Modes.parseAccessPolicy("constructor", { allowUnrestricted: false })._tag).toBe("Left")
  })

  it("random words and shell punctuation never make judge throw", () => {
    const word = fc.oneof(fc.constantFrom(...protoNames, "rm", "-rf", "/", "$HOME", "'", '"', ";", "|", "&&", "$(", ")", "`", "<<EOF", ">", "~"), fc.string({ maxLength: 6 }))
    fc.assert(
      fc.property(fc.array(word, { maxLength: 8 }), (words) => {
        const decision = judgeSync(words.join(" "), ctx).decision.decision
        expect(["allow", "deny"]).toContain(decision)
      }),
      { numRuns: 2000 }
    )
  })
})
