/** MysqlRoutineRule (issue 43): a stored function's declaration and visible body decide whether a read may call it. */
import { assert, describe, it } from "@effect/vitest"
import { Either, FastCheck } from "effect"
import { calledNames, nestedCalls, refusal } from "../../../src/domain/sql/MysqlRoutineRule.js"

const routine = (dataAccess: string, body: string | null) => ({ name: "app.f", dataAccess, body })

describe("MysqlRoutineRule", () => {
  it("finds the names a text calls, qualified or not, case folded", () => {
    assert.deepStrictEqual(Either.getOrThrow(calledNames("SELECT App.Liar(x), twice(2), `odd name`(1) FROM t WHERE id IN (1)")), [["app", "liar"], ["twice"], ["odd name"], ["in"]])
    assert.isTrue(Either.isLeft(calledNames("SELECT 'unterminated")))
  })

  it("refuses what is declared to modify, and bodies that write whatever they declare", () => {
    assert.match(refusal(routine("MODIFIES SQL DATA", "RETURN 1")) ?? "", /MODIFIES SQL DATA/)
    for (const body of [
      "BEGIN INSERT INTO log VALUES (x); RETURN 1; END", "BEGIN UPDATE t SET a = 1; RETURN 1; END", "BEGIN DELETE FROM t; RETURN 1; END",
      "BEGIN REPLACE INTO t VALUES (1); RETURN 1; END", "BEGIN CALL p(); RETURN 1; END", "BEGIN PREPARE s FROM 'x'; RETURN 1; END",
      "BEGIN SET GLOBAL read_only = 0; RETURN 1; END", "BEGIN SET @@session.sql_log_bin = 0; RETURN 1; END",
      "RETURN LOAD_FILE('/etc/passwd')", "BEGIN SELECT 1 INTO OUTFILE '/tmp/x'; RETURN 1; END", "BEGIN /*! INSERT INTO t VALUES (1) */; RETURN 1; END"
    ]) {
      assert.isDefined(refusal(routine("NO SQL", body)), body)
    }
  })

  it("lets reading bodies run: SELECT … INTO a variable, SET of a local, sleeping (bounded by the time limit)", () => {
    assert.isUndefined(refusal(routine("READS SQL DATA", "BEGIN DECLARE n INT; SELECT COUNT(*) INTO n FROM t; SET n = n + 1; RETURN n; END")))
    assert.isUndefined(refusal(routine("NO SQL", "RETURN x * 2")))
    assert.isUndefined(refusal(routine("NO SQL", "RETURN SLEEP(s)")))
    assert.isUndefined(refusal(routine("CONTAINS SQL", null)), "an invisible body is judged by its declaration")
    assert.deepStrictEqual(nestedCalls(routine("READS SQL DATA", "RETURN other(x) + app.third(1)")), [["other"], ["app", "third"]])
  })

  it.prop("any body holding a data-changing statement is refused, whatever surrounds it and whatever it declares", [
    FastCheck.constantFrom("INSERT INTO t VALUES (1)", "UPDATE t SET a = 1", "DELETE FROM t", "DROP TABLE t", "TRUNCATE t", "CREATE TABLE x (a INT)", "ALTER TABLE t ADD b INT"),
    FastCheck.constantFrom("NO SQL", "CONTAINS SQL", "READS SQL DATA"),
    FastCheck.array(FastCheck.constantFrom("DECLARE n INT;", "SET n = 1;", "SELECT 1 INTO n;", "IF n > 0 THEN SET n = 2; END IF;"), { maxLength: 4 })
  ], ([write, declared, around]) => {
    const body = `BEGIN ${around.join(" ")} ${write}; RETURN 1; END`
    assert.isDefined(refusal(routine(declared, body)), body)
  })
})
