/**
 * Tool input schemas as every client reads them: plain, self-contained JSON Schema. Effect's `JSONSchema.make`
 * shares refinements through `$defs` and `$ref` with sibling keywords and titles such as `greaterThanOrEqualTo(1)`;
 * `plain` inlines each reference (the siblings win), drops the generated titles and ids, and writes "any value" as
 * `true`. `coerce` turns an argument sent as a string where the schema wants a number, an integer or a boolean
 * (as some clients send them) into that type, or names the field and the type it expects. Pure.
 */
import { Either } from "effect"

type Json = Readonly<Record<string, unknown>>

const isRecord = (u: unknown): u is Json => typeof u === "object" && u !== null && !Array.isArray(u)

/** Keywords whose value is a map of schemas, one schema, or a list of schemas. */
const schemaMaps = new Set(["properties", "patternProperties", "definitions"])
const schemaOne = new Set(["items", "additionalProperties", "not", "contains", "propertyNames", "if", "then", "else"])
const schemaList = new Set(["anyOf", "oneOf", "allOf", "prefixItems"])

const defOf = (ref: string, defs: Json): unknown => {
  const match = /^#\/\$defs\/(.+)$/.exec(ref)
  return match?.[1] === undefined ? undefined : defs[match[1]]
}

const walk = (node: unknown, defs: Json, depth: number): unknown => {
  if (!isRecord(node)) return node
  if (depth > 32) return {}
  let base: Json = node
  if (typeof node["$ref"] === "string") {
    const target = defOf(node["$ref"], defs)
    const { $ref: _ref, ...siblings } = node
    base = isRecord(target) ? { ...target, ...siblings } : siblings
  }
  // "Any value": Effect writes `{ $id: "/schemas/unknown", title: "unknown" }`.
  if (base["$id"] === "/schemas/unknown" || base["$id"] === "/schemas/any") return true
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(base)) {
    if (key === "title" || key === "$defs" || key === "$id" || key === "$schema") continue
    if (key === "required" && Array.isArray(value) && value.length === 0) continue
    if (schemaMaps.has(key) && isRecord(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v, defs, depth + 1)]))
    } else if (schemaOne.has(key)) out[key] = walk(value, defs, depth + 1)
    else if (schemaList.has(key) && Array.isArray(value)) out[key] = value.map((v) => walk(v, defs, depth + 1))
    else out[key] = value
  }
  return out
}

/** A plain copy of `schema`: no `$ref`/`$defs`, no generated titles; an object schema always has `properties`. */
export const plain = (schema: object): Json => {
  const root: unknown = schema
  const defs = isRecord(root) && isRecord(root["$defs"]) ? root["$defs"] : {}
  const out = walk(schema, defs, 0)
  const result = isRecord(out) ? out : {}
  return result["type"] === "object" && result["properties"] === undefined ? { ...result, properties: {} } : result
}

const typeOf = (schema: unknown): string | undefined => (isRecord(schema) && typeof schema["type"] === "string" ? schema["type"] : undefined)

const described: Readonly<Record<string, string>> = { integer: "an integer", number: "a number", boolean: "a boolean (true or false)" }

/**
 * The arguments with each top-level string turned into the number, integer or boolean its property's schema
 * says, when it reads as one; Left names the first field that does not, and the type it expects.
 */
export const coerce = (schema: Json, args: unknown): Either.Either<unknown, string> => {
  const properties = schema["properties"]
  if (!isRecord(args) || !isRecord(properties)) return Either.right(args)
  const out: Record<string, unknown> = { ...args }
  for (const [field, value] of Object.entries(args)) {
    const type = typeOf(properties[field])
    if (typeof value !== "string" || type === undefined || described[type] === undefined) continue
    const text = value.trim()
    if (type === "boolean") {
      if (text !== "true" && text !== "false") return Either.left(`${field}: expected ${described[type]}, got the string ${JSON.stringify(value).slice(0, 60)}`)
      out[field] = text === "true"
      continue
    }
    const ok = type === "integer" ? /^-?[0-9]+$/.test(text) : /^-?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$/.test(text)
    const n = Number(text)
    if (!ok || !Number.isFinite(n) || (type === "integer" && !Number.isSafeInteger(n))) {
      return Either.left(`${field}: expected ${described[type]}, got the string ${JSON.stringify(value).slice(0, 60)}`)
    }
    out[field] = n
  }
  return Either.right(out)
}
