/**
 * `doctor`'s verdict on a probed server, pure: a server that answers within the patience "answers"; one that
 * answers within the longer second chance "answers slowly (N s)" and still counts as working; one that fails (it
 * exited, refused, answered with an error) is told at once with why; one silent through the second chance "does not
 * answer" (a hung server). A slow server is no longer called dead after 10 s.
 */

export interface ProbeTimes {
  /** How long an answer may take and still be an ordinary one. */
  readonly patienceMs: number
  /** How long the probe waits in all before it calls the server silent. */
  readonly secondChanceMs: number
}

export const defaultTimes: ProbeTimes = { patienceMs: 10_000, secondChanceMs: 60_000 }

/**
 * The times from `MINICODE_DOCTOR_PROBE_MS` (whole milliseconds, 100 to 600000: the patience; the second chance is
 * six times it), else the defaults; other values are ignored.
 */
export const timesFrom = (raw: string | undefined): ProbeTimes => {
  if (raw === undefined || !/^[0-9]{3,6}$/.test(raw)) return defaultTimes
  const ms = Number(raw)
  return ms >= 100 && ms <= 600_000 ? { patienceMs: ms, secondChanceMs: ms * 6 } : defaultTimes
}

export type Outcome =
  /** The call came back (`ok`: not an error result). */
  | { readonly _tag: "Answered"; readonly millis: number; readonly ok: boolean; readonly detail: string }
  /** The call failed before any answer (the server exited, refused to start, the connection broke). */
  | { readonly _tag: "Failed"; readonly millis: number; readonly detail: string }
  /** Nothing came back within the second chance. */
  | { readonly _tag: "Silent"; readonly millis: number }

export interface Verdict {
  readonly ok: boolean
  readonly slow: boolean
  /** What follows the server's name on doctor's line. */
  readonly says: string
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`

export const verdict = (outcome: Outcome, times: ProbeTimes): Verdict => {
  switch (outcome._tag) {
    case "Answered":
      if (!outcome.ok) return { ok: false, slow: false, says: `DOES NOT ANSWER: ${outcome.detail}` }
      return outcome.millis > times.patienceMs
        ? { ok: true, slow: true, says: `answers slowly (${seconds(outcome.millis)}; an ordinary answer takes under ${seconds(times.patienceMs)})` }
        : { ok: true, slow: false, says: `answers (${outcome.millis} ms)` }
    case "Failed":
      return { ok: false, slow: false, says: `DOES NOT ANSWER: ${outcome.detail}` }
    case "Silent":
      return { ok: false, slow: false, says: `DOES NOT ANSWER: no answer within ${seconds(times.secondChanceMs)} (it is running but silent, or hung)` }
  }
}
