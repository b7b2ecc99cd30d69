/**
 * What a running `tools/call` tells the client while it runs (the `Progress` port, provided per call): with a
 * `progressToken`, `notifications/progress` every second (or as `MINICODE_PROGRESS_MS` says) until the call ends,
 * carrying the tool's latest note (the last line of a command's output, grep's files searched, a language server
 * loading its project) or how long it has run; and, with or without one,
 * log messages (`notifications/message`, filtered by the client's `logging/setLevel`). Progress never replaces the
 * result: the call's own answer follows as always.
 */
import { Clock, Effect } from "effect"
import { type LogLevel, Progress } from "../ports/Progress.js"

export interface Sink {
  /** Sends one notifications/progress (`progress` increases with each). */
  readonly progress: (progress: number, message: string) => Promise<void>
  readonly log: (level: LogLevel, message: string) => void
}

export const intervalMs = 1_000

/** `MINICODE_PROGRESS_MS`'s value: whole milliseconds from 10 to 60000; anything else is undefined (the default, 1 s). */
export const parseInterval = (text: string | undefined): number | undefined =>
  text !== undefined && /^[0-9]{2,5}$/.test(text) && Number(text) >= 10 && Number(text) <= 60_000 ? Number(text) : undefined

export const withProgress = <A, E, R>(
  effect: Effect.Effect<A, E, R>,
  token: string | number | undefined,
  sink: Sink,
  every: number = intervalMs
): Effect.Effect<A, E, R> => {
  if (token === undefined) return Effect.provideService(effect, Progress, { watched: false, note: () => undefined, log: sink.log })
  return Effect.gen(function* () {
    const state = { latest: "", sent: 0 }
    const started = yield* Clock.currentTimeMillis
    const tick = Effect.flatMap(Clock.currentTimeMillis, (now) => {
      state.sent++
      const message = state.latest !== "" ? state.latest : `running (${Math.round((now - started) / 1000)} s)`
      return Effect.promise(() => sink.progress(state.sent, message).catch(() => undefined))
    })
    const ticker = Effect.forever(Effect.zipRight(Effect.sleep(every), tick))
    const listened = Effect.provideService(effect, Progress, {
      watched: true,
      note: (message) => {
        state.latest = message
      },
      log: sink.log
    })
    return yield* Effect.scoped(Effect.zipRight(Effect.forkScoped(ticker), listened))
  })
}
