import { Context, type Effect } from "effect"
import type { AllowEntry } from "../domain/core/Allowlist.js"
import type { Decision } from "../domain/core/Decision.js"

export type Answer = "yes" | "no" | "always"

/** A "no" that says why nobody said yes (declined, cancelled, timed out, no way to ask) and how to allow it. */
export interface Refused {
  readonly _tag: "Refused"
  readonly why: string
  /** How to allow it without being asked (a flag of this front end), if it has one. */
  readonly howToAllow?: string
}

export const refused = (why: string, howToAllow?: string): Refused =>
  howToAllow === undefined ? { _tag: "Refused", why } : { _tag: "Refused", why, howToAllow }

export interface ApprovalRequest {
  readonly tool: string
  /** One line that shows what would happen, e.g. the command or the paths. */
  readonly summary: string
  readonly decision: Decision
  /** One plain sentence for a person: the tool, the command or path, the reason it asks (a commit's message and files). */
  readonly sentence?: string
  /** What an "always" answer saves, exactly; absent when "always" cannot be offered (bash is matched on argv). */
  readonly entry?: AllowEntry
}

/** Asks the operator. Adapters without a person to ask answer "no" (or say why, as a `Refused`). */
export interface ApproverShape {
  readonly ask: (request: ApprovalRequest) => Effect.Effect<Answer | Refused>
}

export class Approver extends Context.Tag("minicode/Approver")<Approver, ApproverShape>() {}

/** What a client answered to an `elicitation/create` request. */
export interface ElicitationReply {
  readonly action: "accept" | "decline" | "cancel"
  readonly content?: Readonly<Record<string, unknown>> | undefined
}

/**
 * The MCP client as a way to ask the user (`elicitation/create`, form mode), handed by `mcp serve` to the approver
 * the app chooses. Not a Tag: it exists only once the SDK server does.
 */
export interface ElicitationChannel {
  /** Whether the client declared the `elicitation` capability (known once it initialized). */
  readonly supported: () => boolean
  /** Sends one form request; the signal aborts it (the client is told it was cancelled). */
  readonly elicit: (
    params: { readonly message: string; readonly requestedSchema: Readonly<Record<string, unknown>> },
    signal: AbortSignal
  ) => Promise<ElicitationReply>
}
