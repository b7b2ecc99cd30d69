/**
 * How a failed command is told: one or two plain sentences on stderr (what went wrong, what to do next), or with
 * `--json` one `{"error":{"code","message"}}` object on stdout; the exit code from the one table (`ExitCode`).
 * A stack trace only with `--debug` (or MINICODE_DEBUG=1).
 */
import { HelpDoc, ValidationError } from "@effect/cli"
import { Cause, Effect, Option } from "effect"
import * as Visible from "../domain/core/Visible.js"
import * as ExitCode from "./ExitCode.js"

export interface Presentation {
  readonly json: boolean
  readonly debug: boolean
}

const ansi = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "g")
const plain = (text: string) => text.replace(ansi, "").trim()

const messageOf = (error: unknown): string => {
  if (ValidationError.isValidationError(error)) {
    return "error" in error ? plain(HelpDoc.toAnsiText(error.error)) : "invalid command line"
  }
  if (typeof error === "object" && error !== null && "message" in error && typeof error.message === "string") return error.message
  return String(error)
}

const tagOf = (error: unknown): string =>
  typeof error === "object" && error !== null && "_tag" in error && typeof error._tag === "string" ? error._tag : ""

/** What to do next, when the kind of failure says it. */
const nextSteps: Readonly<Record<string, string>> = {
  UnknownTool: "`minicode tools` lists every tool with its arguments",
  InvalidArguments: "`minicode tool NAME --help` shows the tool's arguments and an example",
  RecoveryNeeded: "run `minicode recover` to see what to check"
}

const say = (presentation: Presentation, code: ExitCode.Code, message: string, detail?: string) =>
  Effect.sync(() => {
    if (presentation.json) {
      process.stdout.write(`${Visible.json(JSON.stringify({ error: { code, message } }))}\n`)
    } else {
      process.stderr.write(`minicode: ${Visible.text(message)}\n`)
    }
    if (detail !== undefined) process.stderr.write(`${Visible.text(detail)}\n`)
    process.exitCode = ExitCode.exitOf(code)
  })

/** Tell the failure of `cause` and set the exit code. The CLI turns the parser's usage errors into sentences first (`Cli.run`). */
export const tell = (presentation: Presentation) => (cause: Cause.Cause<unknown>) => {
  const failure = Cause.failureOption(cause)
  const trace = presentation.debug ? Cause.pretty(cause) : undefined
  if (Option.isSome(failure)) {
    const error = failure.value
    const code = ExitCode.classify(ValidationError.isValidationError(error) ? { _tag: "ValidationError" } : error)
    const message = messageOf(error)
    const next = nextSteps[tagOf(error)]
    return say(presentation, code, next === undefined ? message : `${message}\n${next}`, trace)
  }
  const defect = Cause.squash(cause)
  return say(
    presentation,
    "tool_error",
    `internal error: ${defect instanceof Error ? defect.message : String(defect)}${presentation.debug ? "" : " (run again with --debug for the stack trace)"}`,
    trace
  )
}

/** Run `program`, telling any failure plainly; an interruption says what it means for the journal. */
export const reported =
  (presentation: Presentation) =>
  <A, E, R>(program: Effect.Effect<A, E, R>): Effect.Effect<void, never, R> =>
    program.pipe(
      Effect.asVoid,
      Effect.onInterrupt(() =>
        Effect.sync(() => {
          process.stderr.write("minicode: interrupted; a change in flight is journaled as unknown (`minicode recover` shows it)\n")
          process.exitCode = ExitCode.ExitCode.interrupted
        })
      ),
      Effect.catchAllCause((cause) => (Cause.isInterruptedOnly(cause) ? Effect.void : tell(presentation)(cause)))
    )
