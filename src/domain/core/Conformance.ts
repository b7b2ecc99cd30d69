/**
 * Policy conformance: users write expected decisions as JSON lines and run them in CI. Parsing a case and
 * reporting results are pure; deciding a case is `policy explain` (nothing executes).
 */
import { Either, ParseResult, Schema } from "effect"
import { Verdict } from "./Decision.js"
import { AccessPolicy, PermissionMode, WorkMode } from "./Modes.js"

const caseless = <A extends string>(upper: boolean, to: Schema.Schema<A>) =>
  Schema.compose(upper ? Schema.Uppercase : Schema.Lowercase, to, { strict: false })

export const Case = Schema.Struct({
  name: Schema.optional(Schema.String),
  tool: Schema.String,
  args: Schema.optionalWith(Schema.Unknown, { default: () => ({}) }),
  workMode: Schema.optional(caseless(true, WorkMode)),
  permissionMode: Schema.optional(caseless(true, PermissionMode)),
  policy: Schema.optional(caseless(false, AccessPolicy)),
  allowlist: Schema.optional(Schema.Array(Schema.Unknown)),
  dialect: Schema.optional(Schema.Literal("sqlite", "postgres", "postgresql", "mysql")),
  expect: caseless(false, Verdict)
})
export type Case = typeof Case.Type

export interface Result {
  readonly name: string
  readonly tool: string
  readonly expect: string
  readonly got: string
  readonly stage: string
  readonly rule: string
  readonly reason: string
  readonly pass: boolean
}

export type Line = { readonly _tag: "Case"; readonly line: number; readonly case: Case } | { readonly _tag: "Malformed"; readonly line: number; readonly result: Result }

const malformed = (line: number, name: string, tool: string, expect: string, reason: string): Line => ({
  _tag: "Malformed",
  line,
  result: { name, tool, expect, got: "error", stage: "case", rule: "case.malformed", reason, pass: false }
})

const field = (json: unknown, key: string): string => {
  if (typeof json !== "object" || json === null || !(key in json)) return ""
  const value: unknown = Reflect.get(json, key)
  return typeof value === "string" ? value : ""
}

/** Parses a JSONL document into cases; blank lines and `#` comments are skipped, malformed lines become failures. */
export const parse = (text: string): ReadonlyArray<Line> =>
  text.split(/\r?\n/).flatMap((raw, i): ReadonlyArray<Line> => {
    const lineNo = i + 1
    const trimmed = raw.trim()
    if (trimmed === "" || trimmed.startsWith("#") || trimmed.startsWith("//")) return []
    let json: unknown
    try {
      json = JSON.parse(trimmed)
    } catch (cause) {
      return [malformed(lineNo, `line ${lineNo}`, "", "", `line ${lineNo} is not valid JSON: ${cause instanceof Error ? cause.message : String(cause)}`)]
    }
    const name = field(json, "name") || `line ${lineNo}`
    return Either.match(Schema.decodeUnknownEither(Case)(json), {
      onLeft: (error) => [
        malformed(lineNo, name, field(json, "tool"), field(json, "expect"), `line ${lineNo}: ${ParseResult.TreeFormatter.formatErrorSync(error).replace(/\s+/g, " ")}`)
      ],
      onRight: (c) => [{ _tag: "Case", line: lineNo, case: c }]
    })
  })

export const summary = (results: ReadonlyArray<Result>): string => {
  const passed = results.filter((r) => r.pass).length
  return `${passed} passed, ${results.length - passed} failed`
}

const xml = (s: string) =>
  s.replace(/[<>&"']/g, (c) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;", '"': "&quot;", "'": "&apos;" })[c] ?? c)

export const junit = (results: ReadonlyArray<Result>, suite: string): string => {
  const failures = results.filter((r) => !r.pass).length
  const cases = results.map((r) => {
    const head = `  <testcase classname="${xml(suite)}" name="${xml(r.name)}">`
    if (r.pass) return `${head}</testcase>`
    return `${head}\n    <failure message="${xml(`expected ${r.expect}, got ${r.got}`)}">${xml(`${r.stage} ${r.rule}: ${r.reason}`)}</failure>\n  </testcase>`
  })
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuite name="${xml(suite)}" tests="${results.length}" failures="${failures}">\n${cases.join("\n")}\n</testsuite>\n`
}
