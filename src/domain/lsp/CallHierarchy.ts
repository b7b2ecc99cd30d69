/**
 * Call hierarchy (`textDocument/prepareCallHierarchy`, then `callHierarchy/incomingCalls` or `outgoingCalls`), pure:
 * the replies the tools read, and the text `lsp_incoming_calls` and `lsp_outgoing_calls` answer with. The items a
 * server prepares go back to it as it sent them (servers keep their own `data` in them), so they are read twice:
 * kept raw to send, decoded to show.
 */
import { Schema } from "effect"
import { Location, oneLine, Range, type ShownLocation, symbolKind, limits } from "./Lsp.js"

export const Item = Schema.Struct({
  name: Schema.String,
  kind: Schema.Number,
  detail: Schema.optional(Schema.String),
  uri: Schema.String,
  range: Range,
  selectionRange: Range
})
export type Item = typeof Item.Type

/** The prepare reply: items as the server sent them (`null` is none). */
export const Prepared = Schema.NullOr(Schema.Array(Schema.Unknown))

/** `CallHierarchyIncomingCall[]` (`from`) or `CallHierarchyOutgoingCall[]` (`to`), `null` for none. */
export const Reply = Schema.NullOr(Schema.Array(Schema.Struct({ from: Schema.optional(Item), to: Schema.optional(Item), fromRanges: Schema.Array(Range) })))

export type Direction = "incoming" | "outgoing"

/** One caller (incoming) or callee (outgoing), and the calls between them. */
export interface Call {
  readonly item: Item
  /** Where the calls are: in the caller's file (incoming), in the asked function's file (outgoing). */
  readonly sites: ReadonlyArray<typeof Location.Type>
}

/** The functions prepared at the position, and their calls one way. */
export interface Calls {
  readonly items: ReadonlyArray<Item>
  readonly calls: ReadonlyArray<Call>
}

/** Incoming calls' sites are in the caller's file; outgoing ones in the asked item's file. */
export const callsOf = (direction: Direction, asked: Item, reply: typeof Reply.Type): ReadonlyArray<Call> =>
  (reply ?? []).flatMap((c) => {
    const other = direction === "incoming" ? c.from : c.to
    if (other === undefined) return []
    const file = direction === "incoming" ? other.uri : asked.uri
    return [{ item: other, sites: c.fromRanges.map((range) => ({ uri: file, range })) }]
  })

/** A call shown: the other function (name, kind, where it is declared) and each call site with its source line. */
export interface ShownCall {
  readonly name: string
  readonly kind: number
  readonly detail?: string | undefined
  readonly at: ShownLocation
  readonly sites: ReadonlyArray<ShownLocation>
}

const where = (l: ShownLocation) => `${l.text}:${l.line + 1}:${l.character + 1}${l.inside ? "" : " (outside the workspace)"}`
const withSnippet = (l: ShownLocation) => (l.snippet === undefined ? where(l) : `${where(l)}  ${oneLine(l.snippet, limits.snippetChars)}`)

/**
 * `incoming calls of add (a.ts:2:17): 3 calls from 2 functions`, then per caller its declaration and each call
 * site with its line (`outgoing calls of main (…): 2 functions called`, each callee with where main calls it).
 */
export const format = (
  title: string,
  direction: Direction,
  prepared: number,
  calls: ReadonlyArray<ShownCall>,
  max: number = limits.references
): { readonly text: string; readonly truncated: boolean } => {
  if (prepared === 0) return { text: `${title}: no function or method here (the server prepared no call hierarchy item)`, truncated: false }
  if (calls.length === 0) return { text: `${title}: ${direction === "incoming" ? "no callers found" : "no calls found"}`, truncated: false }
  const sites = calls.reduce((n, c) => n + c.sites.length, 0)
  const head =
    direction === "incoming"
      ? `${title}: ${sites} call${sites === 1 ? "" : "s"} from ${calls.length} function${calls.length === 1 ? "" : "s"}`
      : `${title}: ${calls.length} function${calls.length === 1 ? "" : "s"} called, at ${sites} site${sites === 1 ? "" : "s"}`
  const lines: Array<string> = []
  let shown = 0
  for (const c of calls) {
    if (shown >= max) break
    const detail = c.detail === undefined || c.detail === "" ? "" : ` ${oneLine(c.detail, limits.snippetChars)}`
    lines.push(`${symbolKind(c.kind)} ${c.name}${detail}  ${direction === "incoming" ? where(c.at) : withSnippet(c.at)}`)
    for (const s of c.sites) {
      if (shown >= max) break
      lines.push(direction === "incoming" ? `  ${withSnippet(s)}` : `  called at ${withSnippet(s)}`)
      shown++
    }
  }
  const truncated = shown < sites
  return { text: [head, ...lines, ...(truncated ? [`[truncated: ${sites - shown} more call sites]`] : [])].join("\n"), truncated }
}
