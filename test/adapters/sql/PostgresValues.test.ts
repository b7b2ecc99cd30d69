/**
 * PostgreSQL results as they are in the database (issue 24), on a real throwaway cluster with the client in
 * Asia/Tokyo: dates as dates, timestamp wall-clock, timestamptz ISO with offset, intervals in SQL form, bigint exact,
 * text[] vs jsonb distinguishable, backslashes kept single, type names, HINT/DETAIL, and a 3M-row result fetched
 * through a cursor only as far as max_rows + 1.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import * as PostgresEngine from "../../../src/adapters/sql/PostgresEngine.js"
import * as SqlTable from "../../../src/domain/sql/SqlTable.js"
import { SqlEngine, type SqlRequest } from "../../../src/ports/SqlEngine.js"
import * as Postgres from "../../support/Postgres.js"

process.env["TZ"] = "Asia/Tokyo"

const request = (statements: ReadonlyArray<string>, over: Partial<SqlRequest> = {}): SqlRequest => ({
  statements,
  params: [],
  maxRows: 200,
  write: false,
  timeoutMs: 10_000,
  ...over
})

describe.runIf(Postgres.hasPostgres)("PostgreSQL values", () => {
  let cluster: Postgres.Cluster | undefined
  beforeAll(() => {
    cluster = Postgres.start()
  }, 120_000)
  afterAll(() => cluster?.stop())
  const run = (req: SqlRequest) =>
    Effect.flatMap(SqlEngine, (engine) => engine.run({ dialect: "postgres", url: cluster?.url ?? "" }, req)).pipe(Effect.provide(PostgresEngine.layer), Effect.scoped)

  it.live("dates, times, intervals, bigint, arrays and jsonb print as the database has them", () =>
    Effect.gen(function* () {
      const out = yield* run(request([
        "SET LOCAL TimeZone = 'UTC'",
        "SELECT DATE '2023-03-01' AS d, TIMESTAMP '2023-03-01 10:00:00' AS ts, TIMESTAMPTZ '2023-03-01 10:00:00+09' AS tz, INTERVAL '1 day 2 hours' AS i, 9007199254740993::int8 AS big, ARRAY['a','b']::text[] AS arr, '[\"a\",\"b\"]'::jsonb AS js, E'a\\\\b' AS bs, 1.50::numeric AS n"
      ], { write: true })) // a read may not SET (the engine refuses it by its shape); this write changes nothing
      const set = out.results[1]
      assert.deepStrictEqual(set?.rows[0], ["2023-03-01", "2023-03-01 10:00:00", "2023-03-01T01:00:00+00:00", "1 day 02:00:00", 9007199254740993n, "{a,b}", ["a", "b"], "a\\b", "1.50"])
      assert.deepStrictEqual(set?.types, ["date", "timestamp without time zone", "timestamp with time zone", "interval", "bigint", "text[]", "jsonb", "text", "numeric"])
      const text = set === undefined ? "" : SqlTable.render(set, 200)
      assert.deepStrictEqual(text.split("\n")[3]?.split("|").map((c) => c.trim()), ["2023-03-01", "2023-03-01 10:00:00", "2023-03-01T01:00:00+00:00", "1 day 02:00:00", "9007199254740993", "{a,b}", "[\"a\",\"b\"]", "a\\b", "1.50"])
      assert.notInclude(text, "Z")
      assert.include(text.split("\n")[1] ?? "", "timestamp with time zone")
    }), 60_000)

  it.live("a user type is named by the connection; HINT and DETAIL reach the caller", () =>
    Effect.gen(function* () {
      yield* run(request(["CREATE TYPE mood AS ENUM ('sad', 'ok')", "CREATE TABLE people (id int PRIMARY KEY, full_name text, m mood)", "INSERT INTO people VALUES (1, 'ann', 'ok')"], { write: true }))
      const typed = yield* run(request(["SELECT m FROM people"]))
      assert.deepStrictEqual(typed.results[0]?.types, ["mood"])
      const hint = yield* Effect.either(run(request(["SELECT fullname FROM people"])))
      assert.isTrue(Either.isLeft(hint) && /HINT: Perhaps you meant to reference the column "people.full_name"/.test(hint.left.reason), JSON.stringify(hint))
      const detail = yield* Effect.either(run(request(["INSERT INTO people VALUES (1, 'dup', 'ok')"], { write: true })))
      assert.isTrue(Either.isLeft(detail) && /DETAIL: Key \(id\)=\(1\) already exists/.test(detail.left.reason), JSON.stringify(detail))
    }), 60_000)

  it.live("3M rows with max_rows 5: five rows, truncated, fetched through a cursor (answers within 10 s)", () =>
    Effect.gen(function* () {
      const out = yield* run(request(["SELECT g, md5(g::text) FROM generate_series(1, 3000000) g", "SELECT 'after'"], { maxRows: 5 }))
      assert.strictEqual(out.results[0]?.rows.length, 5)
      assert.isTrue(out.results[0]?.truncated)
      assert.deepStrictEqual(out.results[1]?.rows, [["after"]])
      const bound = yield* run(request(["SELECT g FROM generate_series(1, $1::int) g"], { params: [3], maxRows: 5 }))
      assert.deepStrictEqual(bound.results[0]?.rows, [[1], [2], [3]])
    }), 10_000)
})
