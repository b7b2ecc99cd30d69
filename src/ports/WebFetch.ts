import { Context, type Effect } from "effect"
import type { ToolFailed } from "../domain/core/Errors.js"

export interface WebPage {
  /** The URL after redirects (each hop re-checked by the SSRF guard). */
  readonly url: string
  readonly status: number
  readonly contentType: string
  /** Decoded text, or empty for a binary body. */
  readonly text: string
  readonly bytes: number
  readonly truncated: boolean
  readonly binary: boolean
}

/** GET through the SSRF guard: the connection pinned to the checked address, redirects re-checked, body capped. */
export interface WebFetchShape {
  readonly get: (url: string, maxBytes: number) => Effect.Effect<WebPage, ToolFailed>
}

export class WebFetch extends Context.Tag("minicode/WebFetch")<WebFetch, WebFetchShape>() {}
