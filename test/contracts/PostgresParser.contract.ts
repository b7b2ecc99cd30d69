/**
 * One suite for every PostgresParser adapter: what the SQL guard relies on (fail closed). A parser that parses
 * gives the tree of every statement of the text, in order; text PostgreSQL rejects is a typed PostgresSyntaxError
 * naming why; odd input (a NUL byte, unterminated quotes, deep nesting) is a typed error or a tree, never a defect.
 * A build without the parser fails every parse with the typed PostgresParserUnavailable (the guard then denies).
 */
import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Exit } from "effect"
import type { PostgresParserShape } from "../../src/ports/PostgresParser.js"

export interface Fixture {
  readonly make: Effect.Effect<PostgresParserShape>
  /** False for the explicit "not installed" adapter. */
  readonly parses: boolean
}

const statements = (tree: unknown): ReadonlyArray<string> => {
  const stmts = (tree as { stmts?: ReadonlyArray<{ stmt?: Record<string, unknown> }> }).stmts ?? []
  return stmts.map((s) => Object.keys(s.stmt ?? {})[0] ?? "?")
}

const failsWith = (exit: Exit.Exit<unknown, { readonly _tag: string; readonly message: string }>, tag: string, what: string) => {
  assert.isTrue(Exit.isFailure(exit), `${what}: ${String(exit)}`)
  if (Exit.isFailure(exit)) {
    assert.isFalse(Cause.isDie(exit.cause), Cause.pretty(exit.cause))
    const error = Cause.failureOption(exit.cause)
    assert.strictEqual(error._tag === "Some" ? error.value._tag : "none", tag, what)
    if (error._tag === "Some") assert.isAbove(error.value.message.length, 0)
  }
}

export const contract = (name: string, fixture: Fixture) =>
  describe(`PostgresParser contract: ${name}`, () => {
    it.effect(fixture.parses ? "every statement of the text comes as a tree, in order" : "every parse is refused as unavailable", () =>
      Effect.gen(function* () {
        const parser = yield* fixture.make
        const text = "SELECT 1; INSERT INTO t (a) VALUES ('x;y'); DROP TABLE t; CREATE FUNCTION f() RETURNS int AS $$ SELECT 1; $$ LANGUAGE sql"
        if (!fixture.parses) return failsWith(yield* Effect.exit(parser.parse(text)), "PostgresParserUnavailable", text)
        assert.deepStrictEqual(statements(yield* parser.parse(text)), ["SelectStmt", "InsertStmt", "DropStmt", "CreateFunctionStmt"])
        const empty = yield* Effect.exit(parser.parse(""))
        if (Exit.isFailure(empty)) failsWith(empty, "PostgresSyntaxError", "empty text")
        else assert.deepStrictEqual(statements(empty.value), [])
      }))

    it.effect("text PostgreSQL rejects is a typed error, never a defect, whatever it holds", () =>
      Effect.gen(function* () {
        const parser = yield* fixture.make
        const tag = fixture.parses ? "PostgresSyntaxError" : "PostgresParserUnavailable"
        for (const bad of ["SELEC 1", "SELECT 'unterminated", "SELECT 1 FROM", "DROP TABLE", "SELECT $$ open"]) {
          failsWith(yield* Effect.exit(parser.parse(bad)), tag, JSON.stringify(bad))
        }
        for (const odd of [`SELECT ${"(".repeat(5000)}1${")".repeat(5000)}`, "SELECT 'naïve ☃'", "SELECT 1 -- comment\n", "\u0000SELECT 1", "SELECT 1\u0000; DROP TABLE t"]) {
          const exit = yield* Effect.exit(parser.parse(odd))
          if (Exit.isFailure(exit)) assert.isFalse(Cause.isDie(exit.cause), Cause.pretty(exit.cause))
        }
      }))

    it.effect("parses are independent: many at once give each its own tree", () =>
      Effect.gen(function* () {
        const parser = yield* fixture.make
        const texts = Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? `SELECT ${i}` : `DELETE FROM t${i}`))
        const results = yield* Effect.all(texts.map((t) => Effect.either(parser.parse(t))), { concurrency: "unbounded" })
        results.forEach((r, i) => {
          if (!fixture.parses) return assert.isTrue(r._tag === "Left")
          assert.isTrue(r._tag === "Right")
          if (r._tag === "Right") assert.deepStrictEqual(statements(r.right), [i % 2 === 0 ? "SelectStmt" : "DeleteStmt"])
        })
      }))
  })
