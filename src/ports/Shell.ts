import { Context, type Effect, Schema } from "effect"

export interface ProcessSpec {
  /** Run through `bash -c` when a string, directly when argv. */
  readonly command: string | ReadonlyArray<string>
  readonly cwd: string
  readonly env: Readonly<Record<string, string>>
  readonly timeoutMs: number
  readonly maxOutputBytes: number
  readonly stdin?: string
  readonly network?: boolean
  /** Host folders outside the workspace a sandboxed run also sees, read-only (ignored without a sandbox). */
  readonly readOnly?: ReadonlyArray<string>
  /** Git folders whose object stores a sandboxed run must not see (their history holds a protected file). */
  readonly hideGitObjects?: ReadonlyArray<string>
  /** Called with each chunk of output (stdout and stderr) as it arrives, for progress; never with more than that. */
  readonly onOutput?: (chunk: string) => void
}

export interface ProcessResult {
  readonly exitCode: number | null
  readonly signal: string | null
  readonly stdout: string
  readonly stderr: string
  readonly truncated: boolean
  readonly timedOut: boolean
  readonly durationMs: number
  /** What the shell adds about the call (a staged call's merge: what was merged, refused, kept), one sentence each. */
  readonly notes?: ReadonlyArray<string>
}

export class ShellError extends Schema.TaggedError<ShellError>()("ShellError", {
  reason: Schema.String
}) {
  override get message() {
    return `shell: ${this.reason}`
  }
}

/** Runs a process in its own group; interruption or timeout kills the whole group. */
export interface ShellShape {
  readonly run: (spec: ProcessSpec) => Effect.Effect<ProcessResult, ShellError>
}

export class Shell extends Context.Tag("minicode/Shell")<Shell, ShellShape>() {}
