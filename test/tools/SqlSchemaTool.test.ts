/**
 * sql_schema and sql_connections through the chain on real SQLite, PostgreSQL and MariaDB (issue 24): tables and
 * views, columns with types, nullability, defaults, primary and foreign keys, indexes; one table in detail; the
 * connections listed with engine and mode, passwords masked.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { createRequire } from "node:module"
import * as path from "node:path"
import { Effect, Either } from "effect"
import * as PostgresEngine from "../../src/adapters/sql/PostgresEngine.js"
import { SqlEngine } from "../../src/ports/SqlEngine.js"
import * as Mariadb from "../support/Mariadb.js"
import * as Postgres from "../support/Postgres.js"
import { denial, invoke } from "../support/SqlChain.js"
import { tempDir } from "../support/Workspace.js"

const Database = createRequire(import.meta.url)("better-sqlite3") as new (file: string) => { exec(sql: string): unknown; close(): void }

const ddl = [
  "CREATE TABLE customers (id INTEGER PRIMARY KEY, email VARCHAR(80) NOT NULL, tier VARCHAR(10) DEFAULT 'free')",
  "CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES customers(id), total NUMERIC(10,2))",
  "CREATE INDEX orders_by_customer ON orders (customer_id)",
  "CREATE VIEW big_orders AS SELECT id, total FROM orders WHERE total > 100"
]

const checkSchema = (text: string) => {
  assert.match(text, /customers \(table\)\n {2}id \S.*PRIMARY KEY/)
  assert.match(text, /email (varchar|character varying)\(80\) NOT NULL/i)
  assert.match(text, /tier .*DEFAULT .*free/)
  assert.match(text, /FOREIGN KEY customer_id → customers\(id\)/, text)
  assert.match(text, /INDEX orders_by_customer/)
  assert.match(text, /big_orders \(view\)/)
}

describe("sql_schema", () => {
  it.live("SQLite: the whole schema, one table in detail, an unknown table said so; sql_connections lists", () =>
    Effect.gen(function* () {
      const root = tempDir("minicode-schema-")
      const db = new Database(path.join(root, "app.db"))
      db.exec(ddl.join(";\n"))
      db.close()
      const all = yield* invoke(root, { tool: "sql_schema", args: { connection: "app.db" } }, {})
      checkSchema(denial(all))
      const one = denial(yield* invoke(root, { tool: "sql_schema", args: { connection: "app.db", table: "orders" } }, {}))
      assert.include(one, "orders (table)")
      assert.notInclude(one, "customers (table)")
      assert.include(denial(yield* invoke(root, { tool: "sql_schema", args: { connection: "app.db", table: "x' OR '1'='1" } }, {})), "no table or view named")
      const listed = denial(yield* invoke(root, { tool: "sql_connections", args: {} }, { prod: { url: "postgres://me:s3cret@db/app" }, rw: { sqlite: "/tmp/x.db", allowWrite: true } }))
      assert.include(listed, "prod: postgres postgres://me:***@db/app (read-only)")
      assert.include(listed, "rw: sqlite /tmp/x.db (writes allowed)")
      assert.notInclude(listed, "s3cret")
    }), 60_000)

  describe.runIf(Postgres.hasPostgres)("PostgreSQL", () => {
    let cluster: Postgres.Cluster | undefined
    beforeAll(() => {
      cluster = Postgres.start()
    }, 120_000)
    afterAll(() => cluster?.stop())
    it.live("the schema of a real database", () =>
      Effect.gen(function* () {
        yield* Effect.flatMap(SqlEngine, (e) => e.run({ dialect: "postgres", url: cluster?.url ?? "" }, { statements: ddl, params: [], maxRows: 1, write: true, timeoutMs: 10_000 })).pipe(
          Effect.provide(PostgresEngine.layer),
          Effect.scoped
        )
        const root = tempDir("minicode-schema-")
        const text = denial(yield* invoke(root, { tool: "sql_schema", args: { connection: "pg" } }, { pg: { url: cluster?.url ?? "" } }))
        checkSchema(text)
        assert.include(text, "total numeric(10,2)")
      }), 60_000)
  })

  describe.runIf(Mariadb.hasMariadb)("MariaDB", () => {
    let server: Mariadb.Server | undefined
    beforeAll(() => {
      server = Mariadb.start()
      server.admin(`USE app; ${ddl.join("; ").replace("customer_id INTEGER NOT NULL REFERENCES customers(id)", "customer_id INTEGER NOT NULL, FOREIGN KEY (customer_id) REFERENCES customers(id)")}`)
    }, 120_000)
    afterAll(() => server?.stop())
    it.live("the schema of a real database", () =>
      Effect.gen(function* () {
        const root = tempDir("minicode-schema-")
        const text = denial(yield* invoke(root, { tool: "sql_schema", args: { connection: "my" } }, { my: { url: server?.url ?? "" } }))
        checkSchema(text)
        const one = denial(yield* invoke(root, { tool: "sql_schema", args: { connection: "my", table: "customers" } }, { my: { url: server?.url ?? "" } }))
        assert.notInclude(one, "orders (table)")
      }), 60_000)
    it.live("an engine error is labelled sql_schema, the tool that ran, and never shows the password", () =>
      Effect.gen(function* () {
        const root = tempDir("minicode-schema-")
        const url = (server?.url ?? "").replace(/\/app$/, "/nosuchdb")
        const password = new URL(url).password
        const out = yield* invoke(root, { tool: "sql_schema", args: { connection: "gone" } }, { gone: { url } })
        assert.isTrue(Either.isLeft(out), JSON.stringify(out))
        if (Either.isRight(out)) return
        assert.strictEqual(out.left._tag, "ToolFailed")
        assert.match(out.left.message, /^sql_schema failed: .*nosuchdb/i)
        assert.notInclude(out.left.message, "sql_query")
        assert.notInclude(out.left.message, password)
      }), 60_000)
  })
})
