/**
 * A Shell with scripted results: each call is matched (command and stdin) against the script, recorded, and
 * answered with the scripted output under the spec's own caps and deadline, as NodeShell would (output cut at
 * `maxOutputBytes` per stream with the same marker; a run scripted to last longer than `timeoutMs` is killed).
 * A command the script does not know fails with a ShellError naming it. Fresh state (the call log) per build.
 */
import { Effect, Layer, Ref } from "effect"
import { type ProcessResult, type ProcessSpec, Shell, ShellError, type ShellShape } from "../../ports/Shell.js"

export interface Scripted {
  readonly command: string | ReadonlyArray<string>
  /** Matches only a call with this stdin (any stdin when omitted). */
  readonly stdin?: string
  readonly exitCode?: number
  readonly stdout?: string
  readonly stderr?: string
  /** How long the scripted run takes; longer than the spec's timeoutMs means killed by the deadline. */
  readonly durationMs?: number
  /** Output computed from the call (for `cat`-like scripts). */
  readonly answer?: (spec: ProcessSpec) => { readonly stdout?: string; readonly stderr?: string; readonly exitCode?: number }
}

const enc = new TextEncoder()
const dec = new TextDecoder()

const cap = (text: string, max: number): { readonly text: string; readonly dropped: number } => {
  const bytes = enc.encode(text)
  if (bytes.byteLength <= max) return { text, dropped: 0 }
  const dropped = bytes.byteLength - Math.max(max, 0)
  return { text: `${dec.decode(bytes.subarray(0, Math.max(max, 0)))}\n[truncated: ${dropped} more bytes]`, dropped }
}

const sameCommand = (a: ProcessSpec["command"], b: ProcessSpec["command"]): boolean =>
  typeof a === "string" || typeof b === "string" ? a === b : a.length === b.length && a.every((x, i) => x === b[i])

const answer = (entry: Scripted, spec: ProcessSpec): ProcessResult => {
  const duration = entry.durationMs ?? 0
  if (duration > spec.timeoutMs) {
    return { exitCode: null, signal: "SIGKILL", stdout: "", stderr: "", truncated: false, timedOut: true, durationMs: spec.timeoutMs }
  }
  const computed = entry.answer?.(spec) ?? {}
  const out = cap(computed.stdout ?? entry.stdout ?? "", spec.maxOutputBytes)
  const err = cap(computed.stderr ?? entry.stderr ?? "", spec.maxOutputBytes)
  return {
    exitCode: computed.exitCode ?? entry.exitCode ?? 0,
    signal: null,
    stdout: out.text,
    stderr: err.text,
    truncated: out.dropped > 0 || err.dropped > 0,
    timedOut: false,
    durationMs: duration
  }
}

export interface MemoryShell extends ShellShape {
  /** Every spec run so far, in order. */
  readonly calls: Effect.Effect<ReadonlyArray<ProcessSpec>>
}

export const make = (script: ReadonlyArray<Scripted>) =>
  Effect.map(Ref.make<ReadonlyArray<ProcessSpec>>([]), (log): MemoryShell => ({
    calls: Ref.get(log),
    run: (spec) =>
      Effect.flatMap(Ref.update(log, (calls) => [...calls, spec]), () => {
        const entry = script.find((s) => sameCommand(s.command, spec.command) && (s.stdin === undefined || s.stdin === spec.stdin))
        return entry === undefined
          ? Effect.fail(new ShellError({ reason: `no scripted result for ${JSON.stringify(spec.command)}` }))
          : Effect.succeed(answer(entry, spec))
      })
  }))

export const layer = (script: ReadonlyArray<Scripted>) => Layer.effect(Shell, Effect.map(make(script), (s) => Shell.of({ run: s.run })))
