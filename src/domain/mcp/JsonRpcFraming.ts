/**
 * Newline-delimited JSON-RPC framing for `mcp serve`, pure. `classify` turns one line into a message or the error
 * reply it deserves (-32700 for broken JSON, -32600 for JSON that is not a JSON-RPC message). The id sniffer scans
 * an oversized line chunk by chunk in constant memory and finds its top-level `"id"`, so the line can be refused
 * with its own id (the client's request fails instead of hanging) without ever holding the line whole.
 */

export type WireId = string | number

export const ErrorCodes = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /**
   * minicode's own, stable and documented (README, `mcp serve`): a block of the implementation-defined range
   * (-32000..-32099) that neither the MCP specification (-32002 resource not found, -32042 URL elicitation required;
   * the 2026 draft's -32001, -32003, -32004…) nor the SDK (-32000 connection closed, -32001 request timeout) assigns.
   * A client that reads -32001 as the SDK's own timeout or -32002 as "resource not found" is never misled.
   */
  Busy: -32080,
  Conflict: -32081,
  AlreadyHandled: -32082,
  ShuttingDown: -32083,
  TooLarge: -32084
} as const

export interface ErrorReply {
  readonly jsonrpc: "2.0"
  readonly id: WireId | null
  readonly error: { readonly code: number; readonly message: string }
}

export const errorReply = (id: WireId | null, code: number, message: string): ErrorReply => ({
  jsonrpc: "2.0",
  id,
  error: { code, message }
})

/**
 * What `JSON.stringify(value)` gives, with each string of `longChars` or more written by `escapeLong` (which must
 * give `JSON.stringify(text)`), and the message concatenated around it (see below).
 * Anything but plain data (an object with `toJSON`, or whose prototype is not Object's) goes to JSON.stringify.
 */
export const stringify = (value: unknown, escapeLong: (text: string) => string, longChars: number): string | undefined => {
  const go = (v: unknown): string | undefined => {
    if (typeof v === "string") return v.length >= longChars ? escapeLong(v) : JSON.stringify(v)
    if (typeof v !== "object" || v === null) return JSON.stringify(v)
    const proto: unknown = Object.getPrototypeOf(v)
    if ((proto !== Object.prototype && proto !== Array.prototype && proto !== null) || typeof (v as { toJSON?: unknown }).toJSON === "function") {
      return JSON.stringify(v)
    }
    // Concatenated, not joined: `+` makes a rope that points at the long text, where a join would copy it at every
    // level of the message; the stream copies it once, as it writes it.
    if (Array.isArray(v)) {
      let out = "["
      for (let i = 0; i < v.length; i++) out += (i === 0 ? "" : ",") + (go(v[i]) ?? "null")
      return out + "]"
    }
    let out = "{"
    for (const key of Object.keys(v)) {
      const field = go((v as Record<string, unknown>)[key])
      if (field !== undefined) out += (out === "{" ? "" : ",") + JSON.stringify(key) + ":" + field
    }
    return out + "}"
  }
  return go(value)
}

export type Classified<M> =
  | { readonly _tag: "Message"; readonly message: M }
  | { readonly _tag: "Reply"; readonly reply: ErrorReply }
  | { readonly _tag: "Ignore" }

const isRecord = (u: unknown): u is Readonly<Record<string, unknown>> => typeof u === "object" && u !== null && !Array.isArray(u)

const idOf = (u: unknown): WireId | null => {
  if (!isRecord(u)) return null
  const id = u["id"]
  return typeof id === "string" || (typeof id === "number" && Number.isFinite(id)) ? id : null
}

/**
 * One line, already split and within the size cap. `parse` is the protocol's own validator (the SDK's schema):
 * it returns the typed message or undefined. A response from the client that does not validate is dropped (a
 * reply to a reply helps nobody); anything else invalid gets an error reply carrying its id when it has one.
 */
export const classify = <M>(line: string, parse: (u: unknown) => M | undefined, batches = false): Classified<M> | Batch<M> => {
  const text = line.endsWith("\r") ? line.slice(0, -1) : line
  if (text.trim() === "") return { _tag: "Ignore" }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return { _tag: "Reply", reply: errorReply(null, ErrorCodes.ParseError, "Parse error: the line is not valid JSON") }
  }
  if (Array.isArray(value) && batches) {
    if (value.length === 0) return { _tag: "Reply", reply: errorReply(null, ErrorCodes.InvalidRequest, "Invalid Request: an empty batch") }
    return { _tag: "Batch", items: value.map((item: unknown) => classifyValue(item, parse, "Invalid Request: a batch holds requests and notifications, not batches")) }
  }
  return classifyValue(value, parse, "Invalid Request: JSON-RPC batches are not supported")
}

/** A JSON-RPC batch (protocol 2025-03-26): each element classified on its own. */
export interface Batch<M> {
  readonly _tag: "Batch"
  readonly items: ReadonlyArray<Classified<M>>
}

const classifyValue = <M>(value: unknown, parse: (u: unknown) => M | undefined, arrayMessage: string): Classified<M> => {
  const message = parse(value)
  if (message !== undefined) return { _tag: "Message", message }
  if (Array.isArray(value)) return { _tag: "Reply", reply: errorReply(null, ErrorCodes.InvalidRequest, arrayMessage) }
  if (isRecord(value) && !("method" in value) && ("result" in value || "error" in value)) return { _tag: "Ignore" }
  return {
    _tag: "Reply",
    reply: errorReply(idOf(value), ErrorCodes.InvalidRequest, "Invalid Request: not a JSON-RPC 2.0 request or notification")
  }
}

