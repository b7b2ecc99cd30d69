/** SqlTable's cells (issue 43): JSON's null apart from SQL's NULL, and controls a terminal would obey shown escaped. */
import { assert, describe, it } from "@effect/vitest"
import { FastCheck } from "effect"
import { cell, jsonNull, render, structured } from "../../../src/domain/sql/SqlTable.js"

describe("SqlTable cells", () => {
  it("SQL NULL, JSON null and the text 'null' print three ways; structured rows keep JSON null as null", () => {
    assert.deepStrictEqual([cell(null), cell(jsonNull), cell("null"), cell("NULL")], ["NULL", "null", "'null'", "'NULL'"])
    assert.deepStrictEqual(structured([{ columns: ["a", "b"], types: ["jsonb", "jsonb"], rows: [[jsonNull, null]], truncated: false }]).results[0]?.rows, [[null, null]])
  })

  it("escape sequences, C1 and bidi controls are shown as escapes; a row stays one line", () => {
    assert.strictEqual(cell("a\x1b]52;c;SGVsbG8=\x07b\x1b[2Jc\u202ed\x9be\r\nf|g"), "a\\u001b]52;c;SGVsbG8=\\u0007b\\u001b[2Jc\\u202ed\\u009be\\r\\nf\\|g")
    assert.notMatch(render({ columns: ["x\x1b[31m"], rows: [["\x1b[2J"]], truncated: false }, 10), /\x1b/)
  })

  it.prop("no cell holds a control character, whatever the text", [FastCheck.string({ unit: "binary" })], ([text]) => {
    assert.notMatch(cell(text, 20_000), /[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/)
  })
})
