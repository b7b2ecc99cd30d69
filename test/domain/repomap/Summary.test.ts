/**
 * The repo map's summaries: identifiers read off the characters (`mentionIds`) are exactly `identifierSet`'s words,
 * kinds included, new ones numbered in the order they first occur, on real source files and on the edge cases of the word pattern; the cache's bytes round-trip.
 */
import * as fs from "node:fs"
import { assert, describe, it } from "@effect/vitest"
import * as CacheFile from "../../../src/domain/repomap/CacheFile.js"
import * as RepoMap from "../../../src/domain/repomap/RepoMap.js"
import * as Summary from "../../../src/domain/repomap/Summary.js"

const viaStrings = (text: string, table: Summary.Words) => Int32Array.from(RepoMap.identifierSet(text), table.id).sort()

describe("repo map summaries", () => {
  it("reads the same identifiers as the regular expression, with the same kinds", () => {
    const texts = [
      "9abc x1y ab $dollar_ _private __init__ camelCaseName snake_case_name ABCDEFGH abcdefgh aB1 return interface implements",
      "émoji😀word naïve ab\ncd\tef-ghi a_b c$d 123 0x1F a9",
      ...["src/domain/repomap/Rank.ts", "src/tools/RepoMapTool.ts", "src/domain/repomap/RepoMap.ts"].map((f) => fs.readFileSync(f, "utf8"))
    ]
    for (const text of texts) {
      const table = Summary.words()
      const expected = viaStrings(text, table)
      assert.deepStrictEqual([...Summary.mentionIds(text, table)], [...expected])
      for (const word of RepoMap.identifierSet(text)) assert.strictEqual(table.kind(table.lookup(word) ?? -1), Summary.kindOf(word), word)
    }
  })

  it("new words get their ids in the order they first occur, text after text, however many words a text has", () => {
    const many = Array.from({ length: 20_000 }, (_, k) => `word${(k * 7919) % 12_000}`).join(" ")
    const texts = [
      "beta alpha beta gamma alpha delta return class",
      many,
      "gamma epsilon alpha zeta_long_name",
      ...["src/domain/repomap/Rank.ts", "src/tools/RepoMapTool.ts", "src/domain/repomap/Summary.ts"].map((f) => fs.readFileSync(f, "utf8")),
      many.split(" ").reverse().join("\n")
    ]
    const read = Summary.words()
    const listed = Summary.words()
    for (const text of texts) {
      const ids = Summary.mentionIds(text, read)
      for (const word of RepoMap.identifierSet(text)) listed.id(word)
      assert.strictEqual(read.size(), listed.size())
      assert.deepStrictEqual([...ids], [...Int32Array.from(RepoMap.identifierSet(text), (w) => listed.lookup(w) ?? -1).sort()])
    }
    assert.deepStrictEqual([...read.contents().h1], [...listed.contents().h1])
    assert.deepStrictEqual([...read.contents().kinds], [...listed.contents().kinds])
  })

  it("a summary counts extractRegex's symbols and numbers their names first, then the words the text mentions", () => {
    const files = [
      ...fs.readdirSync("src/domain/repomap").map((f) => `src/domain/repomap/${f}`),
      ...(fs.readdirSync("test/fixtures/repomap", { recursive: true, encoding: "utf8" }) as Array<string>)
        .map((f) => `test/fixtures/repomap/${f}`)
        .filter((f) => RepoMap.languageOf(f) !== undefined && fs.statSync(f).isFile())
    ]
    assert.isAbove(files.length, 20)
    const table = Summary.words()
    const expectedTable = Summary.words()
    for (const file of files) {
      const text = fs.readFileSync(file, "utf8")
      const summary = Summary.summarize(file, text, table)
      const outline = RepoMap.extractRegex(file, text)
      const names = outline.symbols.flatMap((s) => (s.name !== undefined && s.name.length >= 2 ? [s.name] : []))
      const defs = Int32Array.from(new Set(names.map(expectedTable.id))).sort()
      assert.strictEqual(summary.symbols, outline.symbols.length, file)
      assert.deepStrictEqual([...summary.defs], [...defs], file)
      assert.deepStrictEqual(summary.imports, outline.imports, file)
      assert.deepStrictEqual([...summary.refs], [...Summary.mentionIds(text, expectedTable)], file)
    }
    assert.deepStrictEqual([...table.contents().h1], [...expectedTable.contents().h1])
  })

  it("the cache's bytes decode to what was encoded, and a file from another format does not decode", () => {
    const table = Summary.words()
    const a = Summary.summarize("src/a.ts", 'import { b } from "./b.js"\nexport function alpha() { return b() }\n', table)
    const b = Summary.summarize("src/b.ts", "export const b = () => betaValue\n", table)
    const cache: CacheFile.Cache = {
      root: "/w",
      words: table,
      files: {
        "src/a.ts": { stat: "1:2:3", hash: "h", summary: a, parser: "regex" },
        "src/b.ts": { stat: "4:5:6", hash: "i", summary: b, outliner: "tree-sitter", parser: "tree-sitter", outline: { symbols: [{ line: 1, text: "export const b", name: "b" }], imports: [] } }
      }
    }
    const back = CacheFile.decode(CacheFile.encode(cache))
    assert.isDefined(back)
    assert.deepStrictEqual(Object.keys(back?.files ?? {}), ["src/a.ts", "src/b.ts"])
    assert.deepStrictEqual(back?.files["src/b.ts"]?.outline, cache.files["src/b.ts"]?.outline)
    assert.deepStrictEqual(back?.files["src/a.ts"]?.summary.imports, ["./b.js"])
    // Same words behind the (renumbered) ids.
    for (const word of ["alpha", "betaValue"]) assert.isDefined(back?.words.lookup(word))
    const ids = (w: Summary.Words | undefined, s: Summary.Summary | undefined) => [...(s?.refs ?? [])].map((id) => w?.contents().h1[id])
    assert.deepStrictEqual(ids(back?.words, back?.files["src/a.ts"]?.summary).sort(), ids(table, a).sort())
    assert.isUndefined(CacheFile.decode(new TextEncoder().encode(JSON.stringify({ version: 2, root: "/w", files: {} }))))
  })
})
