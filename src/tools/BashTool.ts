/**
 * The `bash` tool: runs an admitted command through the Shell port in the jailed working directory, with a
 * timeout, the group killed on timeout or interruption, output capped and scrubbed of obvious secrets.
 */
import { Effect, Ref } from "effect"
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
  for (const note of result.notes ?? []) parts.push(`[minicode: ${note}]`)
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

/** The sentence a result starts with when git's object store was hidden from the command. */
export const objectsHiddenNote = (why: string) =>
  `git's object store is hidden from bash in this repository (${why}): git history commands fail here; the git_* tools show history with protected files hidden`

/**
 * `notice`: a sentence the session's first bash result starts with (that bash runs unsandboxed, say).
 * `hideGitObjects`: per call, the git folders whose object stores the sandbox masks, and why (said once).
 */
export const makeWith = (
  notice: Effect.Effect<string | undefined> = Effect.succeed(undefined),
  hideGitObjects: Effect.Effect<{ readonly gitDirs: ReadonlyArray<string>; readonly why: string } | undefined> = Effect.succeed(undefined)
) => Effect.gen(function* () {
  const shell = yield* Shell
  const session = yield* Session
  const noticed = yield* Ref.make(false)
  const hiddenSaid = yield* Ref.make(false)
  const first = Effect.flatMap(Ref.getAndSet(noticed, true), (seen) => (seen ? Effect.succeed(undefined) : notice))
  const extension: Extension = (inv) => {
    const call = inv.facts.call
    if (call.tool !== "bash") return undefined
    const timeoutMs = call.args.timeout_ms ?? defaultTimeoutMs
    return Effect.gen(function* () {
      const hidden = yield* hideGitObjects
      // Only a call someone listens to pays for reading its output as it comes: streamed whole when the front end
      // shows it (the CLI), else its last line as the call's note (mcp serve's progress).
      const progress = yield* Progress.current
      const onOutput = progress.output ?? (progress.watched ? lastLine(progress.note) : undefined)
      const result = yield* shell
        .run({
          ...(onOutput === undefined ? {} : { onOutput }),
          command: call.args.command,
          cwd: inv.resolved["cwd"]?.real ?? session.root,
          env: {},
          timeoutMs,
          // Two streams share the tool's output budget, so the executor's own marker survives the final cap.
          maxOutputBytes: Math.max(1024, Math.floor(session.maxOutputBytes / 2) - 256),
          network: call.args.network === true,
          ...(hidden === undefined ? {} : { hideGitObjects: hidden.gitDirs })
        })
        .pipe(Effect.mapError((e) => new ToolFailed({ tool: "bash", reason: e.reason })))
      const notes: Array<string> = []
      const note = yield* first
      if (note !== undefined) notes.push(note)
      if (hidden !== undefined && !(yield* Ref.getAndSet(hiddenSaid, true))) notes.push(objectsHiddenNote(hidden.why))
      const text = format(result, timeoutMs)
      return {
        text: notes.length === 0 ? text : `${notes.map((n) => `[note: ${n}]`).join("\n")}\n${text}`,
        truncated: result.truncated,
        isError: result.timedOut || result.exitCode !== 0
      }
    })
  }
  return extension
})

export const make = makeWith()
