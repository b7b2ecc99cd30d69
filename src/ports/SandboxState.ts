import { Context, type Effect } from "effect"

/** Whether this session's bash runs inside an OS sandbox; when not, why not (said in the guard's questions). */
export type BashSandboxing = { readonly _tag: "Sandboxed" } | { readonly _tag: "Unsandboxed"; readonly reason: string }

/**
 * What the guard needs to know about the sandbox: without one, bash asks before commands static analysis cannot
 * judge (`domain/bash/Unsandboxed.ts`). Probed on first use, once per session.
 */
export interface SandboxStateShape {
  readonly bash: Effect.Effect<BashSandboxing>
}

export class SandboxState extends Context.Tag("minicode/SandboxState")<SandboxState, SandboxStateShape>() {}
