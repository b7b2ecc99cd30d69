import { Context, type Effect } from "effect"

/**
 * What the executor consults after a successful `write_file` or `edit_file` (optional: absent, nothing is added).
 * The text is appended to the tool result so the assistant sees the breakage it just made.
 */
export interface DiagnosticsShape {
  /** Diagnostics for a file just written (absolute real path) as text, or undefined when no server handles it. Never fails. */
  readonly afterWrite: (path: string) => Effect.Effect<string | undefined>
}

export class Diagnostics extends Context.Tag("minicode/Diagnostics")<Diagnostics, DiagnosticsShape>() {}
