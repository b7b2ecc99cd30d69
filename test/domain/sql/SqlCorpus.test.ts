import { assert, describe, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { Schema } from "effect"
import { judge } from "../../../src/domain/sql/SqlGuard.js"

const Case = Schema.Struct({
  dialect: Schema.Literal("sqlite", "postgres", "mysql"),
  sql: Schema.String
})
const decodeLine = Schema.decodeUnknownSync(Schema.parseJson(Case))

const load = (name: string): ReadonlyArray<typeof Case.Type> =>
  readFileSync(new URL(`../../corpus/${name}`, import.meta.url), "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => decodeLine(line))

const honest = load("sql-honest.jsonl")
const attacks = load("sql-attacks.jsonl")

describe("SqlGuard corpus", () => {
  it("has at least 80 cases per file, covering every dialect", () => {
    for (const corpus of [honest, attacks]) {
      assert.isAtLeast(corpus.length, 80)
      for (const dialect of ["sqlite", "postgres", "mysql"]) {
        assert.isAtLeast(corpus.filter((c) => c.dialect === dialect).length, 25, dialect)
      }
    }
  })

  it.each(honest)("allows honest $dialect: $sql", ({ dialect, sql }) => {
    const verdict = judge(sql, { dialect })
    assert.strictEqual(verdict._tag, "Allow", JSON.stringify(verdict))
  })

  it.each(attacks)("denies attack $dialect: $sql", ({ dialect, sql }) => {
    const verdict = judge(sql, { dialect })
    assert.strictEqual(verdict._tag, "Deny", JSON.stringify(verdict))
  })
})
