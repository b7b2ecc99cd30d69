import { assert, describe, it } from "@effect/vitest"
import { FastCheck } from "effect"
import * as MysqlReadRule from "../../../src/domain/sql/MysqlReadRule.js"

describe("MysqlReadRule (the MySQL/MariaDB engine's own read rule)", () => {
  it("reading statements pass", () => {
    for (const sql of [
      "SELECT 1", "select * from t where a = 'START TRANSACTION'", "WITH x AS (SELECT 1) SELECT * FROM x", "SHOW TABLES", "DESC t",
      "DESCRIBE t", "EXPLAIN SELECT 1", "CHECKSUM TABLE t", "(SELECT 1) UNION (SELECT 2)", "/* c */ SELECT 1", "-- c\nSELECT 1", "VALUES (1)",
      "TABLE t", "HELP 'select'", "SELECT 1 INTO @v", "SELECT 'INTO OUTFILE'"
    ]) assert.isUndefined(MysqlReadRule.refusal(sql), sql)
  })
  it("everything that is not a read, and SELECT … INTO OUTFILE/DUMPFILE, is refused", () => {
    for (const sql of [
      "START TRANSACTION READ WRITE", "BEGIN", "COMMIT", "ROLLBACK", "CALL p()", "PREPARE s FROM 'x'", "EXECUTE s", "EXECUTE IMMEDIATE 'x'",
      "SET SESSION TRANSACTION READ WRITE", "/*! START TRANSACTION */", "/*!100000 COMMIT */", "XA START 'x'", "LOCK TABLES t WRITE", "DO f()",
      "UPDATE t SET a = 1", "HANDLER t OPEN", "SELECT 1 INTO OUTFILE '/tmp/x'", "SELECT 1 INTO DUMPFILE '/tmp/x'",
      "SELECT 'a\\' INTO OUTFILE '/tmp/x' -- '", "", ";", "SELECT 'unterminated"
    ]) assert.isString(MysqlReadRule.refusal(sql), sql)
  })
  it("a statement whose first word is not a reading keyword is always refused, whatever follows", () => {
    const word = FastCheck.stringMatching(/^[A-Za-z_]{1,12}$/).filter((w) => !["SELECT", "WITH", "VALUES", "TABLE", "SHOW", "DESCRIBE", "DESC", "EXPLAIN", "CHECKSUM", "HELP"].includes(w.toUpperCase()))
    FastCheck.assert(FastCheck.property(word, FastCheck.string(), (head, rest) => MysqlReadRule.refusal(`${head} ${rest}`) !== undefined))
  })
})
