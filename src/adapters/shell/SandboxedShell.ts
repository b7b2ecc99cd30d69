/**
 * The Shell port with every process inside the OS sandbox: the command is wrapped by the Sandbox port (bubblewrap)
 * and run with NodeShell's machinery (own process group, timeout, caps, the group killed at the end; bwrap's
 * `--die-with-parent` and PID namespace take everything inside with it).
 *
 * Mode `bwrap`: sandbox or refuse. Mode `auto`: when the probe found no usable sandbox, commands run unsandboxed
 * (doctor and `mcp serve` say so from the port's status). The workspace is the session's root.
 */
import { Effect, Layer } from "effect"
import type { Limits } from "../../domain/sandbox/SandboxProfile.js"
import { Sandbox } from "../../ports/Sandbox.js"
import { Session } from "../../ports/Session.js"
import { type ProcessResult, Shell, ShellError, type ProcessSpec } from "../../ports/Shell.js"
import * as Progress from "../../ports/Progress.js"
import * as Exposed from "./Exposed.js"
import * as NodeShell from "./NodeShell.js"

export interface Options {
  /** `bwrap`: refuse to run when no sandbox is available. `auto`: run unsandboxed then. */
  readonly mode: "auto" | "bwrap"
  readonly unrestricted: boolean
  readonly limits?: Limits | undefined
  /** The workspace read-write (default, bash) or read-only (git's reads). */
  readonly writable?: boolean
  /**
   * bash's shell: when commands run without a sandbox (mode `auto`, none found), the caller is told once per shell
   * (a warning log message; `mcp serve` sends it as notifications/message). Git's reads are not bash: they say nothing.
   */
  readonly warnUnsandboxed?: boolean
  /** The git tools' runner: object stores shown (`WrapRequest.gitTool`). */
  readonly gitTool?: boolean
}

/**
 * Tells whoever runs the call, the first time only (per value made), that bash runs without a sandbox and why:
 * a warning log message (`mcp serve`: notifications/message). For `auto` finding none, and for `sandbox: none`.
 */
export const noticeOnce = () => {
  let told = false
  return (reason: string): Effect.Effect<void> =>
    Effect.map(Progress.current, (p) => {
      if (told) return
      told = true
      p.log("warning", `bash runs without a sandbox: ${reason} (--sandbox bwrap refuses bash instead)`)
    })
}

/** A shell that runs unsandboxed by configuration (`sandbox: none`), saying so once. */
export const announced = (reason: string) =>
  Layer.effect(
    Shell,
    Effect.map(Shell, (inner) => {
      const notice = noticeOnce()
      return Shell.of({ run: (spec) => Effect.zipRight(notice(reason), inner.run(spec)) })
    })
  )

/**
 * Streamed output let out every 100 ms, each time after the sandbox's masks are found whole (`Wrapped.broken`): what
 * the command printed before a check was printed after whatever broke a mask before it, so none of it slips out.
 */
export const gated = (forward: (chunk: string) => void, broken: () => string | undefined) => {
  let held: Array<string> = []
  let open = true
  const flush = () => {
    if (!open || held.length === 0) return
    if (broken() !== undefined) {
      open = false
      held = []
      return
    }
    const out = held.join("")
    held = []
    forward(out)
  }
  const timer = setInterval(flush, 100)
  timer.unref()
  return {
    push: (chunk: string) => {
      if (open) held.push(chunk)
    },
    flush,
    stop: () => clearInterval(timer)
  }
}

/** A result whose output may hold a protected file's content: none of it is shown. */
const withheld = (r: ProcessResult, why: string, list: string): ProcessResult => ({
  ...r,
  stdout: "",
  stderr: `[minicode: the command's output is withheld: ${why}, which the sandbox could no longer hide from it; what it wrote meanwhile is protected from now on (listed in ${list}: remove a path there once you have checked it); run it again]`,
  truncated: false
})

export const make = (options: Options) =>
  Effect.gen(function* () {
    const sandbox = yield* Sandbox
    const session = yield* Session
    const warnOnce = options.warnUnsandboxed === true ? noticeOnce() : () => Effect.void
    const run = (spec: ProcessSpec) => {
      if (sandbox.status._tag === "Unavailable") {
        return options.mode === "bwrap"
          ? Effect.fail(new ShellError({ reason: `sandbox required (sandbox: bwrap) but unavailable: ${sandbox.status.reason}` }))
          : Effect.zipRight(warnOnce(sandbox.status.reason), NodeShell.run(spec, options))
      }
      return Effect.scoped(
        sandbox
          .wrap({
            command: NodeShell.argvOf(spec.command),
            workspace: session.root,
            cwd: spec.cwd,
            writable: options.writable ?? true,
            ...(options.gitTool === true ? { gitTool: true } : {}),
            network: spec.network === true,
            ...(spec.readOnly === undefined ? {} : { readOnly: spec.readOnly }),
            ...(spec.hideGitObjects === undefined ? {} : { hideGitObjects: spec.hideGitObjects }),
            limits: options.limits,
            env: NodeShell.envOf(spec, options)
          })
          .pipe(
            Effect.mapError((e) => new ShellError({ reason: e.message })),
            Effect.flatMap((wrapped) => {
              const broken = wrapped.broken ?? (() => undefined)
              const gate = spec.onOutput === undefined ? undefined : gated(spec.onOutput, broken)
              const startedMs = Date.now()
              // A git control's bind broken stops the command at once (its process group killed as on interruption): the
              // control is open to it from then on, to write what the user's git would run meanwhile (`Wrapped.whenBroken`).
              const stopped = Effect.async<ProcessResult>((resume) => {
                const off = wrapped.whenBroken?.(() =>
                  resume(Effect.succeed({ exitCode: null, signal: "SIGKILL", stdout: "", stderr: "", truncated: false, timedOut: false, durationMs: Date.now() - startedMs }))
                )
                return Effect.sync(() => off?.())
              })
              return NodeShell.spawnExact({
                argv: wrapped.argv,
                env: wrapped.env,
                cwd: spec.cwd,
                timeoutMs: spec.timeoutMs,
                maxOutputBytes: spec.maxOutputBytes,
                stdin: spec.stdin,
                ...(gate === undefined ? {} : { onOutput: gate.push })
              }).pipe(
                Effect.raceFirst(stopped),
                Effect.map((r) => {
                  gate?.flush()
                  const why = broken()
                  return why === undefined ? r : withheld(r, why, Exposed.where(session.root))
                }),
                Effect.ensuring(Effect.sync(() => gate?.stop()))
              )
            })
          )
      )
    }
    return Shell.of({ run: Effect.fn("SandboxedShell.run")(run) })
  })

export const layer = (options: Options) => Layer.effect(Shell, make(options))
