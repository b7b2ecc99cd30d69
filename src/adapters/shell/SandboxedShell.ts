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
import { Shell, ShellError, type ProcessSpec } from "../../ports/Shell.js"
import * as Progress from "../../ports/Progress.js"
import * as NodeShell from "./NodeShell.js"

export interface Options {
  /** `bwrap`: refuse to run when no sandbox is available. `auto`: run unsandboxed then. */
  readonly mode: "auto" | "bwrap"
  readonly unrestricted: boolean
  readonly limits?: Limits | undefined
  /** The workspace read-write (default, bash) or read-only (git's reads). */
  readonly writable?: boolean
  /** The git tools' runner: object stores shown (`WrapRequest.gitTool`). */
  readonly gitTool?: boolean
}

export const make = (options: Options) =>
  Effect.gen(function* () {
    const sandbox = yield* Sandbox
    const session = yield* Session
    const run = (spec: ProcessSpec) => {
      if (sandbox.status._tag === "Unavailable") {
        return options.mode === "bwrap"
          ? Effect.fail(new ShellError({ reason: `sandbox required (sandbox: bwrap) but unavailable: ${sandbox.status.reason}` }))
          : Effect.zipRight(
              Effect.map(Progress.current, (p) => p.log("warning", `bash runs without a sandbox: ${sandbox.status._tag === "Unavailable" ? sandbox.status.reason : "unavailable"}`)),
              NodeShell.run(spec, options)
            )
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
            Effect.flatMap((wrapped) =>
              NodeShell.spawnExact({
                argv: wrapped.argv,
                env: wrapped.env,
                cwd: spec.cwd,
                timeoutMs: spec.timeoutMs,
                maxOutputBytes: spec.maxOutputBytes,
                stdin: spec.stdin,
                onOutput: spec.onOutput
              })
            )
          )
      )
    }
    return Shell.of({ run: Effect.fn("SandboxedShell.run")(run) })
  })

export const layer = (options: Options) => Layer.effect(Shell, make(options))
