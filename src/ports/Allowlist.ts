import { Context, type Effect, Schema } from "effect"
import type { AllowEntry } from "../domain/core/Allowlist.js"

export class AllowlistError extends Schema.TaggedError<AllowlistError>()("AllowlistError", {
  reason: Schema.String
}) {
  override get message() {
    return `allowlist: ${this.reason}`
  }
}

/** Persisted approvals ("always"), plus entries configured for the session. */
export interface AllowlistShape {
  readonly entries: Effect.Effect<ReadonlyArray<AllowEntry>, AllowlistError>
  readonly add: (entry: AllowEntry) => Effect.Effect<void, AllowlistError>
}

export class Allowlist extends Context.Tag("minicode/Allowlist")<Allowlist, AllowlistShape>() {}
