/**
 * grep's search worker (adapters/search/ThreadSearchWorkers over dist/grep-worker.cjs, built by the test setup):
 * the hits it answers are LineSearch's, capped per folder with the rest counted; a session closed with work under
 * way ends its worker (a regex that backtracks for ever included) and the next session gets a fresh one; a session
 * closed cleanly gives its worker back for the next.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import * as ThreadSearchWorkers from "../../../src/adapters/search/ThreadSearchWorkers.js"
import { grepWorkerScript } from "../../../src/app/Program.js"
import type { SearchSpec } from "../../../src/ports/SearchWorkers.js"

const script = grepWorkerScript()
const spec = (pattern: string, maxHits = 500): SearchSpec => ({ pattern, ignoreCase: false, protectedInodes: [], lineChars: 500, maxHits })

const folder = () => {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "minicode-search-worker-")))
  fs.writeFileSync(path.join(dir, "a.txt"), "one\ntwo x\nthree x\n")
  fs.writeFileSync(path.join(dir, "b.bin"), Buffer.concat([Buffer.from("x\n"), Buffer.alloc(4)]))
  fs.writeFileSync(path.join(dir, "slow.txt"), `${"a".repeat(5000)}!\n`)
  return dir
}

describe("ThreadSearchWorkers", () => {
  it.live("answers LineSearch's hits, caps them per folder, counts the rest, names binaries and unreadable names", () =>
    Effect.scoped(
      Effect.gen(function* () {
        assert.isDefined(script)
        const dir = folder()
        const workers = yield* ThreadSearchWorkers.make(script ?? "")
        const all = yield* Effect.scoped(Effect.flatMap(workers.open(spec("x")), (s) => s.searchDir(dir, ["a.txt", "b.bin", "gone.txt"])))
        assert.deepStrictEqual(all.hits, [[0, 2, "two x"], [0, 3, "three x"]])
        assert.deepStrictEqual([all.more, all.binaryMatches, all.binaries], [0, [1], [1]])
        const capped = yield* Effect.scoped(Effect.flatMap(workers.open(spec("x", 1)), (s) => s.searchDir(dir, ["a.txt"])))
        assert.deepStrictEqual([capped.hits, capped.more], [[[0, 2, "two x"]], 1])
        fs.rmSync(dir, { recursive: true, force: true })
      })
    )
  )

  it.live("a session interrupted inside a regex that backtracks for ever ends its worker; the next one searches", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const dir = folder()
        const workers = yield* ThreadSearchWorkers.make(script ?? "")
        const stuck = yield* Effect.fork(Effect.scoped(Effect.flatMap(workers.open(spec("(a+)+(?=b)")), (s) => s.searchDir(dir, ["slow.txt"]))))
        yield* Effect.sleep("300 millis")
        // The interruption returns at once: the worker is ended, not waited for.
        yield* Fiber.interrupt(stuck)
        const next = yield* Effect.scoped(Effect.flatMap(workers.open(spec("two")), (s) => s.searchDir(dir, ["a.txt"])))
        assert.deepStrictEqual(next.hits, [[0, 2, "two x"]])
        fs.rmSync(dir, { recursive: true, force: true })
      })
    )
  )
})
