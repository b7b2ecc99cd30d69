/**
 * Layer 2 alone on MariaDB: write and escape attempts sent straight to the engine as root (every privilege, FILE),
 * no guard before it. Each is refused by the engine, and afterwards the table, the log table and the server's
 * files are as they were. Before, `START TRANSACTION READ WRITE; UPDATE …; COMMIT` committed (the session's READ
 * ONLY does not hold inside a READ WRITE transaction), and so did the same inside a procedure, a PREPAREd text or an
 * executable comment; SELECT … INTO OUTFILE wrote a server file from the read-only transaction.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import * as MysqlEngine from "../../../src/adapters/sql/MysqlEngine.js"
import { SqlEngine, type SqlRequest } from "../../../src/ports/SqlEngine.js"
import * as Mariadb from "../../support/Mariadb.js"
import { request } from "../../contracts/SqlEngine.contract.js"

describe.runIf(Mariadb.hasMariadb)("MysqlEngine alone (no guard), as root", () => {
  let server: Mariadb.Server | undefined
  const out = fs.mkdtempSync(path.join(os.tmpdir(), "minicode-my-out-"))
  beforeAll(() => {
    fs.chmodSync(out, 0o777)
    server = Mariadb.start()
    server.admin([
      "CREATE TABLE app.items (id INT PRIMARY KEY, label VARCHAR(20), status VARCHAR(10))",
      "INSERT INTO app.items VALUES (1, 'one', 'old'), (2, 'two', 'new')",
      "CREATE TABLE app.log (msg VARCHAR(20))"
    ].join("; "))
    // The client splits on ';' unless told another delimiter.
    server.admin([
      "DELIMITER //",
      "CREATE PROCEDURE app.evil() BEGIN START TRANSACTION READ WRITE; UPDATE app.items SET label = 'proc' WHERE id = 1; COMMIT; END //",
      "CREATE FUNCTION app.log_action(m VARCHAR(20)) RETURNS INT MODIFIES SQL DATA BEGIN INSERT INTO app.log VALUES (m); RETURN 1; END //",
      "CREATE FUNCTION app.quiet(m VARCHAR(20)) RETURNS INT NO SQL BEGIN INSERT INTO app.log VALUES (m); RETURN 1; END //"
    ].join("\n"))
  }, 120_000)
  afterAll(() => {
    server?.stop()
    fs.rmSync(out, { recursive: true, force: true })
  })
  const run = (req: SqlRequest) =>
    Effect.flatMap(SqlEngine, (engine) => engine.run({ dialect: "mysql", url: server?.rootUrl ?? "" }, req)).pipe(Effect.provide(MysqlEngine.layer), Effect.scoped)
  const state = () => server?.admin("SELECT GROUP_CONCAT(label ORDER BY id), (SELECT COUNT(*) FROM app.log) FROM app.items").trim()
  const before = "one,two\t0"

  const update = "UPDATE items SET label = 'x' WHERE id = 1"
  const attacks: ReadonlyArray<ReadonlyArray<string>> = [
    ["START TRANSACTION READ WRITE", update, "COMMIT"],
    ["START TRANSACTION", update, "COMMIT"],
    ["BEGIN", update, "COMMIT"],
    ["COMMIT", update],
    ["/*! START TRANSACTION READ WRITE */", update, "COMMIT"],
    ["/*!100000 START TRANSACTION READ WRITE */", update, "COMMIT"],
    ["CALL evil()"],
    ["PREPARE s FROM 'START TRANSACTION READ WRITE'", "EXECUTE s", update, "COMMIT"],
    ["EXECUTE IMMEDIATE 'START TRANSACTION READ WRITE'", update, "COMMIT"],
    ["SET SESSION TRANSACTION READ WRITE", "START TRANSACTION", update, "COMMIT"],
    ["SET @@session.tx_read_only = 0", update],
    ["XA START 'x'", update, "XA END 'x'", "XA COMMIT 'x' ONE PHASE"],
    ["LOCK TABLES items WRITE", update],
    ["SELECT log_action('x')"],
    ["SELECT quiet('x')"],
    ["DO log_action('x')"],
    [`SELECT 'leak' INTO OUTFILE '${out}/o.txt'`],
    [`SELECT 'leak' INTO DUMPFILE '${out}/d.txt'`],
    [`SELECT 'a\\' INTO OUTFILE '${out}/e.txt' -- '`],
    [update],
    ["DELETE FROM items"],
    ["HANDLER items OPEN"]
  ]

  for (const attack of attacks) {
    it.live(`refuses ${JSON.stringify(attack).slice(0, 110)}`, () =>
      Effect.gen(function* () {
        const outcome = yield* Effect.either(run(request(attack)))
        assert.isTrue(Either.isLeft(outcome), `ran: ${JSON.stringify(attack)}`)
        assert.strictEqual(state(), before, `left a trace: ${JSON.stringify(attack)}`)
        assert.deepStrictEqual(fs.readdirSync(out), [])
      }), 30_000)
  }

  it.live("honest reads still answer: SELECT, WITH, SHOW, DESCRIBE, EXPLAIN, CHECKSUM TABLE, a parenthesised SELECT", () =>
    Effect.gen(function* () {
      const r = yield* run(request([
        "SELECT label FROM items WHERE id = 2",
        "WITH x AS (SELECT 1 AS n) SELECT n FROM x",
        "SHOW TABLES",
        "DESCRIBE items",
        "EXPLAIN SELECT * FROM items",
        "CHECKSUM TABLE items",
        "(SELECT 7)",
        "/* a comment */ SELECT 'it''s INTO OUTFILE text'"
      ]))
      assert.deepStrictEqual(r.results[0]?.rows, [["two"]])
      assert.strictEqual(r.results.length, 8)
      assert.deepStrictEqual(r.results[7]?.rows, [["it's INTO OUTFILE text"]])
    }), 30_000)

  it.live("a connection granted writes runs DELETE … WHERE on a column that is not a key (sql_safe_updates is for reads)", () =>
    Effect.gen(function* () {
      server?.admin("INSERT INTO app.items VALUES (3, 'three', 'gone')")
      const r = yield* run(request(["DELETE FROM items WHERE status = 'gone'"], { write: true }))
      assert.strictEqual(r.results[0]?.changes, 1)
      assert.strictEqual(state(), before)
    }), 30_000)
})
