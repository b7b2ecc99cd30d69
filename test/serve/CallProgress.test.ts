/**
 * CallProgress on the test clock (no real time): with a token, the tool's latest note goes out once per interval,
 * numbered upwards, and the call's result is its own; without one, nothing is sent but log messages pass.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, TestClock } from "effect"
import * as Progress from "../../src/ports/Progress.js"
import * as CallProgress from "../../src/serve/CallProgress.js"

const recorder = () => {
  const sent: Array<{ progress: number; message: string }> = []
  const logs: Array<string> = []
  const sink: CallProgress.Sink = {
    progress: (progress, message) => {
      sent.push({ progress, message })
      return Promise.resolve()
    },
    log: (level, message) => void logs.push(`${level}: ${message}`)
  }
  return { sent, logs, sink }
}

/** A tool that notes its steps, each after `stepMs` of (test) time, and logs once. */
const tool = (stepMs: number) =>
  Effect.gen(function* () {
    const p = yield* Progress.current
    p.log("warning", "told")
    for (const step of ["one", "two", "three"]) {
      if (p.watched) p.note(`step ${step}`)
      yield* Effect.sleep(stepMs)
    }
    return "done"
  })

describe("CallProgress", () => {
  it.effect("with a token: the latest note each interval (the interval given), then the result", () =>
    Effect.gen(function* () {
      const r = recorder()
      const fiber = yield* Effect.fork(CallProgress.withProgress(tool(100), "t", r.sink, 50))
      for (let i = 0; i < 6; i++) yield* TestClock.adjust(50)
      assert.strictEqual(yield* Fiber.join(fiber), "done")
      assert.isAtLeast(r.sent.length, 4)
      assert.deepStrictEqual(r.sent.map((s) => s.progress), r.sent.map((_, i) => i + 1))
      assert.deepStrictEqual([...new Set(r.sent.map((s) => s.message))], ["step one", "step two", "step three"])
      assert.deepStrictEqual(r.logs, ["warning: told"])
    }))

  it.effect("without a token: no progress at all, the tool is told nobody watches, logs still pass", () =>
    Effect.gen(function* () {
      const r = recorder()
      const fiber = yield* Effect.fork(CallProgress.withProgress(tool(100), undefined, r.sink, 50))
      for (let i = 0; i < 6; i++) yield* TestClock.adjust(50)
      assert.strictEqual(yield* Fiber.join(fiber), "done")
      assert.deepStrictEqual(r.sent, [])
      assert.deepStrictEqual(r.logs, ["warning: told"])
    }))

  it("MINICODE_PROGRESS_MS: whole milliseconds from 10 to 60000, anything else the default", () => {
    assert.strictEqual(CallProgress.parseInterval("10"), 10)
    assert.strictEqual(CallProgress.parseInterval("60000"), 60_000)
    for (const bad of [undefined, "", "9", "60001", "1.5", "-10", " 50", "1e3", "fast"]) assert.isUndefined(CallProgress.parseInterval(bad), String(bad))
  })
})
