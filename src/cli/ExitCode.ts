/**
 * The one table of exit codes, for every command: `--help` prints it, the README states it, and each failure is
 * classified here by its type (never by its text).
 */
export const ExitCode = {
  ok: 0,
  toolError: 1,
  usage: 2,
  denied: 3,
  needsRecovery: 4,
  interrupted: 130
} as const

export type Code = "ok" | "tool_error" | "usage" | "denied" | "needs_recovery" | "interrupted"

export const table: ReadonlyArray<readonly [number, Code, string]> = [
  [ExitCode.ok, "ok", "done"],
  [ExitCode.toolError, "tool_error", "the tool ran and failed (a missing file, a non-zero exit, a server error)"],
  [ExitCode.usage, "usage", "a wrong command, flag, argument or config file; nothing was run"],
  [ExitCode.denied, "denied", "a gate refused the call (or it needs an approval nobody gave); nothing was run"],
  [ExitCode.needsRecovery, "needs_recovery", "the journal holds calls whose outcome is unknown: run `minicode recover`"],
  [ExitCode.interrupted, "interrupted", "stopped by Ctrl-C or SIGTERM; a mutation in flight is journaled as unknown"]
]

const byTag: Readonly<Record<string, Code>> = {
  ToolDenied: "denied",
  UnknownTool: "usage",
  InvalidArguments: "usage",
  UsageError: "usage",
  ValidationError: "usage",
  RecoveryNeeded: "needs_recovery"
}

/** The class of a failure, from its `_tag`; anything unknown is a tool error. */
export const classify = (error: unknown): Code => {
  const tag = typeof error === "object" && error !== null && "_tag" in error && typeof error._tag === "string" ? error._tag : ""
  return byTag[tag] ?? "tool_error"
}

const numbers: Readonly<Record<Code, number>> = {
  ok: ExitCode.ok,
  tool_error: ExitCode.toolError,
  usage: ExitCode.usage,
  denied: ExitCode.denied,
  needs_recovery: ExitCode.needsRecovery,
  interrupted: ExitCode.interrupted
}

export const exitOf = (code: Code): number => numbers[code]

/** The table as `--help` and the README show it. */
export const render = (): string => table.map(([n, , what]) => `  ${String(n).padStart(3)}  ${what}`).join("\n")
