/**
 * The overall deadline of a tool call: however a call is stuck (a slow language server, a remote MCP server, a
 * huge search), minicode stops it at this deadline and says so. Pure.
 *
 * Every tool has 10 minutes unless configured otherwise (config `toolDeadlineMs`). `bash` has its own
 * `timeout_ms` (default 2 minutes, at most 1 hour), which reports the output so far: its overall deadline is never
 * less than that timeout plus a grace of 30 s, so the bash timeout fires first.
 */
import type { ToolCall } from "./Tools.js"

export const defaultMs = 600_000

/** `bash`'s own timeout when the call gives none. */
export const bashTimeoutMs = 120_000

export const bashGraceMs = 30_000

/** The overall deadline of this call, in ms, given the configured one (if any). */
export const deadlineMs = (call: ToolCall, configured: number | undefined): number => {
  const base = configured ?? defaultMs
  return call.tool === "bash" ? Math.max(base, (call.args.timeout_ms ?? bashTimeoutMs) + bashGraceMs) : base
}

/** `600 s`, `0.25 s`: the deadline as the error message names it. */
export const describe = (ms: number): string => `${Number((ms / 1000).toFixed(3))} s`
