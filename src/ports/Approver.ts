import { Context, type Effect } from "effect"
import type { Decision } from "../domain/core/Decision.js"

export type Answer = "yes" | "no" | "always"

export interface ApprovalRequest {
  readonly tool: string
  /** One line that shows what would happen, e.g. the command or the paths. */
  readonly summary: string
  readonly decision: Decision
}

/** Asks the operator. Adapters without a person to ask answer "no". */
export interface ApproverShape {
  readonly ask: (request: ApprovalRequest) => Effect.Effect<Answer>
}

export class Approver extends Context.Tag("minicode/Approver")<Approver, ApproverShape>() {}
