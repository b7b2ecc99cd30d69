/**
 * sql_query through the whole chain (Permission → Jail → Guard → Validation → Approval → Journal → Executor) on a
 * real workspace with real SQLite files: honest reads, jailed files, the write steps, approvals and the journal.
 */
import { assert, describe, it } from "@effect/vitest"
import { createRequire } from "node:module"
import * as path from "node:path"
import { Effect, Either, Layer } from "effect"
import * as Approvers from "../../src/adapters/approval/Approvers.js"
import * as MemoryJournal from "../../src/adapters/journal/MemoryJournal.js"
import * as Unavailable from "../../src/adapters/Unavailable.js"
import type { Answer } from "../../src/ports/Approver.js"
import type { Connections } from "../../src/domain/sql/SqlConnection.js"
import { Journal } from "../../src/ports/Journal.js"
import type { ToolFailed } from "../../src/domain/core/Errors.js"
import * as Kernel from "../../src/kernel/Kernel.js"
import * as NodeAdapters from "../../src/app/NodeLayers.js"
import * as Runner from "../../src/kernel/Runner.js"
import { tempDir } from "../support/Workspace.js"
import { nodeAdapters } from "../support/Adapters.js"

interface Db {
  exec(sql: string): unknown
  prepare(sql: string): { all(): Array<Record<string, unknown>> }
  close(): void
}
const Database = createRequire(import.meta.url)("better-sqlite3") as new (file: string) => Db

const workspace = () => {
  const root = tempDir("minicode-sqltool-")
  const db = new Database(path.join(root, "app.db"))
  db.exec("CREATE TABLE users(id INTEGER PRIMARY KEY, name TEXT); INSERT INTO users(name) VALUES ('ann'), ('bob'), ('cy');")
  db.close()
  return root
}
const count = (file: string) => {
  const db = new Database(file)
  const n = Number(db.prepare("SELECT count(*) AS n FROM users").all()[0]?.["n"])
  db.close()
  return n
}

const call = (
  root: string,
  args: Record<string, unknown>,
  options: { sql?: Connections; workMode?: "DISCUSS" | "BUILD"; permissionMode?: "AUTO" | "ASK"; answer?: Answer } = {}
) =>
  Effect.gen(function* () {
    const { journal } = yield* MemoryJournal.make()
    const adapters = nodeAdapters({
      approver: Approvers.constant(options.answer ?? "no"),
      journal: Layer.succeed(Journal, journal),
      extensions: NodeAdapters.extensions({ unrestricted: false, ...(options.sql === undefined ? {} : { sql: options.sql }) }),
      sql: NodeAdapters.sqlGuard(options.sql)
    })
    const session = { workspace: root, workMode: options.workMode, permissionMode: options.permissionMode }
    const outcome = yield* Effect.either(Runner.invoke({ tool: "sql_query", args }).pipe(Effect.provide(Kernel.layer(session, adapters))))
    const records = yield* Effect.orDie(journal.list())
    return { outcome, records }
  })

