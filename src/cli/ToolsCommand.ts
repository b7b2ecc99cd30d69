/**
 * `minicode tools [--json]` and `minicode tool NAME --help`: every built-in tool with its scope, capability,
 * arguments (types, required or optional, defaults) and one example call. All of it is read from the tool catalog
 * (src/domain/core/Tools.ts: the argument Schemas, their JSON Schema as MCP advertises it, and the example stored
 * beside each definition), so this listing cannot drift from what the tools accept.
 */
import { Command, Options } from "@effect/cli"
import { Console, Effect } from "effect"
import { UnknownTool, UsageError } from "../domain/core/Errors.js"
import * as Tools from "../domain/core/Tools.js"
import { inputSchemaOf } from "../serve/ToolList.js"
import * as Layout from "./Layout.js"

export interface Argument {
  readonly name: string
  readonly type: string
  readonly required: boolean
  readonly default?: unknown
  readonly description: string
}

export interface Entry {
  readonly name: Tools.ToolName
  readonly title: string
  readonly description: string
  readonly scope: Tools.Scope
  readonly capability: Tools.Capability
  readonly mutates: boolean
  /** Needs an approval (or the allow-all policy) before it runs. */
  readonly gated: boolean
  readonly arguments: ReadonlyArray<Argument>
  readonly example: { readonly args: Readonly<Record<string, unknown>>; readonly command: string }
}

type Json = Readonly<Record<string, unknown>>
const isRecord = (u: unknown): u is Json => typeof u === "object" && u !== null && !Array.isArray(u)

/** A JSON Schema's type in a few words: `integer 1..600000`, `string[]`, `string | number`, `object`. */
export const typeOf = (schema: unknown): string => {
  if (schema === true || !isRecord(schema)) return "any"
  const union = schema["anyOf"] ?? schema["oneOf"]
  if (Array.isArray(union)) return union.map(typeOf).join(" | ")
  if (Array.isArray(schema["enum"])) return schema["enum"].map((v) => JSON.stringify(v)).join(" | ")
  const type = schema["type"]
  if (type === "array") {
    const item = typeOf(schema["items"])
    return item.includes(" ") ? `(${item})[]` : `${item}[]`
  }
  if (type === "object") {
    const values = schema["additionalProperties"]
    return isRecord(values) ? `object of ${typeOf(values)}` : "object"
  }
  if (typeof type !== "string") return "any"
  const min = schema["minimum"]
  const max = schema["maximum"]
  if (typeof min === "number" && typeof max === "number") return `${type} ${min}..${max}`
  if (typeof min === "number") return `${type} >= ${min}`
  return type
}

/** A word safe inside single quotes in a POSIX shell. */
const shellQuote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`

const argumentsOf = (name: Tools.ToolName) => {
  const info = Tools.staticInfo(name)
  const schema = inputSchemaOf(name)
  const properties = isRecord(schema["properties"]) ? schema["properties"] : {}
  const required = new Set(Array.isArray(schema["required"]) ? schema["required"] : [])
  const args = Object.entries(properties).map(([field, s]): Argument => {
    const description = isRecord(s) && typeof s["description"] === "string" ? s["description"] : ""
    const fallback = isRecord(s) && "default" in s ? { default: s["default"] } : {}
    return { name: field, type: typeOf(s), required: required.has(field), ...fallback, description }
  })
  return { info, args }
}

/** The description without the "(default X)" the entry already states. */
const withoutDefault = (a: Argument) =>
  "default" in a ? a.description.replace(` (default ${String(a.default)})`, "") : a.description

export const entryOf = (name: Tools.ToolName): Entry => {
  const { info, args } = argumentsOf(name)
  const example = Tools.exampleOf(name)
  return {
    name,
    title: info.title,
    description: info.description,
    scope: info.scope,
    capability: info.capability,
    mutates: info.mutates,
    gated: info.gated,
    arguments: args,
    example: { args: example, command: `minicode tool ${name} ${shellQuote(JSON.stringify(example))}` }
  }
}

export const catalog = (): ReadonlyArray<Entry> => Tools.toolNames.map(entryOf)

const facts = (e: Entry) =>
  [`scope ${e.scope}`, `capability ${e.capability}`, e.mutates ? "changes things (journaled)" : "read-only", ...(e.gated ? ["needs an approval"] : [])].join(", ")

/**
 * The example call on one line when it fits, else with its JSON object spread over lines inside the quotes (still
 * one command to paste: the line breaks are JSON whitespace).
 */
const exampleLines = (style: Layout.Style, e: Entry): ReadonlyArray<string> => {
  const line = `  $ ${e.example.command}`
  if (line.length <= style.width) return [line]
  const fields = Object.entries(e.example.args).map(([k, v], i, all) => `      ${shellQuote(JSON.stringify(k)).slice(1, -1)}: ${shellQuote(JSON.stringify(v)).slice(1, -1)}${i < all.length - 1 ? "," : ""}`)
  return [`  $ minicode tool ${e.name} '{`, ...fields, "    }'"]
}

