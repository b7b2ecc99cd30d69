/**
 * repo_map's guarantees at scale, on small real trees through the chain: coverage is never silent (every file left
 * out is named with its reason, the walk's budget too, in both modes); the warm cache hits for every unchanged
 * file, those tree-sitter parsed with errors included; a read-only session writes nothing in the workspace; the
 * ranking puts the most-used file first and `focus` moves the order.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Ref } from "effect"
import * as TreeSitterOutliner from "../../src/adapters/treesitter/TreeSitterOutliner.js"
import type { WorkMode } from "../../src/domain/core/Modes.js"
import * as CacheFile from "../../src/domain/repomap/CacheFile.js"
import { type Extension, Extensions } from "../../src/kernel/Executor.js"
import * as Kernel from "../../src/kernel/Kernel.js"
import * as Runner from "../../src/kernel/Runner.js"
import * as RepoMap from "../../src/tools/RepoMapTool.js"
import * as RepoMapCache from "../../src/tools/RepoMapCache.js"
import { tempDir, write } from "../support/Workspace.js"
import { nodeAdapters } from "../support/Adapters.js"

const chain = (root: string, repoMap: ReturnType<typeof RepoMap.make>, workMode: WorkMode = "DISCUSS") =>
  Kernel.layer(
    { workspace: root, workMode },
    nodeAdapters({ extensions: Kernel.withoutDiagnostics(Layer.effect(Extensions, Effect.map(repoMap, (e): ReadonlyArray<Extension> => [e]))) })
  )

const treeSitter = (cacheDir: string | undefined, onStats?: (s: RepoMap.Stats) => Effect.Effect<void>) =>
  Effect.flatMap(TreeSitterOutliner.make, (outliner) =>
    RepoMap.make({ outliner, outlinerName: TreeSitterOutliner.name, cacheDir, ...(onStats === undefined ? {} : { onStats }) })
  )

const map = (root: string, repoMap: ReturnType<typeof RepoMap.make>, args: Record<string, unknown> = {}, workMode: WorkMode = "DISCUSS") =>
  Runner.invoke({ tool: "repo_map", args }).pipe(Effect.provide(chain(root, repoMap, workMode)))

/** Every entry under root, hidden ones included, with its size and mtime: what a read-only call must not change. */
const snapshot = (root: string): Record<string, string> => {
  const out: Record<string, string> = {}
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, e.name)
      const st = fs.lstatSync(full)
      out[path.relative(root, full)] = `${st.size}:${st.mtimeMs}`
      if (e.isDirectory()) walk(full)
    }
  }
  walk(root)
  return out
}

describe("repo_map coverage", () => {
  for (const mode of ["auto", "regex"] as const) {
    it.effect(`names every file it leaves out and why (${mode})`, () =>
      Effect.gen(function* () {
        const root = tempDir("minicode-repomap-")
        write(root, "src/a.ts", "export function a() {}\n")
        write(root, "src/big.ts", `export const big = 1\n${"// filler line\n".repeat(80_000)}`)
        write(root, "src/blob.c", "int main(void) {}\n\u0000\u0000binary")
        fs.symlinkSync(path.join(root, "src/a.ts"), path.join(root, "src/link.ts"))
        const repoMap = mode === "regex" ? RepoMap.make({ mode, cacheDir: undefined }) : treeSitter(undefined)
        const out = yield* map(root, repoMap)
        const lines = out.text.split("\n")
        assert.match(lines[0] ?? "", /; covers 1 of 4 source files; left out:$/)
        assert.include(out.text, "[not mapped: 1 file larger than 1 MB: src/big.ts]")
        assert.include(out.text, "[not mapped: 1 file binary: src/blob.c]")
        assert.include(out.text, "[not mapped: 1 file a symlink (not followed): src/link.ts]")
        assert.include(out.text, "src/a.ts\n  1: export function a()")
        assert.isTrue(out.truncated)
      })
    )

    it.effect(`says so when the walk's budget stops it (${mode})`, () =>
      Effect.gen(function* () {
        const root = tempDir("minicode-repomap-")
        for (let i = 0; i < 300; i++) write(root, `d${i % 10}/f${i}.py`, `def f${i}():\n    pass\n`)
        const repoMap = mode === "regex" ? RepoMap.make({ mode, cacheDir: undefined }) : treeSitter(undefined)
        const before = RepoMap.limits.walkEntries
        const cut = yield* Effect.acquireUseRelease(
          Effect.sync(() => (RepoMap.limits.walkEntries = 100)),
          () => map(root, repoMap, { max_chars: 400 }),
          () => Effect.sync(() => (RepoMap.limits.walkEntries = before))
        )
        assert.include(cut.text, "[not mapped: the walk stopped after 100 entries; files past it are not counted; map a subdirectory]")
        assert.isTrue(cut.truncated)
      })
    )
  }
})

