/**
 * repo_map in its worker process (the built dist/bin.js `repomap worker`) gives the map the in-process path gives,
 * cold and warm, with focus and a small budget, and leaves the same cache behind; a worker that cannot run falls
 * back to the in-process map.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as NodeAdapters from "../../src/app/NodeLayers.js"
import * as RepoMapWorker from "../../src/app/RepoMapWorker.js"
import { type Extension, Extensions } from "../../src/kernel/Executor.js"
import * as Kernel from "../../src/kernel/Kernel.js"
import * as Runner from "../../src/kernel/Runner.js"
import * as RepoMapCache from "../../src/tools/RepoMapCache.js"
import { tempDir, write } from "../support/Workspace.js"
import { nodeAdapters } from "../support/Adapters.js"

const bin = path.resolve("dist/bin.js")

const fixture = () => {
  const root = fs.realpathSync(tempDir("minicode-repomap-worker-"))
  write(root, "src/util/strings.ts", "export function slug(s: string): string {\n  return s.toLowerCase()\n}\n")
  write(root, "src/model.ts", 'import { slug } from "./util/strings.js"\nexport class Users {\n  find(name: string) { return slug(name) }\n}\n')
  write(root, "src/api.ts", 'import { Users } from "./model.js"\nexport async function handler(): Promise<Users> {\n  return new Users()\n}\n')
  write(root, "src/broken.ts", "export function broken() {\n  return (\n}\nexport class Half {\n")
  write(root, "py/models.py", "class Point:\n    def __init__(self, x):\n        self.x = x\n\ndef distance(a, b):\n    return 0\n")
  write(root, "py/main.py", "from .models import Point, distance\n\ndef run():\n    pass\n")
  write(root, "big.txt", "not a source file\n")
  fs.symlinkSync("src/api.ts", path.join(root, "alias.ts"))
  return root
}

const map = (root: string, worker: string | undefined, cacheDir: string, args: Record<string, unknown> = {}) =>
  Runner.invoke({ tool: "repo_map", args }).pipe(
    Effect.provide(
      Kernel.layer(
        { workspace: root },
        nodeAdapters({
          extensions: Kernel.withoutDiagnostics(
            Layer.effect(Extensions, Effect.map(NodeAdapters.repoMapExtension("auto", cacheDir, worker), (e): ReadonlyArray<Extension> => [e]))
          )
        })
      )
    )
  )

const cacheOf = (cacheDir: string, root: string) => fs.readFileSync(RepoMapCache.cacheFile(cacheDir, root))

describe("repo_map worker", () => {
  it.effect("answers with the in-process map, cold and warm, and writes the same cache", () =>
    Effect.gen(function* () {
      const root = fixture()
      const here = tempDir("minicode-cache-")
      const there = tempDir("minicode-cache-")
      for (const args of [{}, {}, { focus: ["py"] }, { max_chars: 120 }]) {
        const local = yield* map(root, undefined, here, args)
        const worker = yield* map(root, bin, there, args)
        assert.strictEqual(worker.text, local.text)
        assert.strictEqual(worker.truncated, local.truncated)
      }
      assert.include(cacheOf(there, root).toString("latin1"), "src/broken.ts")
      assert.isTrue(cacheOf(there, root).equals(cacheOf(here, root)))
    })
  )

  it.effect("the worker itself made it: its answer, notes included, equals the in-process map", () =>
    Effect.gen(function* () {
      const root = fixture()
      const local = yield* map(root, undefined, tempDir("minicode-cache-"))
      const notes: Array<string> = []
      const job: RepoMapWorker.Job = { root, workMode: "DISCUSS", mode: "auto", cacheDir: tempDir("minicode-cache-"), request: { start: root, shown: ".", args: {} } }
      const result = yield* RepoMapWorker.run(bin, job, (n) => notes.push(n))
      assert.isDefined(result)
      assert.strictEqual(result?.text, local.text)
      assert.deepStrictEqual(result?.stats, { sources: 7, scanHits: 0, scanned: 6, outlineHits: 0, outlined: 6, excluded: 1, cacheWritten: true })
      assert.isTrue(notes.some((n) => n.startsWith("repo_map: ")))
    })
  )

  it.effect("in a read-only mode the worker writes no cache inside the workspace; in BUILD it does", () =>
    Effect.gen(function* () {
      const root = fixture()
      const inside = path.join(root, ".cache")
      const job = (workMode: RepoMapWorker.Job["workMode"]): RepoMapWorker.Job => ({ root, workMode, mode: "auto", cacheDir: inside, request: { start: root, shown: ".", args: {} } })
      for (const mode of ["DISCUSS", "PLAN"] as const) {
        const result = yield* RepoMapWorker.run(bin, job(mode), undefined)
        assert.strictEqual(result?.stats.cacheWritten, false)
        assert.isFalse(fs.existsSync(inside))
      }
      assert.strictEqual((yield* RepoMapWorker.run(bin, job("BUILD"), undefined))?.stats.cacheWritten, true)
      assert.isTrue(fs.existsSync(RepoMapCache.cacheFile(inside, root)))
    })
  )

  it.effect("a worker that cannot run gives no answer, and the call makes the map in process", () =>
    Effect.gen(function* () {
      const root = fixture()
      const missing = path.join(tempDir("minicode-no-bin-"), "bin.js")
      const job: RepoMapWorker.Job = { root, workMode: "DISCUSS", mode: "regex", request: { start: root, shown: ".", args: {} } }
      assert.isUndefined(yield* RepoMapWorker.run(missing, job, undefined))
      const local = yield* map(root, undefined, tempDir("minicode-cache-"))
      assert.strictEqual((yield* map(root, missing, tempDir("minicode-cache-"))).text, local.text)
    })
  )
})
