/**
 * What the CLI prints of a tool's result, a decision or a journal record goes through `Visible` (a pure domain
 * function): control characters from the workspace or a process are shown escaped, in every mode but `--json`
 * (piped output too: a person may read it with `less -R`, a log viewer, `tee`); `--json` keeps the data exact and
 * only escapes, as JSON, the characters JSON.stringify leaves raw. Commands that print their own styled text (help,
 * `minicode tools`) do not use it.
 */
import { Console, Effect } from "effect"
import * as Visible from "../domain/core/Visible.js"

const shownArgs = (json: boolean, args: ReadonlyArray<unknown>) => {
  const show = json ? Visible.json : Visible.text
  return args.map((a) => (typeof a === "string" ? show(a) : a))
}

/** `console` with `log` and `error` printing visible text. */
export const visibleConsole = (console: Console.Console, json: boolean): Console.Console => ({
  ...console,
  log: (...args) => console.log(...shownArgs(json, args)),
  error: (...args) => console.error(...shownArgs(json, args)),
  unsafe: {
    ...console.unsafe,
    log: (...args) => console.unsafe.log(...shownArgs(json, args)),
    error: (...args) => console.unsafe.error(...shownArgs(json, args))
  }
})

/** Runs `effect` with its Console.log/Console.error made visible (`json`: exact JSON). */
export const visible =
  (json: boolean) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Console.consoleWith((console) => Console.withConsole(effect, visibleConsole(console, json)))
