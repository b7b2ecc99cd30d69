/**
 * JSON with comments and trailing commas (what VS Code, Claude Code and Cursor read their settings as), parsed to a
 * tree that keeps every member of an object, duplicates too: a reader that keeps the last of two `"hooks"` keys
 * must not hide the first from a check. Strict otherwise: anything else is an error, never a guess.
 */
export type Value =
  | { readonly type: "object"; readonly members: ReadonlyArray<readonly [string, Value]> }
  | { readonly type: "array"; readonly items: ReadonlyArray<Value> }
  | { readonly type: "string"; readonly value: string }
  | { readonly type: "number" | "boolean" | "null"; readonly text: string }

export type Parsed = { readonly ok: true; readonly value: Value } | { readonly ok: false; readonly reason: string }

class Bad {
  constructor(readonly reason: string) {}
}

const MAX_DEPTH = 200

export const parse = (text: string): Parsed => {
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0
  const fail = (what: string): never => {
    throw new Bad(`${what} at offset ${i}`)
  }
  const skip = () => {
    for (;;) {
      const c = text[i]
      if (c === " " || c === "\t" || c === "\n" || c === "\r") i++
      else if (c === "/" && text[i + 1] === "/") {
        while (i < text.length && text[i] !== "\n" && text[i] !== "\r") i++
      } else if (c === "/" && text[i + 1] === "*") {
        const end = text.indexOf("*/", i + 2)
        if (end === -1) fail("unterminated comment")
        i = end + 2
      } else return
    }
  }
  const string = (): string => {
    i++
    let out = ""
    for (;;) {
      const c = text[i]
      if (c === undefined || c === "\n" || c === "\r") return fail("unterminated string")
      if (c === '"') {
        i++
        return out
      }
      if (c === "\\") {
        const e = text[i + 1]
        const simple: Record<string, string> = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" }
        if (e !== undefined && simple[e] !== undefined) {
          out += simple[e]
          i += 2
        } else if (e === "u" && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) {
          out += String.fromCharCode(parseInt(text.slice(i + 2, i + 6), 16))
          i += 6
        } else return fail("bad escape in string")
      } else {
        out += c
        i++
      }
    }
  }
  const value = (depth: number): Value => {
    if (depth > MAX_DEPTH) fail("nested too deep")
    skip()
    const c = text[i]
    if (c === "{") {
      i++
      const members: Array<readonly [string, Value]> = []
      for (;;) {
        skip()
        if (text[i] === "}") {
          i++
          return { type: "object", members }
        }
        if (text[i] !== '"') fail("expected a key")
        const key = string()
        skip()
        if (text[i] !== ":") fail("expected ':'")
        i++
        members.push([key, value(depth + 1)])
        skip()
        if (text[i] === ",") i++
        else if (text[i] !== "}") fail("expected ',' or '}'")
      }
    }
    if (c === "[") {
      i++
      const items: Array<Value> = []
      for (;;) {
        skip()
        if (text[i] === "]") {
          i++
          return { type: "array", items }
        }
        items.push(value(depth + 1))
        skip()
        if (text[i] === ",") i++
        else if (text[i] !== "]") fail("expected ',' or ']'")
      }
    }
    if (c === '"') return { type: "string", value: string() }
    const word = /^(?:true|false|null|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(text.slice(i, i + 400))?.[0]
    if (word === undefined) return fail("unexpected character")
    i += word.length
    return { type: word === "true" || word === "false" ? "boolean" : word === "null" ? "null" : "number", text: word }
  }
  try {
    const v = value(0)
    skip()
    if (i < text.length) fail("unexpected text after the value")
    return { ok: true, value: v }
  } catch (e) {
    if (e instanceof Bad) return { ok: false, reason: e.reason }
    throw e
  }
}

/** Every member named `key` of an object (none for anything else). */
export const members = (v: Value | undefined, key: string): ReadonlyArray<Value> =>
  v?.type === "object" ? v.members.filter(([k]) => k === key).map(([, m]) => m) : []

/** The value as compact text (for comparing an entry before and after a change, and for showing it). */
export const show = (v: Value): string => {
  switch (v.type) {
    case "object":
      return `{${v.members.map(([k, m]) => `${JSON.stringify(k)}:${show(m)}`).join(",")}}`
    case "array":
      return `[${v.items.map(show).join(",")}]`
    case "string":
      return JSON.stringify(v.value)
    default:
      return v.text
  }
}

/** Empty: null, "", [], {} or false (a key set to run nothing). */
export const isEmpty = (v: Value): boolean =>
  v.type === "null" || (v.type === "string" && v.value.trim() === "") || (v.type === "array" && v.items.length === 0) || (v.type === "object" && v.members.length === 0) || (v.type === "boolean" && v.text === "false")
