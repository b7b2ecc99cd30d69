/**
 * Layer 2 alone on SQLite: write and escape attempts sent straight to the engine on a read connection, no guard
 * before it. Each is refused, the database is unchanged and no other file appears. And a configured database
 * (no jail identity) that a script replaced with a symlink to a file elsewhere is not opened through the link.
 */
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, assert, describe, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import * as SqliteEngine from "../../../src/adapters/sql/SqliteEngine.js"
import { SqlEngine, type SqlRequest } from "../../../src/ports/SqlEngine.js"
import { request } from "../../contracts/SqlEngine.contract.js"

const Database = createRequire(import.meta.url)("better-sqlite3") as new (file: string) => { exec(sql: string): unknown; close(): void }

describe("SqliteEngine alone (no guard)", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "minicode-sqlite-alone-"))
  const db = path.join(dir, "app.db")
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))
  const run = (req: SqlRequest, file = db) =>
    Effect.flatMap(SqlEngine, (engine) => engine.run({ dialect: "sqlite", file }, req)).pipe(Effect.provide(SqliteEngine.layer), Effect.scoped)
  const files = () => fs.readdirSync(dir).sort()

  it.live("sets up", () =>
    Effect.gen(function* () {
      const made = new Database(db)
      made.exec("CREATE TABLE t(x INTEGER); INSERT INTO t VALUES (1);")
      made.close()
      assert.deepStrictEqual(files(), ["app.db"])
    }), 30_000)

  const attacks: ReadonlyArray<ReadonlyArray<string>> = [
    [`VACUUM INTO '${dir}/copy1.db'`],
    [`VACUUM INTO (SELECT '${dir}/copy2.db')`],
    [`VACUUM main INTO '${dir}' || '/copy3.db'`],
    [`ATTACH '${dir}/new.db' AS n`, "CREATE TABLE n.x(a)"],
    [`ATTACH '${dir}/new2.db' AS n`],
    ["INSERT INTO t VALUES (2)"],
    ["BEGIN", "INSERT INTO t VALUES (3)", "COMMIT"],
    ["PRAGMA query_only = OFF", "INSERT INTO t VALUES (4)"],
    ["PRAGMA journal_mode = DELETE"],
    ["PRAGMA user_version = 7"],
    ["SELECT 1; INSERT INTO t VALUES (5)"],
    ["SELECT 1; VACUUM INTO '" + dir + "/copy4.db'"],
    ["SELECT load_extension('/nonexistent')"]
  ]
  for (const attack of attacks) {
    it.live(`refuses ${JSON.stringify(attack).slice(0, 100)}`, () =>
      Effect.gen(function* () {
        const outcome = yield* Effect.either(run(request(attack)))
        assert.isTrue(Either.isLeft(outcome), `ran: ${JSON.stringify(attack)}`)
        assert.deepStrictEqual(files(), ["app.db"])
        const rows = yield* run(request(["SELECT group_concat(x) FROM t", "PRAGMA user_version"]))
        assert.deepStrictEqual(rows.results.map((r) => r.rows[0]?.[0]), ["1", 0n])
      }), 30_000)
  }

  it.live("a configured database replaced by a symlink to a file elsewhere is not opened (read or write)", () =>
    Effect.gen(function* () {
      const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), "minicode-sqlite-elsewhere-"))
      const outside = path.join(elsewhere, "secret.db")
      fs.copyFileSync(db, outside)
      const configured = path.join(dir, "configured.db")
      fs.symlinkSync(outside, configured)
      try {
        const read = yield* Effect.either(run(request(["SELECT x FROM t"]), configured))
        assert.isTrue(Either.isLeft(read), `read through the link: ${JSON.stringify(read)}`)
        const write = yield* Effect.either(run(request(["INSERT INTO t VALUES (9)"], { write: true }), configured))
        assert.isTrue(Either.isLeft(write), "wrote through the link")
        assert.deepStrictEqual(fs.readdirSync(elsewhere), ["secret.db"])
      } finally {
        fs.rmSync(configured, { force: true })
        fs.rmSync(elsewhere, { recursive: true, force: true })
      }
      // The real file still opens.
      const ok = yield* run(request(["SELECT count(*) FROM t"]))
      assert.deepStrictEqual(ok.results[0]?.rows, [[1n]])
    }), 30_000)
})
