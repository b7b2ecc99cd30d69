/**
 * A server's question to the operator (MCP elicitation): what is asked, what the answer may be, and how typed-in
 * text becomes a field's value. Form requests carry a flat schema of primitives (string, number, integer, boolean,
 * enums); URL requests ask the operator to visit a page. Pure.
 */
import { Either } from "effect"
import { oneLine } from "./McpText.js"

export interface ElicitationRequest {
  readonly server: string
  readonly mode: "form" | "url"
  readonly message: string
  /** Form mode: the requested schema (an object of primitive properties). */
  readonly schema?: unknown
  /** URL mode: the page to visit. */
  readonly url?: string
}

export type FieldValue = string | number | boolean | ReadonlyArray<string>

export type ElicitationAnswer =
  | { readonly action: "accept"; readonly content?: Readonly<Record<string, FieldValue>> }
  | { readonly action: "decline" }
  | { readonly action: "cancel" }

/** The request modes an answerer can really answer. */
export interface Modes {
  readonly form: boolean
  readonly url: boolean
}

/** Who answers a server's elicitation: the operator on a TTY, the upstream client under `mcp serve`, or nobody. */
export interface Elicit {
  (request: ElicitationRequest, signal: AbortSignal): Promise<ElicitationAnswer>
  /**
   * The modes it answers now (asked when a connection opens, when `mcp serve`'s own client is known); absent: both.
   * minicode's client declares exactly these, so a server never offers a flow that can only be declined.
   */
  readonly modes?: () => Modes
}

export const none: Modes = { form: false, url: false }

export const decline: Elicit = Object.assign(() => Promise.resolve<ElicitationAnswer>({ action: "decline" }), { modes: () => none })

/** What `elicit` answers now. */
export const modesOf = (elicit: Elicit): Modes => elicit.modes?.() ?? { form: true, url: true }

export interface Field {
  readonly name: string
  readonly type: "string" | "number" | "integer" | "boolean" | "array"
  readonly required: boolean
  readonly description: string
  readonly choices: ReadonlyArray<string>
  readonly default?: unknown
}

const isRecord = (v: unknown): v is Readonly<Record<string, unknown>> => typeof v === "object" && v !== null && !Array.isArray(v)

const choicesOf = (p: Readonly<Record<string, unknown>>): ReadonlyArray<string> => {
  const items = isRecord(p["items"]) ? p["items"] : {}
  const source = Array.isArray(p["enum"]) ? p["enum"] : Array.isArray(p["oneOf"]) ? p["oneOf"] : Array.isArray(items["enum"]) ? items["enum"] : Array.isArray(items["anyOf"]) ? items["anyOf"] : []
  return source.flatMap((c) => (typeof c === "string" ? [c] : isRecord(c) && typeof c["const"] === "string" ? [c["const"]] : []))
}

/** The fields of a form request, in the schema's order. */
export const fields = (schema: unknown): ReadonlyArray<Field> => {
  if (!isRecord(schema) || !isRecord(schema["properties"])) return []
  const required = new Set(Array.isArray(schema["required"]) ? schema["required"] : [])
  return Object.entries(schema["properties"]).flatMap(([name, p]): Array<Field> => {
    if (!isRecord(p)) return []
    const t = p["type"]
    const type = t === "number" || t === "integer" || t === "boolean" || t === "array" ? t : "string"
    const description = typeof p["description"] === "string" ? p["description"] : typeof p["title"] === "string" ? p["title"] : ""
    return [{ name, type, required: required.has(name), description, choices: choicesOf(p), ...("default" in p ? { default: p["default"] } : {}) }]
  })
}

/** Typed text as the field's value; empty text is "no value" (undefined). */
export const parse = (field: Field, text: string): Either.Either<FieldValue | undefined, string> => {
  const t = text.trim()
  if (t === "") return field.required && field.default === undefined ? Either.left(`${field.name} is required`) : Either.right(undefined)
  switch (field.type) {
    case "boolean":
      return /^(y|yes|true|1)$/i.test(t) ? Either.right(true) : /^(n|no|false|0)$/i.test(t) ? Either.right(false) : Either.left("answer yes or no")
    case "number":
    case "integer": {
      const n = Number(t)
      return Number.isFinite(n) && (field.type === "number" || Number.isInteger(n)) ? Either.right(n) : Either.left(`${field.name} must be ${field.type === "integer" ? "an integer" : "a number"}`)
    }
    case "array": {
      const picked = t.split(",").map((s) => s.trim()).filter((s) => s !== "")
      const bad = picked.find((p) => field.choices.length > 0 && !field.choices.includes(p))
      return bad === undefined ? Either.right(picked) : Either.left(`${bad} is not one of ${field.choices.join(", ")}`)
    }
    case "string":
      return field.choices.length > 0 && !field.choices.includes(t) ? Either.left(`choose one of ${field.choices.join(", ")}`) : Either.right(t)
  }
}

/** JSON-RPC code a server answers with when the call needs the person to visit a page first (MCP 2025-11-25). */
export const urlRequiredCode = -32042

/**
 * The browser steps of a -32042 error's `data.elicitations`, as lines a person can act on: each page, attributed to
 * the server (never minicode's own request), its message one line with control characters spelled out, and only
 * http(s) pages (anything else is named as refused, not shown as a link to follow).
 */
export const urlSteps = (server: string, data: unknown): ReadonlyArray<string> => {
  const list = isRecord(data) && Array.isArray(data["elicitations"]) ? data["elicitations"] : []
  const who = oneLine(server)
  return list.slice(0, 10).flatMap((e): Array<string> => {
    if (!isRecord(e) || typeof e["url"] !== "string") return []
    const url = e["url"]
    const message = typeof e["message"] === "string" && e["message"] !== "" ? ` (${oneLine(e["message"])})` : ""
    return /^https?:\/\/[^\s]+$/i.test(url)
      ? [`the MCP server "${who}" asks you to open ${oneLine(url)}${message}, then call again`]
      : [`the MCP server "${who}" named a page minicode does not show (not an http(s) URL)${message}`]
  })
}
