/**
 * One suite for every SqlEngine adapter: writes with bound parameters when opened for writing, reads with columns
 * and the row cap, the engine's own read-only enforcement (layer 2: refused, nothing changed), database errors
 * as `failed`, and the statement timeout. No in-memory engine: a fake could not enforce read-only faithfully.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Either, type Layer } from "effect"
import { SqlEngine, type SqlEngineError, type SqlParam, type SqlRequest, type SqlTarget } from "../../src/ports/SqlEngine.js"

export interface Fixture {
  readonly layer: Layer.Layer<SqlEngine, SqlEngineError>
  /** A database this engine can reach (may be shared: the suite uses its own table names). */
  readonly target: () => SqlTarget
  /** The dialect's placeholder for the n-th parameter (1-based). */
  readonly param: (n: number) => string
  /** A read that runs far longer than a second. */
  readonly slow: string
}

/** A read request with the defaults every engine test uses (200 rows, 5 s), `over` changing any of them. */
export const request = (statements: ReadonlyArray<string>, over: Partial<SqlRequest> = {}): SqlRequest => ({
  statements,
  params: [],
  maxRows: 200,
  write: false,
  timeoutMs: 5_000,
  ...over
})

/** The port lets an integer cell be a number or a bigint (SQLite keeps exact integers): compare them as numbers. */
const cells = (rows: ReadonlyArray<ReadonlyArray<unknown>> | undefined) =>
  rows?.map((row) => row.map((c) => (typeof c === "bigint" ? Number(c) : c)))

let tables = 0
const freshTable = () => `contract_${process.pid}_${Date.now().toString(36)}_${tables++}`

export const contract = (name: string, fixture: Fixture) =>
  describe(`SqlEngine contract: ${name}`, () => {
    const run = (req: SqlRequest) =>
      Effect.flatMap(SqlEngine, (engine) => engine.run(fixture.target(), req)).pipe(Effect.provide(fixture.layer), Effect.scoped)
    const seeded = (rows: ReadonlyArray<readonly [number, string]>) =>
      Effect.gen(function* () {
        const t = freshTable()
        yield* run(request([`CREATE TABLE ${t} (id INTEGER PRIMARY KEY, name TEXT)`], { write: true }))
        for (const [id, label] of rows) {
          const params: ReadonlyArray<SqlParam> = [id, label]
          const out = yield* run(request([`INSERT INTO ${t} (id, name) VALUES (${fixture.param(1)}, ${fixture.param(2)})`], { write: true, params }))
          assert.strictEqual(out.results[0]?.changes, 1)
        }
        return t
      })

    it.live("a write with bound parameters commits; a read returns columns and rows in order", () =>
      Effect.gen(function* () {
        const t = yield* seeded([[1, "ann"], [2, "o'brien; DROP TABLE x"]])
        const out = yield* run(request([`SELECT id, name FROM ${t} WHERE id >= ${fixture.param(1)} ORDER BY id`], { params: [1] }))
        const set = out.results[0]
        assert.deepStrictEqual(set?.columns, ["id", "name"])
        assert.deepStrictEqual(cells(set?.rows), [[1, "ann"], [2, "o'brien; DROP TABLE x"]])
        assert.isFalse(set?.truncated)
      }), 30_000)

    it.live("maxRows caps the rows and says so; several statements give one result each", () =>
      Effect.gen(function* () {
        const t = yield* seeded([[1, "a"], [2, "b"], [3, "c"]])
        const out = yield* run(request([`SELECT id FROM ${t} ORDER BY id`, `SELECT name FROM ${t} WHERE id = 3`], { maxRows: 2 }))
        assert.deepStrictEqual(out.results.map((r) => [cells(r.rows), r.truncated]), [[[[1], [2]], true], [[["c"]], false]])
      }), 30_000)

    it.live("without write the engine itself refuses a change, and nothing changed", () =>
      Effect.gen(function* () {
        const t = yield* seeded([[1, "a"]])
        for (const sql of [`INSERT INTO ${t} (id, name) VALUES (9, 'z')`, `DELETE FROM ${t}`, `DROP TABLE ${t}`]) {
          const out = yield* Effect.either(run(request([sql])))
          assert.isTrue(Either.isLeft(out) && out.left.kind === "refused", `${sql}: ${JSON.stringify(out)}`)
        }
        assert.deepStrictEqual(cells((yield* run(request([`SELECT id, name FROM ${t}`]))).results[0]?.rows), [[1, "a"]])
      }), 30_000)

    it.live("a database error is `failed` with the database's reason", () =>
      Effect.gen(function* () {
        const out = yield* Effect.either(run(request(["SELECT * FROM contract_no_such_table"])))
        assert.isTrue(Either.isLeft(out) && out.left.kind === "failed", JSON.stringify(out))
        if (Either.isLeft(out)) assert.include(out.left.reason.toLowerCase(), "contract_no_such_table")
      }), 30_000)

    it.live("the statement timeout stops a long read (answers within 10 s)", () =>
      Effect.gen(function* () {
        const out = yield* Effect.either(run(request([fixture.slow], { timeoutMs: 300 })))
        assert.isTrue(Either.isLeft(out) && out.left.kind === "timeout", JSON.stringify(out))
      }), 10_000)
  })
