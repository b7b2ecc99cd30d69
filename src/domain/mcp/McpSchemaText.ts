/**
 * A JSON Schema (a tool's input or output schema) as compact text a model can read: nested objects and arrays,
 * enums, unions, `$ref`s into `$defs`, defaults, ranges and property descriptions, e.g.
 * `{path*: string "File to read", depth: integer 1..5 =2, tags: string[], mode: "fast"|"full"}`. `*` marks a
 * required property. Recursive references stop at their name. Pure.
 */
import { capped, visible } from "./McpText.js"

type Json = Readonly<Record<string, unknown>>

const isRecord = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v)

const json = (v: unknown): string => visible(JSON.stringify(v) ?? "undefined")

/** Property descriptions are cut past this many characters (visibly). */
export const propertyDescriptionChars = 300
const maxDepth = 8

interface Walk {
  readonly defs: Json
  readonly seen: ReadonlySet<string>
  readonly depth: number
}

const refName = (ref: string): string | undefined => /^#\/(?:\$defs|definitions)\/(.+)$/.exec(ref)?.[1]

const range = (s: Json): string => {
  const lo = typeof s["minimum"] === "number" ? s["minimum"] : typeof s["exclusiveMinimum"] === "number" ? `>${s["exclusiveMinimum"]}` : undefined
  const hi = typeof s["maximum"] === "number" ? s["maximum"] : typeof s["exclusiveMaximum"] === "number" ? `<${s["exclusiveMaximum"]}` : undefined
  return lo === undefined && hi === undefined ? "" : ` ${lo ?? ""}..${hi ?? ""}`
}

const stringDetail = (s: Json): string => {
  const parts: Array<string> = []
  if (typeof s["format"] === "string") parts.push(`(${visible(s["format"])})`)
  if (typeof s["pattern"] === "string") parts.push(` /${visible(s["pattern"])}/`)
  const lo = typeof s["minLength"] === "number" ? s["minLength"] : undefined
  const hi = typeof s["maxLength"] === "number" ? s["maxLength"] : undefined
  if (lo !== undefined || hi !== undefined) parts.push(` len ${lo ?? ""}..${hi ?? ""}`)
  return parts.join("")
}

const union = (items: ReadonlyArray<unknown>, sep: string, w: Walk) => items.map((i) => type(i, w)).join(sep)

const wrap = (t: string) => (/[|&]/.test(t) && !/^[{(]/.test(t) ? `(${t})` : t)

const objectText = (s: Json, w: Walk): string => {
  const props = isRecord(s["properties"]) ? s["properties"] : {}
  const required = new Set(Array.isArray(s["required"]) ? s["required"].filter((r): r is string => typeof r === "string") : [])
  const fields = Object.entries(props).map(([name, p]) => `${visible(name)}${required.has(name) ? "*" : ""}: ${property(p, w)}`)
  const extra = s["additionalProperties"]
  if (isRecord(extra)) fields.push(`[key]: ${type(extra, w)}`)
  return fields.length === 0 ? "object" : `{${fields.join(", ")}}`
}

const property = (p: unknown, w: Walk): string => {
  const t = type(p, w)
  if (!isRecord(p)) return t
  const def = "default" in p ? ` =${json(p["default"])}` : ""
  const description = typeof p["description"] === "string" && p["description"].trim() !== "" ? ` ${json(capped(p["description"].trim(), propertyDescriptionChars, "description"))}` : ""
  return `${t}${def}${description}`
}

const type = (schema: unknown, w: Walk): string => {
  if (schema === true || schema === undefined) return "any"
  if (schema === false) return "never"
  if (!isRecord(schema)) return "any"
  if (w.depth > maxDepth) return "…"
  const next: Walk = { ...w, depth: w.depth + 1 }
  if (typeof schema["$ref"] === "string") {
    const name = refName(schema["$ref"])
    const target = name === undefined ? undefined : w.defs[name]
    if (name === undefined || target === undefined || w.seen.has(name)) return visible(name ?? schema["$ref"])
    return type(target, { ...next, seen: new Set([...w.seen, name]) })
  }
  if ("const" in schema) return json(schema["const"])
  if (Array.isArray(schema["enum"])) return schema["enum"].map(json).join("|")
  if (Array.isArray(schema["anyOf"])) return union(schema["anyOf"], " | ", next)
  if (Array.isArray(schema["oneOf"])) return union(schema["oneOf"], " | ", next)
  if (Array.isArray(schema["allOf"])) return union(schema["allOf"], " & ", next)
  const t = schema["type"]
  if (Array.isArray(t)) return t.map((one) => type({ ...schema, type: one }, next)).join("|")
  if (t === "object" || (t === undefined && isRecord(schema["properties"]))) return objectText(schema, next)
  if (t === "array") {
    if (Array.isArray(schema["prefixItems"])) return `[${union(schema["prefixItems"], ", ", next)}]`
    return `${wrap(type(schema["items"], next))}[]`
  }
  if (t === "string") return `string${stringDetail(schema)}`
  if (t === "number" || t === "integer") return `${t}${range(schema)}`
  if (typeof t === "string") return visible(t)
  return "any"
}

/** The schema as one line; past `maxChars` it is cut visibly. */
export const compact = (schema: unknown, maxChars = 4000): string => {
  const defs = isRecord(schema) ? { ...(isRecord(schema["definitions"]) ? schema["definitions"] : {}), ...(isRecord(schema["$defs"]) ? schema["$defs"] : {}) } : {}
  return capped(type(schema, { defs, seen: new Set(), depth: 0 }), maxChars, "schema")
}