describe("sql_query through the chain", () => {
  it.live("reads a workspace SQLite file and renders a capped table", () =>
    Effect.gen(function* () {
      const root = workspace()
      const { outcome, records } = yield* call(root, { sql: "SELECT id, name FROM users ORDER BY id", connection: "app.db", max_rows: 2 })
      assert.isTrue(Either.isRight(outcome))
      if (Either.isRight(outcome)) {
        assert.include(outcome.right.text, "1  | ann")
        assert.include(outcome.right.text, "truncated at max_rows=2")
        assert.isTrue(outcome.right.truncated)
      }
      assert.strictEqual(records.length, 0) // reads are not journaled
    }))

  it.live("binds parameters; the guard denies writes and stacked statements; the jail keeps files inside", () =>
    Effect.gen(function* () {
      const root = workspace()
      const bound = yield* call(root, { sql: "SELECT name FROM users WHERE name = ?", connection: "app.db", params: ["ann' OR 1=1 --"] })
      assert.isTrue(Either.isRight(bound.outcome) && bound.outcome.right.text.includes("(0 rows)"))
      const deny = (args: Record<string, unknown>) =>
        Effect.map(call(root, args), ({ outcome }) => (Either.isLeft(outcome) && outcome.left._tag === "ToolDenied" ? `${outcome.left.stage}:${outcome.left.rule}` : "not denied"))
      assert.strictEqual(yield* deny({ sql: "DELETE FROM users", connection: "app.db" }), "guard:sql.write")
      assert.strictEqual(yield* deny({ sql: "SELECT 1; DROP TABLE users", connection: "app.db" }), "guard:sql.stacked-write")
      assert.strictEqual(yield* deny({ sql: "ATTACH '/etc/passwd' AS p", connection: "app.db" }), "guard:sql.function.file")
      assert.strictEqual(yield* deny({ sql: "SELECT 1", connection: "../outside.db" }), "jail:jail.outside-workspace")
      assert.strictEqual(yield* deny({ sql: "SELECT 1", connection: "nope" }), "guard:sql.connection.unknown")
      assert.strictEqual(count(path.join(root, "app.db")), 3)
    }))

  it.live("a write needs write:true, a connection with --allow-write, and the permission (ASK asks); it is journaled", () =>
    Effect.gen(function* () {
      const root = workspace()
      const file = path.join(root, "app.db")
      const insert = { sql: "INSERT INTO users(name) VALUES (?)", params: ["dee"], write: true }
      const bare = yield* call(root, { ...insert, connection: "app.db" }, { workMode: "BUILD" })
      assert.isTrue(Either.isLeft(bare.outcome) && bare.outcome.left._tag === "ToolDenied" && bare.outcome.left.rule === "sql.write.not-allowed")
      const readOnly = yield* call(root, { ...insert, connection: "ro" }, { workMode: "BUILD", sql: { ro: { sqlite: file } } })
      assert.isTrue(Either.isLeft(readOnly.outcome))
      const discuss = yield* call(root, { ...insert, connection: "rw" }, { sql: { rw: { sqlite: file, allowWrite: true } } })
      assert.isTrue(Either.isLeft(discuss.outcome) && discuss.outcome.left._tag === "ToolDenied" && discuss.outcome.left.stage === "permission")
      const declined = yield* call(root, { ...insert, connection: "rw" }, { workMode: "BUILD", permissionMode: "ASK", answer: "no", sql: { rw: { sqlite: file, allowWrite: true } } })
      assert.isTrue(Either.isLeft(declined.outcome))
      assert.strictEqual(count(file), 3)
      const done = yield* call(root, { ...insert, connection: "rw" }, { workMode: "BUILD", permissionMode: "ASK", answer: "yes", sql: { rw: { sqlite: file, allowWrite: true } } })
      assert.isTrue(Either.isRight(done.outcome))
      assert.strictEqual(count(file), 4)
      assert.strictEqual(done.records.length, 1)
      assert.strictEqual(done.records[0]?.tool, "sql_query")
      assert.strictEqual(done.records[0]?.state, "committed")
      assert.strictEqual(done.records[0]?.capability, "write")
    }))

  it.live("PostgreSQL is judged by both guards without a live connection; denied when the parser is missing", () =>
    Effect.gen(function* () {
      const root = workspace()
      const explain = (sql: string, withParser: boolean) => {
        const shipped = NodeAdapters.adapters({ unrestricted: false })
        const adapters: Kernel.Adapters<ToolFailed> = withParser ? shipped : { ...shipped, sql: Unavailable.sql }
        return Runner.explain({ tool: "sql_query", args: { sql } }, Kernel.gatesLayer({ workspace: root, sqlDialect: "postgres" }, adapters))
      }
      assert.strictEqual((yield* explain("SELECT now()", true)).decision, "allow")
      assert.strictEqual((yield* explain("SELECT myschema.f()", true)).rule, "sql.pg.function")
      assert.strictEqual((yield* explain("SELECT 1 +", true)).rule, "sql.pg.syntax")
      assert.strictEqual((yield* explain("SELECT now()", false)).rule, "sql.pg.parser-unavailable")
    }))

  const runaway = "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r"
  const timedOut = (outcome: Either.Either<unknown, { readonly _tag: string; readonly message: string }>) =>
    Either.isLeft(outcome) && outcome.left._tag === "ToolTimeout" ? outcome.left.message : `not a time-out: ${JSON.stringify(outcome)}`

  it.live("a runaway query is stopped at timeout_ms with an error naming the limit and where it came from", () =>
    Effect.gen(function* () {
      const root = workspace()
      const { outcome } = yield* call(root, { sql: runaway, connection: "app.db", timeout_ms: 500 })
      assert.strictEqual(timedOut(outcome), "sql_query stopped: the query ran past its time limit of 500 ms (timeout_ms: set by the call's timeout_ms argument)")
      // The same database still answers afterwards.
      const after = yield* call(root, { sql: "SELECT count(*) AS n FROM users", connection: "app.db" })
      assert.isTrue(Either.isRight(after.outcome) && after.outcome.right.text.includes("3"))
    }), 30_000)

  it.live("a connection's configured time limit applies when the call gives none; timeout_ms overrides it", () =>
    Effect.gen(function* () {
      const root = workspace()
      const sql = { slow: { sqlite: path.join(root, "app.db"), timeoutMs: 400 } }
      const configured = yield* call(root, { sql: runaway, connection: "slow" }, { sql })
      assert.strictEqual(
        timedOut(configured.outcome),
        "sql_query stopped: the query ran past its time limit of 400 ms (timeout_ms: configured for connection \"slow\" (--timeout-ms); a call may pass timeout_ms)"
      )
      const argument = yield* call(root, { sql: runaway, connection: "slow", timeout_ms: 300 }, { sql })
      assert.include(timedOut(argument.outcome), "time limit of 300 ms (timeout_ms: set by the call's timeout_ms argument)")
      const honest = yield* call(root, { sql: "SELECT name FROM users ORDER BY id", connection: "slow" }, { sql })
      assert.isTrue(Either.isRight(honest.outcome) && honest.outcome.right.text.includes("ann"))
    }), 30_000)

  for (const bad of [0, -1, "abc", 1.5, 600_001, null]) {
    it.live(`timeout_ms ${JSON.stringify(bad)} is an argument error, and nothing runs`, () =>
      Effect.gen(function* () {
        const { outcome } = yield* call(workspace(), { sql: "SELECT 1", connection: "app.db", timeout_ms: bad })
        assert.isTrue(Either.isLeft(outcome) && outcome.left._tag === "InvalidArguments", JSON.stringify(outcome))
        if (Either.isLeft(outcome)) assert.include(outcome.left.message, "timeout_ms")
      }))
  }
})
