import { assert, describe, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import * as MemoryShell from "../../../src/adapters/shell/MemoryShell.js"
import { contract, script } from "../../contracts/Shell.contract.js"

contract("memory", { make: Effect.map(MemoryShell.make(script), (shell) => ({ shell, cwd: "/work" })) })

describe("MemoryShell beyond the contract", () => {
  it.effect("records every call, fresh per build; an unscripted command is a ShellError naming it", () =>
    Effect.gen(function* () {
      const shell = yield* MemoryShell.make(script)
      const spec = { command: "rm -rf /", cwd: "/w", env: {}, timeoutMs: 1000, maxOutputBytes: 100 }
      const r = yield* Effect.either(shell.run(spec))
      assert.isTrue(Either.isLeft(r) && r.left.message.includes("rm -rf /"))
      assert.deepStrictEqual(yield* shell.calls, [spec])
      assert.deepStrictEqual(yield* (yield* MemoryShell.make(script)).calls, [])
    }))
})