/** Protocol versions whose JSON-RPC accepts batches (2025-06-18 removed them). */
export const batchVersions: ReadonlySet<string> = new Set(["2025-03-26"])

/**
 * Before `initialize`, only `initialize` and `ping` are requests a server answers; anything else gets this error
 * (notifications pass).
 */
export const beforeInitialize = (id: WireId, method: string): ErrorReply | undefined =>
  method === "initialize" || method === "ping"
    ? undefined
    : errorReply(id, ErrorCodes.InvalidRequest, `Invalid Request: ${method.slice(0, 60)} before initialize; send initialize first`)

/**
 * The SDK answers a request whose params fail its schema with -32603 and the raw list of schema issues as the
 * message. That is a client error, not ours: it becomes -32602 with one readable line per issue.
 */
export const tidyError = (code: number, message: string): { readonly code: number; readonly message: string } | undefined => {
  if (code !== ErrorCodes.InternalError || !message.trimStart().startsWith("[")) return undefined
  let issues: unknown
  try {
    issues = JSON.parse(message)
  } catch {
    return undefined
  }
  if (!Array.isArray(issues)) return undefined
  const lines = issues.slice(0, 5).map((issue: unknown) => {
    if (!isRecord(issue)) return "invalid value"
    const where = Array.isArray(issue["path"]) && issue["path"].length > 0 ? `${issue["path"].map(String).join(".")}: ` : ""
    return `${where}${typeof issue["message"] === "string" ? issue["message"] : "invalid value"}`
  })
  return { code: ErrorCodes.InvalidParams, message: `Invalid params: ${lines.join("; ")}` }
}

/** Sniffer state: a tiny JSON tokenizer that only follows depth, strings and the top-level keys. */
export interface Sniff {
  readonly depth: number
  readonly inString: boolean
  readonly escaped: boolean
  /** Where we are inside the top-level object. */
  readonly phase: "key" | "colon" | "value" | "after"
  readonly key: string
  /** Bytes of the string or number being collected (a key, or the id's value), capped. */
  readonly buffer: ReadonlyArray<number>
  readonly collecting: "none" | "key" | "id-string" | "id-number"
  readonly id: WireId | null
}

export const sniffStart: Sniff = { depth: 0, inString: false, escaped: false, phase: "after", key: "", buffer: [], collecting: "none", id: null }

const maxCollected = 256
const decoder = new TextDecoder()

const finishNumber = (buffer: ReadonlyArray<number>): WireId | null => {
  const n = Number(String.fromCharCode(...buffer))
  return buffer.length > 0 && Number.isFinite(n) ? n : null
}

const finishString = (buffer: ReadonlyArray<number>): WireId | null => {
  try {
    const parsed: unknown = JSON.parse(`"${decoder.decode(new Uint8Array(buffer))}"`)
    return typeof parsed === "string" ? parsed : null
  } catch {
    return null
  }
}

/** Feeds bytes to the sniffer; returns the next state. Constant memory whatever the line's length. */
export const sniff = (state: Sniff, bytes: Uint8Array): Sniff => {
  let { depth, inString, escaped, phase, key, collecting, id } = state
  let buffer = [...state.buffer]
  let overflow = false
  const collect = (b: number) => {
    if (buffer.length < maxCollected) buffer.push(b)
    else overflow = true
  }
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i] ?? 0
    if (inString) {
      if (escaped) {
        escaped = false
        if (collecting !== "none") collect(b)
      } else if (b === 0x5c) {
        escaped = true
        if (collecting !== "none") collect(b)
      } else if (b === 0x22) {
        inString = false
        if (collecting === "key") {
          key = overflow ? "" : decoder.decode(new Uint8Array(buffer))
          phase = "colon"
        } else if (collecting === "id-string") {
          id = overflow ? null : finishString(buffer)
          phase = "after"
        } else if (depth === 1 && phase === "value") {
          phase = "after"
        }
        collecting = "none"
        buffer = []
        overflow = false
      } else if (collecting !== "none") {
        collect(b)
      }
      continue
    }
    if (collecting === "id-number") {
      const numeric = (b >= 0x30 && b <= 0x39) || b === 0x2d || b === 0x2b || b === 0x2e || b === 0x65 || b === 0x45
      if (numeric) {
        collect(b)
        continue
      }
      id = overflow ? null : finishNumber(buffer)
      collecting = "none"
      buffer = []
      overflow = false
      phase = "after"
    }
    switch (b) {
      case 0x22: // "
        inString = true
        if (depth === 1 && phase === "key") collecting = "key"
        else if (depth === 1 && phase === "value" && key === "id") collecting = "id-string"
        break
      case 0x7b: // {
      case 0x5b: // [
        if (depth === 1 && phase === "value") phase = "after"
        depth++
        if (depth === 1) phase = b === 0x7b ? "key" : "after"
        break
      case 0x7d: // }
      case 0x5d: // ]
        depth = Math.max(0, depth - 1)
        break
      case 0x3a: // :
        if (depth === 1 && phase === "colon") phase = "value"
        break
      case 0x2c: // ,
        if (depth === 1) phase = "key"
        break
      case 0x20:
      case 0x09:
      case 0x0a:
      case 0x0d:
        break
      default:
        if (depth === 1 && phase === "value") {
          if (key === "id" && ((b >= 0x30 && b <= 0x39) || b === 0x2d)) {
            collecting = "id-number"
            buffer = [b]
          } else {
            phase = "after"
          }
        }
    }
  }
  return { depth, inString, escaped, phase, key, buffer, collecting, id }
}

/** The id found so far (a number still being read at the end of the line counts). */
export const sniffedId = (state: Sniff): WireId | null =>
  state.collecting === "id-number" ? finishNumber(state.buffer) : state.id
