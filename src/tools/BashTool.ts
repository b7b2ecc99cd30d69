/**
 * The `bash` tool: runs an admitted command through the Shell port in the jailed working directory, with a
 * timeout, the group killed on timeout or interruption, output capped and scrubbed of obvious secrets.
 */
import { Effect } from "effect"
import * as Deadline from "../domain/core/Deadline.js"
import { ToolFailed } from "../domain/core/Errors.js"
import { redact } from "../domain/core/Redact.js"
import * as Progress from "../ports/Progress.js"
import { Session } from "../ports/Session.js"
import { Shell, type ProcessResult } from "../ports/Shell.js"
import type { Extension } from "../kernel/Executor.js"

export const defaultTimeoutMs = Deadline.bashTimeoutMs

export const format = (result: ProcessResult, timeoutMs: number): string => {
  const parts: Array<string> = []
  if (result.stdout !== "") parts.push(result.stdout.replace(/\n$/, ""))
  if (result.stderr !== "") parts.push(`[stderr]\n${result.stderr.replace(/\n$/, "")}`)
  if (result.timedOut) parts.push(`[killed: timed out after ${timeoutMs} ms]`)
  else if (result.signal !== null) parts.push(`[killed by ${result.signal}]`)
  else parts.push(`[exit code: ${result.exitCode ?? "unknown"}]`)
  return redact(parts.join("\n"))
}

/**
 * A chunk callback that tells `note` the output's last non-empty line (redacted, at most 200 characters): a
 * command's progress as a person would read it in a terminal.
 */
export const lastLine = (note: (message: string) => void) => {
  let tail = ""
  return (chunk: string) => {
    tail = (tail + chunk).slice(-4096)
    const lines = tail.split(/\r?\n|\r/).filter((l) => l.trim() !== "")
    const last = lines[lines.length - 1]
    if (last !== undefined) note(redact(last.trim()).slice(0, 200))
  }
}

export const make = Effect.gen(function* () {
  const shell = yield* Shell
  const session = yield* Session
  const extension: Extension = (inv) => {
    const call = inv.facts.call
    if (call.tool !== "bash") return undefined
    const timeoutMs = call.args.timeout_ms ?? defaultTimeoutMs
    // Only a call someone listens to pays for reading its output as it comes.
    return Effect.flatMap(Progress.current, (progress) => shell
      .run({
        ...(progress.watched ? { onOutput: lastLine(progress.note) } : {}),
        command: call.args.command,
        cwd: inv.resolved["cwd"]?.real ?? session.root,
        env: {},
        timeoutMs,
        // Two streams share the tool's output budget, so the executor's own marker survives the final cap.
        maxOutputBytes: Math.max(1024, Math.floor(session.maxOutputBytes / 2) - 256),
        network: call.args.network === true
      })
      .pipe(
        Effect.map((result) => ({
          text: format(result, timeoutMs),
          truncated: result.truncated,
          isError: result.timedOut || result.exitCode !== 0
        })),
        Effect.mapError((e) => new ToolFailed({ tool: "bash", reason: e.reason }))
      ))
  }
  return extension
})
