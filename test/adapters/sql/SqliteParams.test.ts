/**
 * SQLite named parameters with an object `params` (:id, @id, $id), and the guard and the engine agreeing on
 * `PRAGMA journal_mode`: the bare read form runs, the setter is refused by both (issue 24). Real SQLite files.
 */
import { assert, describe, it } from "@effect/vitest"
import { createRequire } from "node:module"
import * as path from "node:path"
import { Effect, Either } from "effect"
import * as SqliteEngine from "../../../src/adapters/sql/SqliteEngine.js"
import { judge } from "../../../src/domain/sql/SqlGuard.js"
import * as SqlTable from "../../../src/domain/sql/SqlTable.js"
import { SqlEngine, type SqlParams } from "../../../src/ports/SqlEngine.js"
import { tempDir } from "../../support/Workspace.js"

interface Db {
  exec(sql: string): unknown
  close(): void
}
const Database = createRequire(import.meta.url)("better-sqlite3") as new (file: string) => Db

const file = () => {
  const f = path.join(tempDir("minicode-sqlite-params-"), "app.db")
  const db = new Database(f)
  db.exec("CREATE TABLE users(id INTEGER PRIMARY KEY, name TEXT); INSERT INTO users(name) VALUES ('ann'), ('bob');")
  db.close()
  return f
}
const run = (f: string, sql: string, params: SqlParams = []) =>
  Effect.flatMap(SqlEngine, (e) => e.run({ dialect: "sqlite", file: f }, { statements: [sql], params, maxRows: 10, write: false, timeoutMs: 5_000 })).pipe(
    Effect.provide(SqliteEngine.layer),
    Effect.scoped
  )

describe("SQLite named parameters and journal_mode", () => {
  it.live(":id, @id and $id bind from an object, with or without the sigil in its keys", () =>
    Effect.gen(function* () {
      const f = file()
      for (const [sql, params] of [
        ["SELECT name FROM users WHERE id = :id", { id: 2 }],
        ["SELECT name FROM users WHERE id = @id", { "@id": 2 }],
        ["SELECT name FROM users WHERE id = $id", { $id: 2 }]
      ] as const) {
        assert.strictEqual(judge(sql, { dialect: "sqlite" })._tag, "Allow", sql)
        const out = yield* run(f, sql, params)
        assert.deepStrictEqual(out.results[0]?.rows, [["bob"]], sql)
      }
      const missing = yield* Effect.either(run(f, "SELECT name FROM users WHERE id = :id", { other: 1 }))
      assert.isTrue(Either.isLeft(missing) && missing.left.kind === "failed", JSON.stringify(missing))
    }), 30_000)

  it.live("PRAGMA journal_mode: the read form runs on both layers; the setter is refused by both", () =>
    Effect.gen(function* () {
      const f = file()
      assert.strictEqual(judge("PRAGMA journal_mode", { dialect: "sqlite" })._tag, "Allow")
      const out = yield* run(f, "PRAGMA journal_mode")
      assert.deepStrictEqual(out.results[0]?.rows, [["delete"]])
      const main = yield* run(f, "PRAGMA main.journal_mode")
      assert.deepStrictEqual(main.results[0]?.rows, [["delete"]])
      assert.strictEqual(judge("PRAGMA journal_mode = WAL", { dialect: "sqlite" })._tag, "Deny")
      const set = yield* Effect.either(run(f, "PRAGMA journal_mode = WAL"))
      assert.isTrue(Either.isLeft(set) && set.left.kind === "refused", JSON.stringify(set))
      const again = yield* run(f, "PRAGMA journal_mode")
      assert.deepStrictEqual(again.results[0]?.rows, [["delete"]])
    }), 30_000)
})

describe("SqlTable: max_cell, types and the footer under an output budget", () => {
  const long = "x".repeat(500)
  const set = { columns: ["id", "body"], types: ["integer", "text"], rows: Array.from({ length: 100 }, (_, i) => [i, long]), truncated: true }
  it("cells are cut at max_cell (default 120), types sit under the names", () => {
    const narrow = SqlTable.render(set, 100)
    assert.include(narrow.split("\n")[1] ?? "", "integer | text")
    assert.include(narrow, `${"x".repeat(119)}…`)
    assert.notInclude(narrow, "x".repeat(121))
    assert.include(SqlTable.render(set, 100, { maxCell: 1000 }), long)
  })
  it("under a budget rows are dropped, never the footer", () => {
    const text = SqlTable.render(set, 100, { maxCell: 1000, budget: 4_000 })
    assert.isAtMost(Buffer.byteLength(text), 4_000)
    const footer = /^\[(\d+) rows shown of 100\+; the rest cut to fit the output limit/.exec(text.split("\n").at(-1) ?? "")
    assert.isNotNull(footer)
    const shown = Number(footer?.[1])
    assert.isAbove(shown, 0)
    assert.strictEqual(text.split("\n").length, 3 + shown + 1) // names, types, rule, rows, footer
  })
  it("a backslash is shown once", () => {
    assert.strictEqual(SqlTable.cell("C:\\dir\\file"), "C:\\dir\\file")
  })
})

describe("SqlTable.structured", () => {
  it("columns, types and JSON-safe rows: bigints exact, bytes as hex", () => {
    const model = SqlTable.structured([{ columns: ["id", "blob"], types: ["bigint", "bytea"], rows: [[9007199254740993n, new Uint8Array([1, 255])]], truncated: false }])
    assert.deepStrictEqual(JSON.parse(JSON.stringify(model)), { results: [{ columns: ["id", "blob"], types: ["bigint", "bytea"], rows: [["9007199254740993", "\\x01ff"]], truncated: false }] })
  })
  it("integers in JavaScript's exact range as numbers, bigints inside JSON as text; under a budget rows are dropped from the end and the set marked cut", () => {
    const small = SqlTable.structured([{ columns: ["n", "doc"], rows: [[5n, { big: 2n ** 70n }]], truncated: false }])
    assert.deepStrictEqual(small.results[0]?.rows, [[5, { big: "1180591620717411303424" }]])
    const rows = Array.from({ length: 100 }, (_, i) => [i, "x".repeat(50)])
    const cut = SqlTable.structured([{ columns: ["i", "s"], rows, truncated: false }], 1_000)
    const kept = cut.results[0]?.rows ?? []
    assert.isTrue(kept.length > 0 && kept.length < 100, String(kept.length))
    assert.deepStrictEqual(kept[0], [0, "x".repeat(50)])
    assert.isTrue(cut.results[0]?.truncated)
    assert.isAtMost(JSON.stringify(kept).length, 1_000)
    assert.isFalse(SqlTable.structured([{ columns: ["i", "s"], rows, truncated: false }], 100_000).results[0]?.truncated)
  })
})
