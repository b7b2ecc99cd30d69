/**
 * Every tool's input schema as `tools/list` advertises it is plain, self-contained JSON Schema: it compiles under
 * Ajv in strict mode for draft-07 and 2020-12, has no `$ref`/`$defs` and no generated titles, says "integer" for
 * integers, and accepts the arguments its tool accepts (and refuses what the tool refuses).
 */
import { Ajv } from "ajv"
import { Ajv2020 } from "ajv/dist/2020.js"
import { Either } from "effect"
import { describe, expect, it } from "vitest"
import * as Tools from "../../src/domain/core/Tools.js"
import * as OutputSchemas from "../../src/domain/mcp/OutputSchemas.js"
import * as PlainSchema from "../../src/domain/mcp/PlainSchema.js"
import { inputSchemaOf } from "../../src/serve/ToolList.js"

const keysDeep = (u: unknown, out: Array<string> = []): Array<string> => {
  if (Array.isArray(u)) for (const v of u) keysDeep(v, out)
  else if (typeof u === "object" && u !== null) {
    for (const [k, v] of Object.entries(u)) {
      out.push(k)
      keysDeep(v, out)
    }
  }
  return out
}

const valid: Partial<Record<Tools.ToolName, ReadonlyArray<unknown>>> = {
  read_file: [{ path: "a.txt" }, { path: "a.txt", offset: 2, limit: 10 }],
  bash: [{ command: "ls", timeout_ms: 1000, network: false }],
  sql_query: [{ sql: "select ?", params: [1, "a", null, true], max_rows: 5 }],
  mcp_call: [{ server: "s", tool: "t", arguments: { any: [1, { x: 2 }] } }],
  git_status: [{}]
}
const invalid: Partial<Record<Tools.ToolName, ReadonlyArray<unknown>>> = {
  read_file: [{}, { path: "a", offset: 0 }, { path: "a", offset: 1.5 }, { path: "a", extra: 1 }],
  bash: [{ command: "ls", timeout_ms: 0 }]
}

describe("tool input schemas", () => {
  for (const [draft, make] of [
    ["draft-07", () => new Ajv({ strict: true, allErrors: true })],
    ["2020-12", () => new Ajv2020({ strict: true, allErrors: true })]
  ] as const) {
    it(`every tool's schema compiles under Ajv strict (${draft}) and agrees with the tool's own decoding`, () => {
      for (const name of Tools.toolNames) {
        const ajv = make()
        const schema = inputSchemaOf(name)
        const validate = ajv.compile(schema)
        for (const args of valid[name] ?? []) {
          expect(validate(args), `${name} ${JSON.stringify(args)} ${ajv.errorsText(validate.errors)}`).toBe(true)
          expect(Either.isRight(Tools.decode(name, args)), `${name} decodes ${JSON.stringify(args)}`).toBe(true)
        }
        for (const args of invalid[name] ?? []) {
          expect(validate(args), `${name} ${JSON.stringify(args)}`).toBe(false)
          expect(Either.isLeft(Tools.decode(name, args)), `${name} refuses ${JSON.stringify(args)}`).toBe(true)
        }
      }
    })
  }

  it("no $ref, $defs, $id or titles anywhere; integers say integer; every object lists its properties", () => {
    for (const name of Tools.toolNames) {
      const schema = inputSchemaOf(name)
      const keys = keysDeep(schema)
      for (const banned of ["$ref", "$defs", "$id", "$schema", "title"]) expect(keys, `${name} has ${banned}`).not.toContain(banned)
      expect(schema).toHaveProperty("properties")
    }
    expect(inputSchemaOf("read_file")["properties"]).toMatchObject({ offset: { type: "integer", minimum: 1, description: "First line to return (1-based)" } })
    expect(inputSchemaOf("bash")["properties"]).toMatchObject({ timeout_ms: { type: "integer", minimum: 1, maximum: 3_600_000 } })
  })
})

describe("output schemas", () => {
  it("compile under Ajv strict (draft-07 and 2020-12) and the data the tools give matches them", () => {
    for (const name of Tools.toolNames) {
      const schema = OutputSchemas.outputSchemaOf(name)
      if (schema === undefined) continue
      new Ajv({ strict: true }).compile(schema)
      new Ajv2020({ strict: true }).compile(schema)
    }
    const listDir = new Ajv({ strict: true }).compile(OutputSchemas.outputSchemaOf("list_dir") ?? {})
    expect(listDir(OutputSchemas.listDirContent([{ name: "src", kind: "directory" }, { name: "a.txt", kind: "file" }], false))).toBe(true)
    const status = OutputSchemas.gitStatusContent("## main...origin/main [ahead 1]\n M a.txt\n?? new file.txt\nR  old -> new\n[minicode: x]")
    expect(status).toEqual({
      branch: "main...origin/main [ahead 1]",
      entries: [
        { status: " M", path: "a.txt" },
        { status: "??", path: "new file.txt" },
        { status: "R ", path: "old -> new" }
      ],
      truncated: false
    })
    expect(new Ajv({ strict: true }).compile(OutputSchemas.outputSchemaOf("git_status") ?? {})(status)).toBe(true)
  })
})

describe("PlainSchema.coerce", () => {
  const schema = inputSchemaOf("read_file")
  it("turns numbers and booleans sent as strings into their type", () => {
    expect(PlainSchema.coerce(schema, { path: "a", offset: "2", limit: " 10 " })).toEqual(Either.right({ path: "a", offset: 2, limit: 10 }))
    expect(PlainSchema.coerce(inputSchemaOf("bash"), { command: "ls", network: "false" })).toEqual(Either.right({ command: "ls", network: false }))
    expect(PlainSchema.coerce(inputSchemaOf("sql_query"), { sql: "x", max_rows: "3" })).toEqual(Either.right({ sql: "x", max_rows: 3 }))
  })
  it("refuses naming the field and the type it expects; strings stay strings", () => {
    expect(PlainSchema.coerce(schema, { path: "a", offset: "two" })).toEqual(Either.left('offset: expected an integer, got the string "two"'))
    expect(PlainSchema.coerce(schema, { path: "a", offset: "1.5" })).toEqual(Either.left('offset: expected an integer, got the string "1.5"'))
    expect(PlainSchema.coerce(schema, { path: "a", offset: "" })).toEqual(Either.left('offset: expected an integer, got the string ""'))
    expect(PlainSchema.coerce(schema, { path: "12" })).toEqual(Either.right({ path: "12" }))
    expect(PlainSchema.coerce(inputSchemaOf("bash"), { command: "ls", network: "yes" })).toEqual(Either.left('network: expected a boolean (true or false), got the string "yes"'))
  })
})
