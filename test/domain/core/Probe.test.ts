/** doctor's verdict on a probed server, pure (issue 44 item 6): slow is not dead; failed and silent are. */
import { assert, describe, it } from "@effect/vitest"
import { FastCheck } from "effect"
import * as Probe from "../../../src/domain/core/Probe.js"

const times = { patienceMs: 10_000, secondChanceMs: 60_000 }

describe("Probe.verdict", () => {
  it("answers, answers slowly, fails, is silent", () => {
    assert.deepStrictEqual(Probe.verdict({ _tag: "Answered", millis: 120, ok: true, detail: "" }, times), { ok: true, slow: false, says: "answers (120 ms)" })
    const slow = Probe.verdict({ _tag: "Answered", millis: 23_400, ok: true, detail: "" }, times)
    assert.deepStrictEqual([slow.ok, slow.slow], [true, true])
    assert.include(slow.says, "answers slowly (23 s")
    assert.include(Probe.verdict({ _tag: "Failed", millis: 30, detail: "exited with code 1" }, times).says, "DOES NOT ANSWER: exited with code 1")
    assert.include(Probe.verdict({ _tag: "Silent", millis: 60_000 }, times).says, "no answer within 60 s")
    assert.include(Probe.verdict({ _tag: "Answered", millis: 5, ok: false, detail: "tool error" }, times).says, "DOES NOT ANSWER: tool error")
  })

  it.prop("an answer is ok exactly when it is not an error; slow exactly past the patience", { millis: FastCheck.nat(120_000), ok: FastCheck.boolean() }, ({ millis, ok }) => {
    const v = Probe.verdict({ _tag: "Answered", millis, ok, detail: "x" }, times)
    assert.strictEqual(v.ok, ok)
    assert.strictEqual(v.slow, ok && millis > times.patienceMs)
    assert.isFalse(v.ok && v.says.includes("DOES NOT ANSWER"))
  })

  it("MINICODE_DOCTOR_PROBE_MS: whole ms 100..600000, second chance six times; anything else the defaults", () => {
    assert.deepStrictEqual(Probe.timesFrom("1000"), { patienceMs: 1000, secondChanceMs: 6000 })
    for (const bad of [undefined, "", "99", "1e4", "-5", "600001", "10 s", "abc"]) assert.deepStrictEqual(Probe.timesFrom(bad), Probe.defaultTimes, String(bad))
  })
})
