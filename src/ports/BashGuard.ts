import { Context, type Effect } from "effect"
import type { AllowEntry } from "../domain/core/Allowlist.js"
import type { Decision } from "../domain/core/Decision.js"
import type { JailContext } from "../domain/jail/Jail.js"

export interface GuardRequest {
  readonly command: string
  /** Absolute working directory, already jailed. */
  readonly cwd: string
  readonly jail: JailContext
  /** Under policy allowlist every simple command must match one of these. */
  readonly allowlist: ReadonlyArray<AllowEntry>
  readonly requireAllowlist: boolean
  readonly network: boolean
}

/**
 * The bash guard: parses a command and judges the tree. A `guard`-stage decision comes back; `allowlisted`
 * says every simple command matched an allowlist entry (an ask can then become an allow).
 */
export interface BashGuardShape {
  readonly judge: (request: GuardRequest) => Effect.Effect<{ readonly decision: Decision; readonly allowlisted: boolean }>
}

export class BashGuard extends Context.Tag("minicode/BashGuard")<BashGuard, BashGuardShape>() {}
