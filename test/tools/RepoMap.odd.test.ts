/**
 * repo_map on a tree shaped unlike the bench tree (test/support/OddTree.ts, seeded; ODD_SEED for another): every
 * source file the walk lists (git's listing, as grep and glob have it) is counted; the ones left out are named, each
 * with its reason (a line over 1 MB, a symlink, a dangling symlink, binary, a secret denied), and the others mapped;
 * a warm call hits the cache for every unchanged file: files tree-sitter parsed with errors, files in languages only
 * the regex outlines (Lua, Kotlin, shell), files with CRLF, a BOM, invalid UTF-8, awkward names.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Ref } from "effect"
import { afterAll, beforeAll } from "vitest"
import * as TreeSitterOutliner from "../../src/adapters/treesitter/TreeSitterOutliner.js"
import * as RepoMap from "../../src/domain/repomap/RepoMap.js"
import { type Extension, Extensions } from "../../src/kernel/Executor.js"
import * as Kernel from "../../src/kernel/Kernel.js"
import * as Runner from "../../src/kernel/Runner.js"
import * as RepoMapTool from "../../src/tools/RepoMapTool.js"
import { nodeAdapters } from "../support/Adapters.js"
import { generateOddTree, gitListing, type OddTree } from "../support/OddTree.js"

const seed = Number(process.env["ODD_SEED"] ?? 7)
let base: string
let tree: OddTree
beforeAll(() => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "minicode-odd-map-")))
  tree = generateOddTree({ dir: path.join(base, "tree"), seed, files: 600, bigBytes: 1024 * 1024, huge: false })
  // Parse errors, for tree-sitter and the regex alike.
  fs.writeFileSync(path.join(tree.root, "edge/broken.ts"), "export function broken() {\n  return (\n}\nexport class Half {\n")
  fs.writeFileSync(path.join(tree.root, "edge/broken.py"), "def f(:\n    pass\nclass Shape:\n    pass\n")
  fs.writeFileSync(path.join(tree.root, "edge/nul-early.ts"), Buffer.concat([Buffer.from("export const a = 1\n"), Buffer.alloc(4, 0)]))
}, 120_000)
afterAll(() => fs.rmSync(base, { recursive: true, force: true }))

const sources = () => gitListing(tree.root).filter((f) => RepoMap.languageOf(f) !== undefined)

const chain = (root: string, repoMap: ReturnType<typeof RepoMapTool.make>) =>
  Kernel.layer(
    { workspace: root, workMode: "DISCUSS" },
    nodeAdapters({ extensions: Kernel.withoutDiagnostics(Layer.effect(Extensions, Effect.map(repoMap, (e): ReadonlyArray<Extension> => [e]))) })
  )

const make = (mode: "auto" | "regex", cacheDir: string, onStats: (s: RepoMapTool.Stats) => Effect.Effect<void>) =>
  mode === "regex"
    ? RepoMapTool.make({ mode, cacheDir, onStats })
    : Effect.flatMap(TreeSitterOutliner.make, (outliner) => RepoMapTool.make({ outliner, outlinerName: TreeSitterOutliner.name, cacheDir, onStats }))

/** The `[not mapped: …]` notes as reason → files (JSON-quoted names unquoted). */
const leftOut = (text: string) => {
  const out = new Map<string, ReadonlyArray<string>>()
  for (const line of text.split("\n")) {
    const m = /^\[not mapped: \d+ files? (.+?): (.*)\]$/.exec(line)
    if (m === null) continue
    const names = (m[2] ?? "").split(", ").map((n) => (n.startsWith('"') ? (JSON.parse(n) as string) : n))
    out.set(m[1] ?? "", names)
  }
  return out
}

describe(`repo_map on an odd tree (seed ${seed})`, () => {
  for (const mode of ["auto", "regex"] as const) {
    it.effect(`counts every source file, names each one left out with its reason, and a warm call hits for all the rest (${mode})`, () =>
      Effect.gen(function* () {
        const cacheDir = fs.mkdtempSync(path.join(base, `cache-${mode}-`))
        const stats = yield* Ref.make<ReadonlyArray<RepoMapTool.Stats>>([])
        const repoMap = make(mode, cacheDir, (s) => Ref.update(stats, (all) => [...all, s]))
        const run = Runner.invoke({ tool: "repo_map", args: { max_chars: 4000 } }).pipe(Effect.provide(chain(tree.root, repoMap)))
        const cold = yield* run
        const all = sources()
        const header = cold.text.split("\n")[0] ?? ""
        const covers = /covers (\d+) of (\d+) source files; left out:$/.exec(header)
        assert.isNotNull(covers, header)
        assert.strictEqual(Number(covers?.[2]), all.length)
        const notes = leftOut(cold.text)
        const excluded = [...notes.values()].flat()
        assert.strictEqual(Number(covers?.[1]), all.length - excluded.length)
        for (const f of excluded) assert.include(all, f)
        assert.deepStrictEqual(notes.get("larger than 1 MB"), ["edge/long-line.js"])
        assert.deepStrictEqual(notes.get("binary"), ["edge/nul-early.ts"])
        assert.deepStrictEqual(notes.get("a symlink (not followed)"), ["links/dangling.ts", "links/in-file.ts"])
        const [first] = yield* Ref.get(stats)
        assert.strictEqual(first?.sources, all.length)
        assert.strictEqual(first?.excluded, excluded.length)
        const warm = yield* run
        assert.strictEqual(warm.text, cold.text)
        const second = (yield* Ref.get(stats))[1]
        // Every file that was read is a hit: by stat, with its outline reused; nothing read, scanned or outlined again.
        assert.deepStrictEqual(second, {
          sources: all.length,
          scanHits: all.length - excluded.length,
          scanned: 0,
          outlineHits: first?.outlined ?? -1,
          outlined: 0,
          excluded: excluded.length,
          cacheWritten: false
        })
        // Names with a newline or a tab come quoted (one file, one line), the others as they are.
        const names = yield* Runner.invoke({ tool: "repo_map", args: { focus: ["names"], max_chars: 20000 } }).pipe(Effect.provide(chain(tree.root, repoMap)))
        assert.include(names.text, '"names/new\\nline.ts"')
        assert.include(names.text, '"names/tab\\there.ts"')
        assert.include(names.text, "\nnames/a b.ts")
        assert.notInclude(names.text, "names/new\nline.ts")
      }),
      120_000
    )
  }
})
