/**
 * The MySQL/MariaDB engine against a real throwaway MariaDB server (Debian's mariadb-server): the SqlEngine contract,
 * the session's READ ONLY surviving DDL's implicit commit, no LOCAL INFILE, sql_safe_updates on writes, the row cap
 * stopping a huge result early, and values as the database has them. Without MariaDB binaries these tests are
 * skipped locally and the CI check below fails loudly.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import * as MysqlEngine from "../../../src/adapters/sql/MysqlEngine.js"
import { SqlEngine, type SqlRequest } from "../../../src/ports/SqlEngine.js"
import { contract, request } from "../../contracts/SqlEngine.contract.js"
import * as Mariadb from "../../support/Mariadb.js"

describe("MariaDB availability", () => {
  it("CI has MariaDB binaries (apt-get install -y mariadb-server)", () => {
    if (process.env["CI"] === "true") assert.isTrue(Mariadb.hasMariadb, "mariadbd missing: the MySQL tests cannot run")
  })
})

describe.runIf(Mariadb.hasMariadb)("mariadb server", () => {
  let server: Mariadb.Server | undefined
  beforeAll(() => {
    server = Mariadb.start()
    server.admin("CREATE TABLE app.people (id INT PRIMARY KEY, name VARCHAR(40), born DATE, seen DATETIME, big BIGINT, price DECIMAL(10,2)); INSERT INTO app.people VALUES (1, 'ann', '2023-03-01', '2023-03-01 10:00:00', 9007199254740993, 12.50), (2, 'a\\\\b', NULL, NULL, NULL, NULL)")
  }, 120_000)
  afterAll(() => server?.stop())

  contract("mariadb", {
    layer: MysqlEngine.layer,
    target: () => ({ dialect: "mysql", url: server?.url ?? "" }),
    param: () => "?",
    slow: "SELECT SLEEP(5)"
  })

  const run = (req: SqlRequest, url = server?.url ?? "") =>
    Effect.flatMap(SqlEngine, (engine) => engine.run({ dialect: "mysql", url }, req)).pipe(Effect.provide(MysqlEngine.layer), Effect.scoped)

  it.live("DDL on a read connection is refused by the session's READ ONLY (an implicit commit does not escape it)", () =>
    Effect.gen(function* () {
      for (const sql of ["DROP TABLE people", "CREATE TABLE made (x INT)", "TRUNCATE people", "RENAME TABLE people TO p2", "CREATE USER x@localhost", "GRANT ALL ON *.* TO minicode@'127.0.0.1'", "UPDATE mysql.user SET Host = 'x'"]) {
        const out = yield* Effect.either(run(request([sql])))
        assert.isTrue(Either.isLeft(out) && (out.left.kind === "refused" || out.left.kind === "failed"), `${sql}: ${JSON.stringify(out)}`)
      }
      assert.strictEqual(server?.admin("SELECT COUNT(*) FROM app.people").trim(), "2")
      assert.strictEqual(server?.admin("SHOW TABLES FROM app LIKE 'made'").trim(), "")
    }), 30_000)

  it.live("a statement that ends the transaction (COMMIT) makes the engine refuse and drop the connection", () =>
    Effect.gen(function* () {
      const out = yield* Effect.either(run(request(["COMMIT", "SELECT 1"])))
      // Refused by its shape before it runs (MysqlReadRule); the transaction check after each statement stays behind it.
      assert.isTrue(Either.isLeft(out) && out.left.rule === "sql.engine.not-a-read", JSON.stringify(out))
    }), 30_000)

  it.live("transaction control inside the read-only wrapping is refused or has no effect: ROLLBACK, SET TRANSACTION, the session's READ ONLY switched off", () =>
    Effect.gen(function* () {
      const attempts: ReadonlyArray<ReadonlyArray<string>> = [
        ["ROLLBACK", "INSERT INTO people (id) VALUES (90)"],
        ["COMMIT AND CHAIN", "INSERT INTO people (id) VALUES (91)"],
        ["SET TRANSACTION READ WRITE", "INSERT INTO people (id) VALUES (92)"],
        ["SET SESSION TRANSACTION READ WRITE", "CREATE TABLE made (x INT)"],
        ["SET SESSION TRANSACTION READ WRITE", "INSERT INTO people (id) VALUES (93)"],
        ["SET SESSION tx_read_only = 0", "CREATE TABLE made (x INT)"],
        ["SET @@session.tx_read_only = OFF", "INSERT INTO people (id) VALUES (94)"],
        ["SET autocommit = 1", "INSERT INTO people (id) VALUES (95)"],
        ["SET SESSION TRANSACTION READ WRITE", "COMMIT", "INSERT INTO people (id) VALUES (96)"],
        ["RELEASE SAVEPOINT x", "INSERT INTO people (id) VALUES (97)"],
        ["SET SESSION TRANSACTION READ WRITE", "CREATE DATABASE made"],
        ["SET SESSION TRANSACTION READ WRITE", "CREATE USER made@localhost"]
      ]
      for (const statements of attempts) {
        const out = yield* Effect.either(run(request(statements)))
        assert.isTrue(Either.isLeft(out), `${statements.join("; ")}: ${JSON.stringify(out)}`)
        // Nothing changed, and the pool's next call is read-only again.
        assert.strictEqual(server?.admin("SELECT COUNT(*) FROM app.people").trim(), "2", statements.join("; "))
        assert.strictEqual(server?.admin("SHOW TABLES FROM app LIKE 'made'").trim(), "", statements.join("; "))
        assert.strictEqual(server?.admin("SELECT (SELECT COUNT(*) FROM information_schema.schemata WHERE schema_name = 'made') + (SELECT COUNT(*) FROM mysql.user WHERE User = 'made')").trim(), "0")
        const after = yield* Effect.either(run(request(["INSERT INTO people (id) VALUES (99)"])))
        assert.isTrue(Either.isLeft(after) && after.left.kind === "refused", `after ${statements.join("; ")}: ${JSON.stringify(after)}`)
      }
      const ended = yield* Effect.either(run(request(["SET SESSION TRANSACTION READ WRITE", "SELECT 1"])))
      assert.isTrue(Either.isLeft(ended) && ended.left.rule === "sql.engine.not-a-read", JSON.stringify(ended))
    }), 60_000)

  it.live("LOAD DATA LOCAL INFILE is refused: the client never offers local files", () =>
    Effect.gen(function* () {
      const out = yield* Effect.either(run(request(["LOAD DATA LOCAL INFILE '/etc/passwd' INTO TABLE people"], { write: true })))
      assert.isTrue(Either.isLeft(out), JSON.stringify(out))
      assert.strictEqual(server?.admin("SELECT COUNT(*) FROM app.people").trim(), "2")
    }), 30_000)

  it.live("reads run with sql_safe_updates; a connection granted writes runs without it (an honest UPDATE … WHERE on a column that is not a key)", () =>
    Effect.gen(function* () {
      const read = yield* run(request(["SELECT @@session.sql_safe_updates"]))
      assert.strictEqual(Number(read.results[0]?.rows[0]?.[0]), 1)
      const out = yield* run(request(["UPDATE people SET name = name WHERE name = 'ann'"], { write: true }))
      assert.strictEqual(out.results[0]?.changes, 1)
      assert.strictEqual(server?.admin("SELECT name FROM app.people WHERE id = 1").trim(), "ann")
    }), 30_000)

  it.live("the reader account's own grants hold too", () =>
    Effect.gen(function* () {
      const out = yield* Effect.either(run(request(["SELECT User, authentication_string FROM mysql.user"]), server?.readerUrl))
      assert.isTrue(Either.isLeft(out) && /denied/i.test(out.left.reason), JSON.stringify(out))
    }), 30_000)

  it.live("values as the database has them: dates as dates, DATETIME wall-clock, BIGINT exact, DECIMAL text, no doubled backslash; types named", () =>
    Effect.gen(function* () {
      const out = yield* run(request(["SELECT id, name, born, seen, big, price FROM people ORDER BY id"]))
      const set = out.results[0]
      assert.deepStrictEqual(set?.types, ["int", "varchar", "date", "datetime", "bigint", "decimal"])
      assert.deepStrictEqual(set?.rows[0], [1, "ann", "2023-03-01", "2023-03-01 10:00:00", 9007199254740993n, "12.50"])
      assert.strictEqual(set?.rows[1]?.[1], "a\\b")
    }), 30_000)

  it.live("a huge result stops at maxRows + 1 rows: truncated, and the connection still answers (answers within 20 s)", () =>
    Effect.gen(function* () {
      const huge = "SELECT a.seq * 1000000 + b.seq FROM seq_0_to_2999 a, seq_0_to_999 b"
      const out = yield* run(request([huge, "SELECT 'next'"], { maxRows: 5, timeoutMs: 60_000 }))
      assert.strictEqual(out.results[0]?.rows.length, 5)
      assert.isTrue(out.results[0]?.truncated)
      assert.deepStrictEqual(out.results[1]?.rows, [["next"]])
    }), 20_000)
})
