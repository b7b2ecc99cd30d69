import { Context, type Effect } from "effect"
import type { Decision } from "../domain/core/Decision.js"
import type { Outcome as EditOutcome } from "../domain/files/Edit.js"
import type { ToolError } from "../domain/core/Errors.js"
import type { PathFacts } from "../domain/jail/Jail.js"
import type { Facts } from "../domain/core/Tools.js"

/** One call on its way down the chain. Stages add what they learned; none removes anything. */
export interface Invocation {
  readonly facts: Facts
  /** The permission answer so far: "ask" until the guard's allowlist match or the operator turns it into allow. */
  readonly permission: Decision
  /** Decisions so far, in stage order. */
  readonly decisions: ReadonlyArray<Decision>
  /** Jailed resolution of every path argument, keyed by field (`path`, `from`, `paths[0]`…). */
  readonly resolved: Readonly<Record<string, PathFacts>>
  /** The MCP JSON-RPC request id, when the call came from `mcp serve`. */
  readonly requestId?: string | undefined
  /** The call's canonical form (tool and arguments), when whoever sent it down already made it. */
  readonly canonicalArgs?: string | undefined
  /** For `bash`, the command lines no allowlist entry approves (the guard's reading): what "always" may save. */
  readonly bashUnmatched?: ReadonlyArray<ReadonlyArray<string>> | undefined
  /**
   * For `edit_file`, the edit's outcome on the bytes the Journal stage snapshot (and recorded as intended): the file
   * tool writes it instead of reading and applying the edit a second time. Absent when no journal ran.
   */
  readonly edited?: EditOutcome | undefined
  /**
   * For `write_file`, the bytes the Journal stage recorded as intended (the content, with the replaced file's BOM
   * kept): the file tool writes them. Absent when no journal ran.
   */
  readonly written?: { readonly bytes: Uint8Array; readonly bomKept: boolean } | undefined
  /**
   * Given by the Journal stage to a mutating call: the executor reports when the mutation itself is done, before
   * what only follows it (the diagnostics appended to a write_file/edit_file result). The journal record is then
   * settled at once, so a hung language server or an interrupted diagnostics wait never leaves a write that happened
   * `pending` or `unknown`. Absent when no journal runs (nothing to settle).
   */
  readonly mutationDone?: MutationDoneShape | undefined
}

export interface MutationDoneShape {
  readonly done: (outcome: { readonly isError: boolean }) => Effect.Effect<void>
}

export interface ToolOutput {
  readonly text: string
  readonly truncated: boolean
  /** Set when an executor-level failure is reported as content (a non-zero exit, a tool error from a server). */
  readonly isError?: boolean
  /**
   * The result as data, beside the text, for a tool that declares an output schema (`OutputSchemas`); `mcp serve`
   * returns it as `structuredContent`. Any tool may give it; the text stays the result every client reads.
   */
  readonly structured?: Readonly<Record<string, unknown>>
}

/** Every stage of the chain provides this port and wraps the next one. */
export interface ToolExecutorShape {
  readonly run: (invocation: Invocation) => Effect.Effect<ToolOutput, ToolError>
}

export class ToolExecutor extends Context.Tag("minicode/ToolExecutor")<ToolExecutor, ToolExecutorShape>() {}
