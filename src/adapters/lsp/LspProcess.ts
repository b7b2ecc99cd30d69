/**
 * A language server's process: spawned in its own process group (a server's helpers, like tsserver, share it),
 * never a source of uncaught errors (EPIPE on a dead server's stdin, a failed spawn), and killed group-wide.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { Effect } from "effect"
import { ToolFailed } from "../../domain/core/Errors.js"
import type { Launch } from "../../ports/Launcher.js"

const messageOf = (cause: unknown): string => (cause instanceof Error ? cause.message : String(cause))

const ignore = () => undefined

/** SIGKILL (or another signal) to the whole group; to the process alone when the group is gone or not ours. */
export const signalGroup = (child: ChildProcess, signal: NodeJS.Signals) => {
  const pid = child.pid
  if (pid === undefined) return
  try {
    process.kill(-pid, signal)
  } catch {
    // No such group (every member is gone), or not permitted: the process itself, if it is still there.
    if (child.exitCode === null && child.signalCode === null) child.kill(signal)
  }
}

export const hasExited = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null

/**
 * Kills the server's whole process group: SIGTERM, then SIGKILL once the server has exited or after `graceMs`,
 * whichever is first (helpers that outlive the server, or ignore SIGTERM, are killed too). Never fails, never hangs.
 */
export const killGroup = (child: ChildProcess, graceMs: number) =>
  Effect.async<void>((resume) => {
    if (child.pid === undefined) return resume(Effect.void)
    if (hasExited(child)) {
      signalGroup(child, "SIGKILL")
      return resume(Effect.void)
    }
    let done = false
    const finish = () => {
      if (done) return
      done = true
      clearTimeout(timer)
      child.off("exit", finish)
      signalGroup(child, "SIGKILL")
      resume(Effect.void)
    }
    const timer = setTimeout(finish, graceMs)
    child.once("exit", finish)
    signalGroup(child, "SIGTERM")
  })

/**
 * Spawns `launch` in `cwd` in a new process group, with piped stdio; fails (command missing, not executable)
 * before any protocol is spoken. Every stream gets an error handler at once: a server that exits at start makes
 * our writes fail with EPIPE, which must be a failed request, never a crash. `onStderr` sees its stderr.
 */
export const spawnServer = (name: string, cwd: string, launch: Launch, onStderr: (chunk: Buffer) => void) =>
  Effect.async<ChildProcess, ToolFailed>((resume) => {
    const failed = (reason: string) => new ToolFailed({ tool: `language server ${name}`, reason })
    const command = launch.argv[0] ?? ""
    let child: ChildProcess
    try {
      child = spawn(command, [...launch.argv.slice(1)], { cwd, env: { ...launch.env }, stdio: ["pipe", "pipe", "pipe"], detached: true })
    } catch (cause) {
      return resume(Effect.fail(failed(`cannot start ${command}: ${messageOf(cause)}`)))
    }
    child.stdin?.on("error", ignore)
    child.stdout?.on("error", ignore)
    child.stderr?.on("error", ignore)
    child.stderr?.on("data", onStderr)
    const onError = (e: NodeJS.ErrnoException) =>
      resume(
        Effect.fail(
          failed(
            e.code === "ENOENT"
              ? `${command} was not found (is it installed and on PATH? minicode config lsp list shows the configuration)`
              : `cannot start ${command}: ${e.message}`
          )
        )
      )
    child.once("error", onError)
    child.once("spawn", () => {
      child.off("error", onError)
      child.on("error", ignore)
      resume(Effect.succeed(child))
    })
  })

/** Succeeds once the process has exited (at once if it has); interruptible. */
export const waitExit = (child: ChildProcess) =>
  Effect.async<void>((resume) => {
    if (hasExited(child)) return resume(Effect.void)
    const done = () => resume(Effect.void)
    child.once("exit", done)
    return Effect.sync(() => void child.off("exit", done))
  })
