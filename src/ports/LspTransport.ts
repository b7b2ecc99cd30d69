import { Context, type Effect } from "effect"
import type { Unavailable } from "../domain/Errors.js"

/** Sends LSP requests to the language server configured for a file's extension. */
export interface LspTransportShape {
  readonly request: (file: string, method: string, params: unknown) => Effect.Effect<unknown, Unavailable>
}

export class LspTransport extends Context.Tag("minicode/LspTransport")<LspTransport, LspTransportShape>() {}