it.effect("maps every one of 20,050 source files, past the old silent cap of 20,000 paths", () =>
  Effect.gen(function* () {
    const root = tempDir("minicode-repomap-")
    for (let i = 0; i < 50; i++) fs.mkdirSync(path.join(root, `d${i}`))
    for (let i = 0; i < 20_050; i++) fs.writeFileSync(path.join(root, `d${i % 50}`, `f${i}.py`), `def f${i}():\n    pass\n`)
    const all = yield* map(root, treeSitter(undefined), { max_chars: 400 })
    assert.match(all.text.split("\n")[0] ?? "", /^repo map of \.: 20050 files, 20050 symbols .*; covers all 20050 source files$/)
  }),
  120_000
)

describe("repo_map cache", () => {
  it.effect("hits for every unchanged file on a warm call, files tree-sitter parsed with errors included", () =>
    Effect.gen(function* () {
      const root = tempDir("minicode-repomap-")
      const cacheDir = tempDir("minicode-cache-")
      write(root, "src/ok.ts", 'import { broken } from "./broken.js"\nexport function ok() { return broken() }\n')
      write(root, "src/broken.ts", "export function broken() {\n  return (\n}\nexport class Half {\n")
      write(root, "lib/bad.py", "def f(:\n    pass\nclass Shape:\n    pass\n")
      write(root, "lib/good.py", "def g():\n    pass\n")
      const stats = yield* Ref.make<ReadonlyArray<RepoMap.Stats>>([])
      const repoMap = treeSitter(cacheDir, (s) => Ref.update(stats, (all) => [...all, s]))
      const cold = yield* map(root, repoMap)
      const warm = yield* map(root, repoMap)
      assert.strictEqual(warm.text, cold.text)
      const [first, second] = yield* Ref.get(stats)
      assert.deepStrictEqual(first, { sources: 4, scanHits: 0, scanned: 4, outlineHits: 0, outlined: 4, excluded: 0, cacheWritten: true })
      assert.deepStrictEqual(second, { sources: 4, scanHits: 4, scanned: 0, outlineHits: 4, outlined: 0, excluded: 0, cacheWritten: false })
      const cache = CacheFile.decode(fs.readFileSync(RepoMapCache.cacheFile(cacheDir, root)))
      // The broken files fell back to the regex, and that answer is what is cached under the outliner's key.
      assert.deepStrictEqual([cache?.files["src/broken.ts"]?.outliner, cache?.files["src/broken.ts"]?.parser], ["tree-sitter", "regex"])
      assert.include(cold.text, "src/broken.ts (imported by 1)\n  1: export function broken()")
      // A touch without a change is read and hashed, never re-parsed; a change is re-parsed.
      const t = new Date(Date.now() + 5000)
      fs.utimesSync(path.join(root, "src/broken.ts"), t, t)
      write(root, "lib/good.py", "def g2():\n    pass\n")
      const third = yield* map(root, repoMap)
      assert.include(third.text, "def g2()")
      const last = (yield* Ref.get(stats))[2]
      assert.deepStrictEqual([last?.scanHits, last?.scanned, last?.outlined], [3, 1, 1])
    })
  )

  it.effect("a DISCUSS session writes nothing in the workspace; the cache goes to the user's cache folder", () =>
    Effect.gen(function* () {
      const root = tempDir("minicode-repomap-")
      const cacheDir = tempDir("minicode-cache-")
      write(root, "src/a.ts", 'import { b } from "./b.js"\nexport const a = b\n')
      write(root, "src/b.ts", "export const b = 1\n")
      const before = snapshot(root)
      const out = yield* map(root, treeSitter(cacheDir), {}, "DISCUSS")
      assert.include(out.text, "src/b.ts (imported by 1)")
      assert.deepStrictEqual(snapshot(root), before)
      assert.isTrue(fs.existsSync(RepoMapCache.cacheFile(cacheDir, root)))
      // A cache folder planted inside the workspace is not written in a read-only mode, only in BUILD.
      const inside = path.join(root, ".cache")
      yield* map(root, treeSitter(inside), {}, "DISCUSS")
      yield* map(root, treeSitter(inside), {}, "PLAN")
      assert.deepStrictEqual(snapshot(root), before)
      yield* map(root, treeSitter(inside), {}, "BUILD")
      assert.isTrue(fs.existsSync(RepoMapCache.cacheFile(inside, root)))
    })
  )

  it.effect("a damaged or foreign cache file is ignored, not trusted", () =>
    Effect.gen(function* () {
      const root = tempDir("minicode-repomap-")
      const cacheDir = tempDir("minicode-cache-")
      write(root, "a.py", "def real():\n    pass\n")
      const file = RepoMapCache.cacheFile(cacheDir, root)
      fs.mkdirSync(path.dirname(file), { recursive: true })
      fs.writeFileSync(file, "{not json")
      assert.include((yield* map(root, treeSitter(cacheDir))).text, "def real()")
      const cache = CacheFile.decode(fs.readFileSync(file))
      const entry = cache?.files["a.py"]
      assert.isDefined(entry)
      if (cache === undefined || entry === undefined) return
      const planted = { ...entry, outline: { symbols: [{ line: 1, text: "PLANTED" }], imports: [] } }
      const bytes = CacheFile.encode({ ...cache, files: { "a.py": planted } })
      // Planted under the workspace's own root it would be trusted (the cache works); under another root, not.
      fs.writeFileSync(file, bytes)
      assert.include((yield* map(root, treeSitter(cacheDir))).text, "PLANTED")
      fs.writeFileSync(file, CacheFile.encode({ ...cache, root: "/elsewhere", files: { "a.py": planted } }))
      assert.notInclude((yield* map(root, treeSitter(cacheDir))).text, "PLANTED")
      // Truncated, or one byte changed in its ids: ignored, and the map is whole.
      fs.writeFileSync(file, bytes.subarray(0, bytes.length - 4))
      assert.include((yield* map(root, treeSitter(cacheDir))).text, "def real()")
      const damaged = CacheFile.encode({ ...cache, files: { "a.py": planted } })
      damaged[damaged.length - 1] = 0x7f
      fs.writeFileSync(file, damaged)
      assert.include((yield* map(root, treeSitter(cacheDir))).text, "def real()")
      // The JSON cache of the version before is ignored, and removed once the new one is written.
      const legacy = file.replace(/\.bin$/, ".json")
      fs.writeFileSync(legacy, JSON.stringify({ version: 2, root, files: { "a.py": { stat: "x", hash: "y", parser: "regex", scan: { symbols: [{ line: 1, text: "OLD" }], imports: [], refs: "" } } } }))
      fs.rmSync(file)
      const fresh = yield* map(root, treeSitter(cacheDir))
      assert.include(fresh.text, "def real()")
      assert.notInclude(fresh.text, "OLD")
      assert.isFalse(fs.existsSync(legacy))
    })
  )
})

