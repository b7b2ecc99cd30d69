import { assert, describe, it } from "@effect/vitest"
import { Effect, Either, Fiber, Layer, Ref } from "effect"
import * as MemoryFileSystem from "../../src/adapters/fs/MemoryFileSystem.js"
import { FileSystem } from "../../src/ports/FileSystem.js"
import * as Kernel from "../../src/kernel/Kernel.js"
import * as Runner from "../../src/kernel/Runner.js"
import { memoryAdapters, seed } from "../support/Fakes.js"

interface Seen {
  readonly active: ReadonlyMap<string, number>
  readonly total: number
  readonly maxTotal: number
  readonly maxPerPath: number
}

/**
 * The real executor over a FileSystem whose writes take a while (they yield to other fibers many times) and count
 * how many are under way, in all and per path.
 */
const tracked = Effect.gen(function* () {
  const seen = yield* Ref.make<Seen>({ active: new Map(), total: 0, maxTotal: 0, maxPerPath: 0 })
  const enter = (p: string) =>
    Ref.update(seen, (s) => {
      const here = (s.active.get(p) ?? 0) + 1
      return {
        active: new Map(s.active).set(p, here),
        total: s.total + 1,
        maxTotal: Math.max(s.maxTotal, s.total + 1),
        maxPerPath: Math.max(s.maxPerPath, here)
      }
    })
  const leave = (p: string) =>
    Ref.update(seen, (s) => ({ ...s, active: new Map(s.active).set(p, (s.active.get(p) ?? 1) - 1), total: s.total - 1 }))
  const { fs } = yield* MemoryFileSystem.make(seed)
  const slow = FileSystem.of({
    ...fs,
    writeFile: (p, d, o) =>
      Effect.acquireUseRelease(
        enter(p),
        () => Effect.zipRight(Effect.repeatN(Effect.yieldNow(), 50), fs.writeFile(p, d, o)),
        () => leave(p)
      )
  })
  const chain = Kernel.layer(
    { workspace: "/ws", workMode: "BUILD", permissionMode: "AUTO" },
    { ...memoryAdapters(), fileSystem: Layer.succeed(FileSystem, slow) }
  )
  return { seen, chain }
})

const write = (path: string, content: string) => Runner.invoke({ tool: "write_file", args: { path, content } })

describe("the executor's writes", () => {
  it.effect("run in parallel across paths, at most 8 at once", () =>
    Effect.gen(function* () {
      const { seen, chain } = yield* tracked
      const results = yield* Effect.all(
        Array.from({ length: 24 }, (_, i) => Effect.either(write(`out/f${i}.txt`, `file ${i}`))),
        { concurrency: "unbounded" }
      ).pipe(Effect.provide(chain))
      assert.isTrue(results.every(Either.isRight))
      const s = yield* Ref.get(seen)
      assert.strictEqual(s.maxTotal, 8)
      assert.strictEqual(s.total, 0)
    }))

  it.effect("to one path run one at a time", () =>
    Effect.gen(function* () {
      const { seen, chain } = yield* tracked
      yield* Effect.all(
        Array.from({ length: 6 }, (_, i) => Effect.either(write("a.txt", `version ${i}`))),
        { concurrency: "unbounded" }
      ).pipe(Effect.provide(chain))
      const s = yield* Ref.get(seen)
      assert.strictEqual(s.maxPerPath, 1)
      assert.isAbove(s.maxTotal, 0)
      assert.strictEqual(s.total, 0)
    }))

  it.effect("an interrupted write gives its permits back: the writes after it still run", () =>
    Effect.gen(function* () {
      const { seen, chain } = yield* tracked
      yield* Effect.gen(function* () {
        const fibers = yield* Effect.forEach(Array.from({ length: 8 }, (_, i) => i), (i) => Effect.fork(write(`out/g${i}.txt`, "x")))
        // Every one of them inside its write, holding its permits, when they are interrupted.
        yield* Effect.repeat(Effect.zipRight(Effect.yieldNow(), Ref.get(seen)), { until: (s) => s.total === 8 })
        yield* Fiber.interruptAll(fibers)
        const after = yield* Effect.all(
          Array.from({ length: 8 }, (_, i) => Effect.either(write(`out/h${i}.txt`, "y"))),
          { concurrency: "unbounded" }
        )
        assert.isTrue(after.every(Either.isRight))
      }).pipe(Effect.provide(chain))
      const s = yield* Ref.get(seen)
      assert.strictEqual(s.total, 0)
    }))
})
