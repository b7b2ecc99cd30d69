/**
 * Shell on node:child_process. Each process gets its own process group; a timeout or an interruption kills the
 * whole group, and so does the end of the call (nothing is left running in the background). Output is captured
 * up to a byte cap per stream; the environment is scrubbed here, at the edge, from this process's own.
 */
import { spawn } from "node:child_process"
import { Effect, Layer } from "effect"
import * as Env from "../../domain/sandbox/Env.js"
import { Shell, ShellError, type ProcessResult, type ProcessSpec } from "../../ports/Shell.js"

const killGroup = (pid: number | undefined, signal: NodeJS.Signals) => {
  if (pid === undefined) return
  try {
    process.kill(-pid, signal)
  } catch {
    // already gone
  }
}

class Capture {
  private chunks: Array<Buffer> = []
  private size = 0
  dropped = 0
  constructor(private readonly cap: number) {}
  push(chunk: Buffer) {
    const room = this.cap - this.size
    if (room > 0) {
      const kept = chunk.subarray(0, room)
      this.chunks.push(kept)
      this.size += kept.byteLength
    }
    this.dropped += Math.max(0, chunk.byteLength - Math.max(room, 0))
  }
  text() {
    const body = Buffer.concat(this.chunks).toString("utf8")
    return this.dropped > 0 ? `${body}\n[truncated: ${this.dropped} more bytes]` : body
  }
}

/** The argv a spec runs: `bash -c` for a string. */
export const argvOf = (command: ProcessSpec["command"]): ReadonlyArray<string> =>
  typeof command === "string" ? ["bash", "-c", command] : command

/** The environment a spec runs with: this process's, scrubbed, then the spec's own. */
export const envOf = (spec: ProcessSpec, options: { readonly unrestricted: boolean }): Record<string, string> => ({
  ...Env.scrub(process.env, options),
  ...spec.env
})

/** One exact process: argv and environment as given, own process group, timeout, caps, the group killed at the end. */
export interface Exact {
  readonly argv: ReadonlyArray<string>
  readonly env: Readonly<Record<string, string>>
  readonly cwd: string
  readonly timeoutMs: number
  readonly maxOutputBytes: number
  readonly stdin?: string | undefined
  readonly onOutput?: ((chunk: string) => void) | undefined
}

export const run = (spec: ProcessSpec, options: { readonly unrestricted: boolean }) =>
  spawnExact({
    argv: argvOf(spec.command),
    env: envOf(spec, options),
    cwd: spec.cwd,
    timeoutMs: spec.timeoutMs,
    maxOutputBytes: spec.maxOutputBytes,
    stdin: spec.stdin,
    onOutput: spec.onOutput
  })

export const spawnExact = (spec: Exact) =>
  Effect.async<ProcessResult, ShellError>((resume) => {
    const started = Date.now()
    const file = spec.argv[0] ?? ""
    const args = spec.argv.slice(1)
    const child = spawn(file, args, { cwd: spec.cwd, env: spec.env, detached: true, stdio: [spec.stdin === undefined ? "ignore" : "pipe", "pipe", "pipe"] })
    const out = new Capture(spec.maxOutputBytes)
    const err = new Capture(spec.maxOutputBytes)
    const seen = spec.onOutput
    child.stdout?.on("data", (c: Buffer) => {
      out.push(c)
      seen?.(c.toString("utf8"))
    })
    child.stderr?.on("data", (c: Buffer) => {
      err.push(c)
      seen?.(c.toString("utf8"))
    })
    if (spec.stdin !== undefined) child.stdin?.end(spec.stdin)
    let timedOut = false
    let settled = false
    const timer = setTimeout(() => {
      timedOut = true
      killGroup(child.pid, "SIGKILL")
    }, spec.timeoutMs)
    const finish = (result: ProcessResult | ShellError) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      // Whatever the command left behind in its group goes with it.
      killGroup(child.pid, "SIGKILL")
      resume(result instanceof ShellError ? Effect.fail(result) : Effect.succeed(result))
    }
    child.once("error", (cause) => finish(new ShellError({ reason: `cannot start ${file}: ${cause.message}` })))
    let exited: { readonly code: number | null; readonly signal: NodeJS.Signals | null } | undefined
    let open = 2
    const done = () => {
      if (exited === undefined) return
      finish({
        exitCode: exited.code,
        signal: exited.signal,
        stdout: out.text(),
        stderr: err.text(),
        truncated: out.dropped > 0 || err.dropped > 0,
        timedOut,
        durationMs: Date.now() - started
      })
    }
    const closed = () => {
      if (--open === 0) done()
    }
    child.stdout?.once("close", closed)
    child.stderr?.once("close", closed)
    child.once("exit", (code, signal) => {
      exited = { code, signal }
      // Pipes still held open by a background grandchild: do not wait for it (it is killed with the group).
      if (open === 0) done()
      else setTimeout(done, 50)
    })
    return Effect.sync(() => {
      settled = true
      clearTimeout(timer)
      killGroup(child.pid, "SIGKILL")
    })
  })

export const make = (options: { readonly unrestricted: boolean }) =>
  Effect.succeed(Shell.of({ run: (spec) => run(spec, options) }))

export const layer = (options: { readonly unrestricted: boolean } = { unrestricted: false }) =>
  Layer.effect(Shell, make(options))
