/**
 * Every failure a user, the journal or an assistant sees. Each is encodable and carries a readable message.
 */
import { Schema } from "effect"
import * as Deadline from "./Deadline.js"
import { Stage } from "./Decision.js"
import * as Remedy from "./Remedy.js"

/** A gate said no (or said "ask" and nobody could answer yes). */
export class ToolDenied extends Schema.TaggedError<ToolDenied>()("ToolDenied", {
  tool: Schema.String,
  stage: Stage,
  rule: Schema.String,
  reason: Schema.String,
  /** How an allowlist entry would allow it, when one would (the permission stage's refusals). */
  allow: Schema.optional(Schema.String)
}) {
  /** With the remedy for a library caller; the CLI and `mcp serve` tell it with their own (`Remedy.told`). */
  override get message() {
    return Remedy.told(this, "api")
  }
}

export class UnknownTool extends Schema.TaggedError<UnknownTool>()("UnknownTool", {
  tool: Schema.String,
  known: Schema.Array(Schema.String)
}) {
  override get message() {
    return `unknown tool "${this.tool}"`
  }
}

export class InvalidArguments extends Schema.TaggedError<InvalidArguments>()("InvalidArguments", {
  tool: Schema.String,
  details: Schema.String
}) {
  override get message() {
    return `invalid arguments for ${this.tool}: ${this.details}`
  }
}

/** The tool ran and failed in a way the caller should see (missing file, no match, non-zero exit is NOT this). */
export class ToolFailed extends Schema.TaggedError<ToolFailed>()("ToolFailed", {
  tool: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `${this.tool} failed: ${this.reason}`
  }
}

export class ToolTimeout extends Schema.TaggedError<ToolTimeout>()("ToolTimeout", {
  tool: Schema.String,
  millis: Schema.Number,
  /** The whole message, when the tool can say more (which limit fired, where it was set). */
  reason: Schema.optional(Schema.String)
}) {
  override get message() {
    return this.reason ?? `${this.tool} timed out after ${this.millis} ms`
  }
}

/**
 * A call that ran past minicode's overall deadline (see `Deadline`): it was stopped, and what it did so far may
 * stand (the journal records a mutating one as `unknown`).
 */
export class DeadlineExceeded extends Schema.TaggedError<DeadlineExceeded>()("DeadlineExceeded", {
  tool: Schema.String,
  millis: Schema.Number
}) {
  override get message() {
    return `${this.tool} stopped: the call ran past minicode's overall deadline of ${Deadline.describe(this.millis)} (config toolDeadlineMs)`
  }
}

/**
 * The person at the command line asked for something that cannot be done as asked: a wrong flag or argument, a
 * config file that does not parse, nothing to undo. The reason says what to do next; the CLI exits 2.
 */
export class UsageError extends Schema.TaggedError<UsageError>()("UsageError", {
  reason: Schema.String
}) {
  override get message() {
    return this.reason
  }
}

/** A port whose adapter is not installed in this build or configuration. */
export class Unavailable extends Schema.TaggedError<Unavailable>()("Unavailable", {
  port: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `${this.port} is not available: ${this.reason}`
  }
}

/** The journal could not snapshot or record a mutating call: the call is refused before it acts. */
export class JournalUnavailable extends Schema.TaggedError<JournalUnavailable>()("JournalUnavailable", {
  reason: Schema.String
}) {
  override get message() {
    return `journal failed: ${this.reason}`
  }
}

/** The saved allowlist could not be read (the gates cannot tell what was approved, so nothing is). */
export class AllowlistUnreadable extends Schema.TaggedError<AllowlistUnreadable>()("AllowlistUnreadable", {
  reason: Schema.String
}) {
  override get message() {
    return `allowlist failed: ${this.reason}`
  }
}

/** An "always allow" answer could not be saved to the allowlist. */
export class AllowlistUnwritable extends Schema.TaggedError<AllowlistUnwritable>()("AllowlistUnwritable", {
  reason: Schema.String
}) {
  override get message() {
    return `allowlist failed: ${this.reason}`
  }
}

export type ToolError =
  | ToolDenied
  | UnknownTool
  | InvalidArguments
  | ToolFailed
  | ToolTimeout
  | DeadlineExceeded
  | Unavailable
  | JournalUnavailable
  | AllowlistUnreadable
  | AllowlistUnwritable