/** One tool's entry, as `minicode tool NAME --help` prints it. */
export const renderEntry = (style: Layout.Style, e: Entry): string => {
  const lines = [
    `${Layout.bold(style, e.name)} - ${e.title}`,
    ...(e.description === e.title ? [] : Layout.wrap(e.description, style.width, "  ")),
    ...Layout.wrap(facts(e), style.width, "  "),
    "",
    Layout.heading(style, "Arguments (ARGS_JSON, one JSON object):"),
    ...(e.arguments.length === 0
      ? ["  none: pass {} or leave ARGS_JSON out"]
      : Layout.definitions(
          style,
          e.arguments.map((a) => [
            a.name,
            `${a.type}, ${a.required ? "required" : "optional"}${"default" in a ? `, default ${JSON.stringify(a.default)}` : ""}.${withoutDefault(a) === "" ? "" : ` ${withoutDefault(a)}`}`
          ]),
          2,
          Layout.cyan
        )),
    "",
    Layout.heading(style, "Example:"),
    ...exampleLines(style, e)
  ]
  return lines.join("\n")
}

/** Every tool, grouped by scope in the catalog's order. */
export const renderCatalog = (style: Layout.Style): string => {
  const entries = catalog()
  const scopes = [...new Set(entries.map((e) => e.scope))]
  const head = Layout.wrap(
    "Built-in tools, by scope. Run one with `minicode tool NAME 'ARGS_JSON'`; `minicode tool NAME --help` shows one entry; --json gives this list as JSON. An MCP server's tools are called as SERVER.TOOL (`minicode tool mcp_list` lists them).",
    style.width
  )
  const blocks = scopes.map((scope) =>
    [Layout.heading(style, `== ${scope} ==`), ...entries.filter((e) => e.scope === scope).map((e) => `${renderEntry(style, e)}\n`)].join("\n\n")
  )
  return [...head, "", ...blocks].join("\n").trimEnd()
}

/** What `tool NAME --help` says when NAME is not a built-in tool: a usage error that says what to do next. */
export const unknownTool = (name: string) => {
  const dynamic = Tools.dynamicName.exec(name)
  return dynamic === null
    ? new UnknownTool({ tool: name, known: Tools.toolNames })
    : new UsageError({
        reason: `"${name}" is tool ${dynamic[2] ?? ""} of the MCP server ${dynamic[1] ?? ""}; its arguments come from that server: minicode tool mcp_list '{"server":"${dynamic[1] ?? ""}"}' shows them`
      })
}

const isToolName = (name: string): name is Tools.ToolName => (Tools.toolNames as ReadonlyArray<string>).includes(name)

/** The text of `tool NAME --help`, or the usage error of an unknown NAME. */
export const toolHelp = (name: string, style: Layout.Style, asJson: boolean): Effect.Effect<void, UnknownTool | UsageError> =>
  isToolName(name)
    ? Console.log(asJson ? JSON.stringify(entryOf(name), null, 2) : renderEntry(style, entryOf(name)))
    : Effect.fail(unknownTool(name))

export const tools = Command.make(
  "tools",
  { json: Options.boolean("json").pipe(Options.withDescription("The catalog as one JSON array")) },
  (flags) =>
    Console.log(flags.json ? JSON.stringify(catalog(), null, 2) : renderCatalog(Layout.styleOf(process.env, process.stdout)))
).pipe(Command.withDescription("Every tool with its scope, capability, arguments and an example call"))
