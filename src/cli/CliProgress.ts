/**
 * The CLI's listener for a running call (the `Progress` port; `mcp serve` has its own, src/serve/CallProgress.ts),
 * all on stderr so stdout stays the result:
 * - `tool bash` streams the command's output as it comes (redacted line by line, capped at the tool's output
 *   budget, see `StreamRedact`), unless `--json`; the result is still printed on stdout when the call ends.
 * - When stderr is a terminal, a call's notes (repo_map and grep counting files, a language server starting) show
 *   as one status line, redrawn at most every 100 ms and erased when the call ends, and its log messages (bash
 *   running without a sandbox, a language server that died) as lines. Not a terminal: neither (no escape codes
 *   in a log file).
 * Text from the command or the call goes out through `Visible`: its control characters are shown, not obeyed.
 */
import { Effect } from "effect"
import * as StreamRedact from "../domain/core/StreamRedact.js"
import * as Visible from "../domain/core/Visible.js"
import { Progress, type ProgressShape } from "../ports/Progress.js"

export interface Terminal {
  readonly write: (text: string) => void
  readonly isTTY: boolean
  readonly columns: number | undefined
}

const stderr = (): Terminal => ({
  write: (text) => void process.stderr.write(text),
  isTTY: process.stderr.isTTY === true,
  columns: process.stderr.columns
})

export interface Options {
  /** Stream a command's output (`tool bash` without `--json`). */
  readonly stream: boolean
  /** The most output streamed (the tool's output budget). */
  readonly maxBytes: number
}

const redrawMs = 100

/** A listener on `terminal`, and `end`, which flushes the stream and erases the status line. */
export const make = (terminal: Terminal, options: Options): { readonly progress: ProgressShape; readonly end: () => void } => {
  let status = false
  let drawn = 0
  const clear = () => {
    if (!status) return
    terminal.write("\r\x1b[K")
    status = false
  }
  const note = (message: string) => {
    const now = Date.now()
    if (now - drawn < redrawMs) return
    drawn = now
    const columns = terminal.columns !== undefined && terminal.columns > 0 ? terminal.columns : 80
    const width = Math.max(20, columns - 1)
    terminal.write(`\r\x1b[K${Visible.line(message.replace(/[\r\n\t]+/g, " ")).slice(0, width)}`)
    status = true
  }
  const log = (level: string, message: string) => {
    clear()
    terminal.write(`minicode: ${level}: ${Visible.text(message)}\n`)
  }
  const redactor = StreamRedact.make(options.maxBytes)
  const output = (chunk: string) => {
    const text = redactor.push(chunk)
    if (text === "") return
    clear()
    terminal.write(Visible.text(text))
  }
  const silent = () => undefined
  const progress: ProgressShape = {
    watched: terminal.isTTY,
    note: terminal.isTTY ? note : silent,
    log: terminal.isTTY ? log : silent,
    ...(options.stream ? { output } : {})
  }
  return {
    progress,
    end: () => {
      const rest = redactor.end()
      clear()
      if (rest !== "") terminal.write(Visible.text(rest))
    }
  }
}

/** Runs `effect` with the CLI's listener on stderr; the stream is flushed and the status line erased at the end. */
export const around = <A, E, R>(effect: Effect.Effect<A, E, R>, options: Options): Effect.Effect<A, E, Exclude<R, Progress>> =>
  Effect.acquireUseRelease(
    Effect.sync(() => make(stderr(), options)),
    (listener) => Effect.provideService(effect, Progress, listener.progress),
    (listener) => Effect.sync(listener.end)
  )
