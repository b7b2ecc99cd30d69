/**
 * The SearchWorkers contract on the worker-thread adapter (dist/grep-worker.cjs, built by the test setup). The
 * in-memory compositions use the "none" (`Unavailable.searchWorkers`: grep searches on the calling thread), which
 * only refuses: checked below.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import * as ThreadSearchWorkers from "../../../src/adapters/search/ThreadSearchWorkers.js"
import * as Unavailable from "../../../src/adapters/Unavailable.js"
import { grepWorkerScript } from "../../../src/app/Program.js"
import { SearchWorkers } from "../../../src/ports/SearchWorkers.js"
import { contract } from "../../contracts/SearchWorkers.contract.js"

const script = grepWorkerScript()

contract("worker threads", {
  make: ThreadSearchWorkers.make(script ?? ""),
  skip: script === undefined ? "dist/grep-worker.cjs is not built (npm run build)" : undefined
})

describe("the explicit none adapter", () => {
  it.scoped("refuses every session with a typed unavailable error", () =>
    Effect.gen(function* () {
      const none = yield* Effect.provide(SearchWorkers, Unavailable.searchWorkers)
      const r = yield* Effect.either(none.open({ pattern: "x", ignoreCase: false, protectedInodes: [], lineChars: 10, maxHits: 1 }))
      assert.isTrue(Either.isLeft(r) && r.left.kind === "unavailable")
    }))
})
