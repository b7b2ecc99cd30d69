/**
 * One suite for every SearchWorkers adapter: what grep's own search relies on. A folder's named files are searched
 * beneath it: every matching line of a text file comes back (the first `maxHits` as hits, the rest counted: none
 * lost), binary files with a match only named, a protected file (by `dev:ino`) passed over whatever its name, a
 * symlink never followed, a name gone since the walk no failure; a pattern the search cannot take is a typed
 * SearchWorkerError, never a defect; a session still answers after such a failure is over (a fresh one does).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { scratchFolders } from "../support/Scratch.js"
import { Cause, Effect, Exit, type Scope } from "effect"
import type { SearchSpec, SearchWorkersShape } from "../../src/ports/SearchWorkers.js"

export interface Fixture {
  readonly make: Effect.Effect<SearchWorkersShape, never, Scope.Scope>
  readonly skip?: string | undefined
}

const scratch = scratchFolders()
const folder = () => {
  const dir = scratch("searchworkers-c")
  fs.writeFileSync(path.join(dir, "a.txt"), "one\ntwo x\nthree x\nfour x\n")
  fs.writeFileSync(path.join(dir, "b.bin"), Buffer.concat([Buffer.from("x\n"), Buffer.alloc(4)]))
  fs.writeFileSync(path.join(dir, "secret.txt"), "x marks the secret\n")
  const outside = scratch("searchworkers-out")
  fs.writeFileSync(path.join(outside, "far.txt"), "x far away\n")
  fs.symlinkSync(path.join(outside, "far.txt"), path.join(dir, "link.txt"))
  return dir
}
const spec = (over: Partial<SearchSpec> = {}): SearchSpec => ({ pattern: "x", ignoreCase: false, protectedInodes: [], lineChars: 500, maxHits: 500, ...over })
const inode = (file: string) => {
  const st = fs.statSync(file)
  return `${st.dev}:${st.ino}`
}

export const contract = (name: string, fixture: Fixture) =>
  describe.skipIf(fixture.skip !== undefined)(`SearchWorkers contract: ${name}${fixture.skip === undefined ? "" : ` (skipped: ${fixture.skip})`}`, () => {
    it.scopedLive("hits by name and line, binaries named, protected files, symlinks and vanished names passed over", () =>
      Effect.gen(function* () {
        const dir = folder()
        const workers = yield* fixture.make
        const names = ["a.txt", "b.bin", "secret.txt", "link.txt", "gone.txt"]
        const r = yield* Effect.scoped(Effect.flatMap(workers.open(spec({ protectedInodes: [inode(path.join(dir, "secret.txt"))] })), (s) => s.searchDir(dir, names)))
        assert.deepStrictEqual(r.hits, [[0, 2, "two x"], [0, 3, "three x"], [0, 4, "four x"]])
        assert.deepStrictEqual([r.more, r.binaryMatches, r.binaries], [0, [1], [1]])
        assert.isFalse(r.hits.some(([i]) => i === 2 || i === 3))
        // A name gone since the walk listed it is no failure and no hit.
        assert.isFalse(r.hits.some(([i]) => i === 4))
      }))

    it.scopedLive("past maxHits lines are counted, none lost; ignoreCase widens; long lines come cut", () =>
      Effect.gen(function* () {
        const dir = folder()
        fs.writeFileSync(path.join(dir, "long.txt"), `X ${"y".repeat(2000)}\n`)
        const workers = yield* fixture.make
        const capped = yield* Effect.scoped(Effect.flatMap(workers.open(spec({ maxHits: 1 })), (s) => s.searchDir(dir, ["a.txt"])))
        assert.deepStrictEqual([capped.hits.length, capped.hits.length + capped.more], [1, 3])
        const wide = yield* Effect.scoped(Effect.flatMap(workers.open(spec({ ignoreCase: true, lineChars: 50 })), (s) => s.searchDir(dir, ["long.txt"])))
        assert.strictEqual(wide.hits.length, 1)
        assert.isAtMost(wide.hits[0]![2].length, 51)
      }))

    it.scopedLive("a pattern it cannot take is a typed SearchWorkerError, never a defect; a fresh session then searches", () =>
      Effect.gen(function* () {
        const dir = folder()
        const workers = yield* fixture.make
        const exit = yield* Effect.exit(Effect.scoped(Effect.flatMap(workers.open(spec({ pattern: "(unclosed" })), (s) => s.searchDir(dir, ["a.txt"]))))
        assert.isTrue(Exit.isFailure(exit), String(exit))
        if (Exit.isFailure(exit)) {
          assert.isFalse(Cause.isDie(exit.cause), Cause.pretty(exit.cause))
          const error = Cause.failureOption(exit.cause)
          assert.strictEqual(error._tag === "Some" ? error.value._tag : "none", "SearchWorkerError")
        }
        const again = yield* Effect.scoped(Effect.flatMap(workers.open(spec()), (s) => s.searchDir(dir, ["a.txt"])))
        assert.strictEqual(again.hits.length, 3)
      }))
  })
