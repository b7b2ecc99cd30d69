/**
 * The ranking's data layout: slots only for the words that can move rank (`usableWords`) give the same ranking, to
 * the last bit, as arrays sized by every word (the layout before, `RankOracle`), over random graphs: words defined
 * by none, one or more than twelve files, mentioned by their one definer only, long, short and private ones,
 * imports between files, with and without focus.
 */
import { assert, describe, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import * as Rank from "../../../src/domain/repomap/Rank.js"
import * as Summary from "../../../src/domain/repomap/Summary.js"
import { rankSummariesBefore } from "./RankOracle.js"

/** Word names of every kind the weights tell apart (`Summary.kindOf`). */
const wordName = (k: number) => [`w${k}x`, `longWordName${k}`, `_priv${k}`, `_long_snake_${k}`][k % 4] ?? `w${k}`
const folders = ["src/a", "src/b", "lib"]

const file = (vocab: number, files: number) =>
  fc.record({
    defs: fc.uniqueArray(fc.integer({ min: 0, max: vocab - 1 }), { maxLength: 8 }),
    refs: fc.uniqueArray(fc.integer({ min: 0, max: vocab + 4 }), { maxLength: 12 }),
    imports: fc.array(
      fc.tuple(fc.constantFrom("./", "../a/", "../b/", "../../lib/"), fc.integer({ min: 0, max: files - 1 })).map(([dir, j]) => `${dir}f${j}.js`),
      { maxLength: 3 }
    )
  })

const graph = fc.tuple(fc.integer({ min: 1, max: 40 }), fc.integer({ min: 1, max: 60 })).chain(([files, vocab]) =>
  fc.record({
    vocab: fc.constant(vocab),
    files: fc.array(file(vocab, files), { minLength: files, maxLength: files }),
    focus: fc.uniqueArray(fc.integer({ min: 0, max: files - 1 }), { maxLength: 3 })
  })
)

describe("repo map ranking", () => {
  it("slots for the usable words only rank exactly as arrays sized by every word", () => {
    fc.assert(
      fc.property(graph, ({ files, focus, vocab }) => {
        const table = Summary.words()
        // Words of the table no file has (a cache keeps the words of files since gone), and ids in table order.
        for (let k = 0; k < vocab + 8; k++) table.id(wordName((k * 7) % (vocab + 8)))
        const ids = (ks: ReadonlyArray<number>) => Int32Array.from(new Set(ks.map((k) => table.id(wordName(k))))).sort()
        const summaries = new Map<string, Summary.Summary>()
        files.forEach((f, i) => {
          const path = `${folders[i % folders.length]}/f${i}.${i % 5 === 4 ? "py" : "ts"}`
          summaries.set(path, { symbols: f.defs.length, defs: ids(f.defs), imports: f.imports, refs: ids(f.refs) })
        })
        const paths = [...summaries.keys()]
        const focused = new Set(focus.flatMap((i) => paths[i] ?? []))
        const now = Rank.rankSummaries(summaries, table, focused)
        const before = rankSummariesBefore(summaries, table, focused)
        assert.deepStrictEqual(now.files, before.files)
        for (const path of [...paths, "not/a/file.ts"]) {
          for (let k = 0; k < vocab + 10; k++) assert.strictEqual(now.symbolScore(path, wordName(k)), before.symbolScore(path, wordName(k)))
          assert.strictEqual(now.symbolScore(path, undefined), before.symbolScore(path, undefined))
        }
      }),
      { numRuns: 400 }
    )
  })
})