describe("repo_map ranking", () => {
  const project = () => {
    const root = tempDir("minicode-repomap-")
    write(root, "src/core/store.ts", "export class Store {\n  get(key: string) {}\n}\nexport function createStore(): Store { return new Store() }\n")
    for (const name of ["users", "orders", "billing", "search"]) {
      write(root, `src/features/${name}.ts`, `import { createStore, Store } from "../core/store.js"\nexport function ${name}Feature(s: Store) { return createStore() }\n`)
    }
    write(root, "src/tools/format.ts", "export function formatReport(lines: string[]): string { return lines.join() }\n")
    write(root, "src/tools/report.ts", 'import { formatReport } from "./format.js"\nexport function printReport() { return formatReport([]) }\n')
    return root
  }
  const order = (text: string) => text.split("\n").filter((l) => /^src\//.test(l)).map((l) => l.split(" ")[0])

  it.effect("puts the most-referenced file first, and focus moves what the focused files use up", () =>
    Effect.gen(function* () {
      const root = project()
      const plain = order((yield* map(root, RepoMap.make({ mode: "regex" }))).text)
      assert.strictEqual(plain[0], "src/core/store.ts")
      const focused = yield* map(root, RepoMap.make({ mode: "regex" }), { focus: ["src/tools/report.ts"] })
      const ranked = order(focused.text)
      assert.match(focused.text.split("\n")[0] ?? "", /focused on src\/tools\/report\.ts/)
      assert.isBelow(ranked.indexOf("src/tools/format.ts"), ranked.indexOf("src/core/store.ts"))
      assert.isBelow(plain.indexOf("src/core/store.ts"), plain.indexOf("src/tools/format.ts"))
    })
  )

  it.effect("fills a small budget with the top-ranked symbols of many files rather than every line of one", () =>
    Effect.gen(function* () {
      const root = project()
      const many = Array.from({ length: 60 }, (_, i) => `export function unused${i}() {}`).join("\n")
      write(root, "src/aaa/noise.ts", `${many}\n`)
      const out = yield* map(root, RepoMap.make({ mode: "regex" }), { max_chars: 600 })
      assert.isAtMost(out.text.split("\n").slice(0, -1).join("\n").length, 600)
      assert.include(out.text, "src/core/store.ts")
      assert.include(out.text, "export function createStore(): Store")
      assert.notInclude(out.text, "unused59")
      assert.isTrue(out.truncated)
    })
  )
})
