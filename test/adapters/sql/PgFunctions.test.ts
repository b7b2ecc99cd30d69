/**
 * PostgreSQL functions decided by pg_proc on the connection (issue 24), through the whole chain on a real cluster:
 * honest calls the static allowlist refused now run; user VOLATILE and SECURITY DEFINER functions, a STABLE one
 * whose body reads files, and the file/program/network/large-object families stay refused. Without a connection
 * (`policy explain`) the static allowlist decides.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as PostgresEngine from "../../../src/adapters/sql/PostgresEngine.js"
import { SqlEngine } from "../../../src/ports/SqlEngine.js"
import * as Postgres from "../../support/Postgres.js"
import { denial, invoke } from "../../support/SqlChain.js"
import { tempDir } from "../../support/Workspace.js"

describe.runIf(Postgres.hasPostgres)("PostgreSQL functions by pg_proc", () => {
  let cluster: Postgres.Cluster | undefined
  beforeAll(() => {
    cluster = Postgres.start()
  }, 120_000)
  afterAll(() => cluster?.stop())
  const sql = () => ({ pg: { url: cluster?.url ?? "" } })
  const query = (root: string, text: string) => invoke(root, { tool: "sql_query", args: { sql: text, connection: "pg" } }, sql())

  it.live("honest functions run; volatile, security-definer and reaching ones are refused", () =>
    Effect.gen(function* () {
      yield* Effect.flatMap(SqlEngine, (e) => e.run({ dialect: "postgres", url: cluster?.url ?? "" }, {
        statements: [
          "CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')",
          "CREATE TABLE parts (id int) PARTITION BY RANGE (id)",
          "CREATE FUNCTION twice(x int) RETURNS int LANGUAGE sql STABLE AS 'SELECT x * 2'",
          "CREATE FUNCTION bump() RETURNS int LANGUAGE sql VOLATILE AS 'SELECT 1'",
          "CREATE FUNCTION owner_only() RETURNS int LANGUAGE sql STABLE SECURITY DEFINER AS 'SELECT 1'",
          "CREATE FUNCTION sneaky() RETURNS text LANGUAGE sql STABLE AS $$ SELECT pg_read_file('/etc/passwd') $$"
        ],
        params: [], maxRows: 1, write: true, timeoutMs: 10_000
      })).pipe(Effect.provide(PostgresEngine.layer), Effect.scoped)
      const root = tempDir("minicode-pgfn-")
      for (const honest of [
        "SELECT enum_range(NULL::mood)", "SELECT enum_first(NULL::mood)", "SELECT date('2023-03-01')", "SELECT text(42)",
        "SELECT float4(1.5)", "SELECT pg_blocking_pids(pg_backend_pid())", "SELECT * FROM pg_partition_tree('parts')",
        "SELECT * FROM aclexplode(acldefault('r', 10))", "SELECT trim_array(ARRAY[1,2,3], 1)", "SELECT bit_count(B'1011')",
        "SELECT twice(21)", "SELECT public.twice(2)"
      ]) {
        assert.match(denial(yield* query(root, honest)), /^allowed:/, honest)
      }
      assert.match(denial(yield* query(root, "SELECT twice(21)")), /42/)
      for (const [risky, rule] of [
        ["SELECT bump()", /^guard:sql\.pg\.function/],
        ["SELECT owner_only()", /^guard:sql\.pg\.function/],
        ["SELECT sneaky()", /^guard:sql\.(pg\.function|function\.file)/],
        ["SELECT pg_read_file('/etc/passwd')", /^guard:sql\.function\.file/],
        ["SELECT lo_import('/etc/passwd')", /^guard:sql\.function\.file/],
        ["SELECT dblink('host=x', 'SELECT 1')", /^guard:sql\.function\.network/],
        ["SELECT pg_catalog.pg_ls_dir('.')", /^guard:sql\.function\.file/],
        ["SELECT random_uuid_v()", /^(guard:sql\.pg\.function|ToolFailed)/]
      ] as const) {
        assert.match(denial(yield* query(root, risky)), rule, risky)
      }
    }), 120_000)
})
