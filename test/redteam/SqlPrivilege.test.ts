/**
 * Privilege escalation and secret reads through sql_query on real servers (issue 24): a write-enabled connection as
 * a superuser (the worst case) still never touches catalogs, roles, ownership or privileges, and no mode reads the
 * server's configuration files or password hashes. Every attack is checked on the server afterwards.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as PostgresEngine from "../../src/adapters/sql/PostgresEngine.js"
import { SqlEngine, type SqlTarget } from "../../src/ports/SqlEngine.js"
import * as Mariadb from "../support/Mariadb.js"
import * as Postgres from "../support/Postgres.js"
import { denial, invoke } from "../support/SqlChain.js"
import { tempDir } from "../support/Workspace.js"

const direct = (target: SqlTarget, sql: string, layer: typeof PostgresEngine.layer) =>
  Effect.flatMap(SqlEngine, (e) => e.run(target, { statements: [sql], params: [], maxRows: 100, write: false, timeoutMs: 10_000 })).pipe(
    Effect.map((r) => r.results[0]?.rows ?? []),
    Effect.provide(layer),
    Effect.scoped
  )

describe.runIf(Postgres.hasPostgres)("PostgreSQL: no escalation with any flag", () => {
  let cluster: Postgres.Cluster | undefined
  beforeAll(() => {
    cluster = Postgres.start()
  }, 120_000)
  afterAll(() => cluster?.stop())
  const target = (): SqlTarget => ({ dialect: "postgres", url: cluster?.url ?? "" })
  const sql = () => ({ rw: { url: cluster?.url ?? "", allowWrite: true }, ro: { url: cluster?.url ?? "" } })

  it.live("writes on a write-enabled superuser connection never change roles, ownership or privileges", () =>
    Effect.gen(function* () {
      const root = tempDir("minicode-sqlpriv-")
      yield* invoke(root, { tool: "sql_query", args: { sql: "CREATE TABLE owned (id int)", connection: "rw", write: true } }, sql())
      const setup = yield* Effect.either(Effect.flatMap(SqlEngine, (e) => e.run(target(), { statements: ["CREATE ROLE app LOGIN NOSUPERUSER"], params: [], maxRows: 1, write: true, timeoutMs: 10_000 })).pipe(Effect.provide(PostgresEngine.layer), Effect.scoped))
      assert.isTrue(setup._tag === "Right", JSON.stringify(setup))
      const attacks = [
        "UPDATE pg_authid SET rolsuper = true WHERE rolname = 'app'",
        "UPDATE pg_catalog.pg_authid SET rolsuper = true WHERE rolname = 'app'",
        "WITH x AS (UPDATE pg_authid SET rolsuper = true WHERE rolname = 'app' RETURNING 1) SELECT * FROM x",
        "ALTER TABLE owned OWNER TO app",
        "ALTER ROLE app SUPERUSER",
        "CREATE ROLE evil SUPERUSER LOGIN",
        "CREATE SCHEMA appschema AUTHORIZATION app",
        "GRANT ALL ON owned TO app",
        "GRANT pg_read_server_files TO app",
        "REVOKE ALL ON owned FROM public",
        "SET ROLE app",
        "SET SESSION AUTHORIZATION app",
        "SELECT set_config('role', 'app', false)",
        "ALTER DEFAULT PRIVILEGES GRANT ALL ON TABLES TO app",
        "REASSIGN OWNED BY minicode TO app",
        "CREATE FUNCTION up() RETURNS void LANGUAGE sql AS $$ UPDATE pg_authid SET rolsuper = true WHERE rolname = 'app' $$",
        "DO $$ BEGIN UPDATE pg_authid SET rolsuper = true WHERE rolname = 'app'; END $$",
        "INSERT INTO pg_catalog.pg_auth_members (roleid, member, grantor) SELECT 10, oid, 10 FROM pg_roles WHERE rolname = 'app'",
        "DELETE FROM pg_class WHERE relname = 'owned'",
        "CREATE POLICY p ON owned USING (true)",
        "ALTER TABLE owned ENABLE ROW LEVEL SECURITY"
      ]
      for (const attack of attacks) {
        const out = yield* invoke(root, { tool: "sql_query", args: { sql: attack, connection: "rw", write: true } }, sql())
        assert.match(denial(out), /^guard:sql\.(privilege|catalog\.|pg\.|function\.)/, attack)
      }
      const facts = yield* direct(target(), "SELECT r.rolsuper::text, pg_get_userbyid(c.relowner), (SELECT count(*)::int FROM pg_namespace WHERE nspname = 'appschema'), (SELECT count(*)::int FROM pg_roles WHERE rolname = 'evil'), c.relacl::text, c.relrowsecurity::text FROM pg_roles r, pg_class c WHERE r.rolname = 'app' AND c.relname = 'owned'", PostgresEngine.layer)
      assert.deepStrictEqual(facts, [["false", "minicode", 0, 0, null, "false"]])
    }), 120_000)

  it.live("no mode reads configuration files, password hashes or user mappings", () =>
    Effect.gen(function* () {
      const root = tempDir("minicode-sqlpriv-")
      const reads = [
        "SELECT * FROM pg_file_settings", "SELECT * FROM pg_hba_file_rules", "SELECT * FROM pg_ident_file_mappings",
        "SELECT rolname, rolpassword FROM pg_authid", "SELECT passwd FROM pg_shadow", "SELECT * FROM pg_user_mappings",
        "SELECT * FROM pg_catalog.pg_authid", "TABLE pg_shadow", "SELECT (SELECT rolpassword FROM \"pg_authid\" LIMIT 1)"
      ]
      for (const read of reads) {
        for (const [connection, write] of [["ro", false], ["rw", true]] as const) {
          const out = yield* invoke(root, { tool: "sql_query", args: { sql: read, connection, ...(write ? { write } : {}) } }, sql())
          assert.match(denial(out), /^guard:sql\.catalog\.secret/, `${read} (${connection})`)
        }
      }
      const honest = yield* invoke(root, { tool: "sql_query", args: { sql: "SELECT rolname FROM pg_roles WHERE rolname = 'minicode'", connection: "ro" } }, sql())
      assert.match(denial(honest), /allowed:.*minicode/s)
    }), 120_000)
})

describe.runIf(Mariadb.hasMariadb)("MariaDB: no escalation with any flag", () => {
  let server: Mariadb.Server | undefined
  beforeAll(() => {
    server = Mariadb.start()
  }, 120_000)
  afterAll(() => server?.stop())
  const sql = () => ({ rw: { url: server?.rootUrl ?? "", allowWrite: true }, ro: { url: server?.rootUrl ?? "" } })

  it.live("a write-enabled root connection never changes accounts or grants; no mode reads mysql.user or mysql.global_priv", () =>
    Effect.gen(function* () {
      const root = tempDir("minicode-sqlpriv-")
      const before = server?.admin("SELECT COUNT(*), SUM(Super_priv = 'Y') FROM mysql.user; SHOW GRANTS FOR 'reader'@'127.0.0.1'")
      const attacks = [
        "UPDATE mysql.user SET Super_priv = 'Y' WHERE User = 'reader'",
        "UPDATE mysql.global_priv SET Priv = '{}' WHERE User = 'reader'",
        "INSERT INTO mysql.global_priv VALUES ('%', 'evil', '{}')",
        "USE mysql",
        "GRANT ALL ON *.* TO 'reader'@'127.0.0.1'",
        "REVOKE SELECT ON app.* FROM 'reader'@'127.0.0.1'",
        "CREATE USER 'evil'@'%' IDENTIFIED BY 'x'",
        "ALTER USER 'reader'@'127.0.0.1' IDENTIFIED BY 'x'",
        "RENAME USER 'reader'@'127.0.0.1' TO 'r2'@'127.0.0.1'",
        "DROP USER 'reader'@'127.0.0.1'",
        "SET PASSWORD FOR 'reader'@'127.0.0.1' = PASSWORD('x')",
        "CREATE ROLE boss",
        "SET DEFAULT ROLE boss FOR 'reader'@'127.0.0.1'"
      ]
      for (const attack of attacks) {
        const out = yield* invoke(root, { tool: "sql_query", args: { sql: attack, connection: "rw", write: true } }, sql())
        assert.match(denial(out), /^guard:sql\.(privilege|catalog\.)/, attack)
      }
      for (const read of ["SELECT User, authentication_string FROM mysql.user", "SELECT * FROM mysql.global_priv", "SELECT * FROM `mysql`.`user`"]) {
        for (const connection of ["ro", "rw"]) {
          const out = yield* invoke(root, { tool: "sql_query", args: { sql: read, connection } }, sql())
          assert.match(denial(out), /^guard:sql\.catalog\.secret/, `${read} (${connection})`)
        }
      }
      assert.strictEqual(server?.admin("SELECT COUNT(*), SUM(Super_priv = 'Y') FROM mysql.user; SHOW GRANTS FOR 'reader'@'127.0.0.1'"), before)
      const honest = yield* invoke(root, { tool: "sql_query", args: { sql: "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = 'mysql'", connection: "ro" } }, sql())
      assert.match(denial(honest), /^allowed:/)
    }), 120_000)
})
