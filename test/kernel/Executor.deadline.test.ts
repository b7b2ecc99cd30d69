/**
 * The overall deadline of every call, at the executor: a call that never ends is stopped at its deadline (the
 * configured one, else 10 minutes; bash's own timeout + 30 s at least), interrupted, with an error naming the limit,
 * and a mutating one is journaled `unknown`. The clock is the TestClock: no test waits for minutes.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Fiber, Layer, Option, Ref, TestClock } from "effect"
import * as MemoryJournal from "../../src/adapters/journal/MemoryJournal.js"
import * as Deadline from "../../src/domain/core/Deadline.js"
import { DeadlineExceeded } from "../../src/domain/core/Errors.js"
import { Journal } from "../../src/ports/Journal.js"
import type { Invocation } from "../../src/ports/ToolExecutor.js"
import * as Kernel from "../../src/kernel/Kernel.js"
import * as Runner from "../../src/kernel/Runner.js"
import { memoryAdapters } from "../support/Fakes.js"

/** `git_status` and `bash` never end here; each interruption is counted. */
const stuck = (interrupted: Ref.Ref<number>) => (inv: Invocation) =>
  inv.facts.call.tool !== "git_status" && inv.facts.call.tool !== "bash"
    ? undefined
    : Effect.never.pipe(Effect.onInterrupt(() => Ref.update(interrupted, (n) => n + 1)))

const setup = (toolDeadlineMs: number | undefined) =>
  Effect.gen(function* () {
    const interrupted = yield* Ref.make(0)
    const { journal } = yield* MemoryJournal.make()
    const chain = Kernel.layer(
      { workspace: "/ws", workMode: "BUILD", permissionMode: "AUTO", toolDeadlineMs },
      {
        ...memoryAdapters(),
        journal: Layer.succeed(Journal, journal),
        extensions: Kernel.extensionsOf([stuck(interrupted)])
      }
    )
    const start = (tool: string, args: unknown) => Effect.fork(Effect.provide(Runner.invoke({ tool, args }), chain))
    return { interrupted, journal, start }
  })

/** Advances the TestClock to just before `ms`, checks the call still runs, then past it, and returns its exit. */
const stoppedAt = <A, E>(fiber: Fiber.RuntimeFiber<A, E>, ms: number) =>
  Effect.gen(function* () {
    yield* TestClock.adjust(ms - 1)
    assert.isTrue(Option.isNone(yield* Fiber.poll(fiber)), `still running 1 ms before ${ms} ms`)
    yield* TestClock.adjust(1)
    return yield* Fiber.await(fiber)
  })

const failureOf = <A, E>(exit: Exit.Exit<A, E>): E | undefined => (Exit.isFailure(exit) && exit.cause._tag === "Fail" ? exit.cause.error : undefined)

describe("the overall deadline of a call", () => {
  it.effect("a configured deadline stops a stuck read at that time, interrupts it, and names the limit", () =>
    Effect.gen(function* () {
      const { interrupted, start } = yield* setup(250)
      const fiber = yield* start("git_status", {})
      const exit = yield* stoppedAt(fiber, 250)
      const error = failureOf(exit)
      assert.instanceOf(error, DeadlineExceeded)
      assert.strictEqual(error?.message, "git_status stopped: the call ran past minicode's overall deadline of 0.25 s (config toolDeadlineMs)")
      assert.strictEqual(yield* Ref.get(interrupted), 1)
    }))

  it.effect("without configuration the deadline is 10 minutes", () =>
    Effect.gen(function* () {
      const { start } = yield* setup(undefined)
      const exit = yield* stoppedAt(yield* start("git_status", {}), 600_000)
      assert.match(failureOf(exit)?.message ?? "", /overall deadline of 600 s/)
    }))

  it.effect("bash keeps its own timeout + 30 s at least, whatever the configured deadline; a stopped bash is journaled unknown", () =>
    Effect.gen(function* () {
      const { interrupted, journal, start } = yield* setup(50)
      const exit = yield* stoppedAt(yield* start("bash", { command: "sleep 5", timeout_ms: 1_000 }), 31_000)
      assert.match(failureOf(exit)?.message ?? "", /^bash stopped: .*overall deadline of 31 s/)
      assert.strictEqual(yield* Ref.get(interrupted), 1)
      const records = yield* journal.list()
      assert.deepStrictEqual(records.map((r) => [r.tool, r.state]), [["bash", "unknown"]])
      const byDefault = yield* stoppedAt(yield* start("bash", { command: "sleep 5" }), 150_000)
      assert.instanceOf(failureOf(byDefault), DeadlineExceeded)
    }))

  it("Deadline.deadlineMs: 10 minutes by default, the configured value, bash never below its timeout + 30 s", () => {
    const bash = (timeout_ms?: number) => ({ tool: "bash" as const, args: { command: "x", ...(timeout_ms === undefined ? {} : { timeout_ms }) } })
    assert.strictEqual(Deadline.deadlineMs({ tool: "git_status", args: {} }, undefined), 600_000)
    assert.strictEqual(Deadline.deadlineMs({ tool: "git_status", args: {} }, 5), 5)
    assert.strictEqual(Deadline.deadlineMs(bash(), undefined), 600_000)
    assert.strictEqual(Deadline.deadlineMs(bash(), 5), 150_000)
    assert.strictEqual(Deadline.deadlineMs(bash(3_600_000), undefined), 3_630_000)
    assert.strictEqual(Deadline.deadlineMs(bash(3_600_000), 7_200_000), 7_200_000)
    assert.strictEqual(Deadline.describe(250), "0.25 s")
  })
})
