/**
 * The built CLI run as a child process without blocking the test worker: a `spawnSync` that lasts a minute (a cold
 * language server on a loaded machine) starves vitest's worker-to-main channel, which then times out.
 */
import { spawn } from "node:child_process"

export interface CliRun {
  readonly status: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly stderr: string
}

export const runCli = (
  bin: string,
  args: ReadonlyArray<string>,
  options: {
    readonly env?: NodeJS.ProcessEnv
    readonly cwd?: string
    readonly timeoutMs?: number
    readonly input?: string
    /** The child's pid once it runs (to kill it from the test). */
    readonly onPid?: (pid: number) => void
  } = {}
): Promise<CliRun> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { env: options.env ?? process.env, cwd: options.cwd, stdio: ["pipe", "pipe", "pipe"] })
    if (child.pid !== undefined) options.onPid?.(child.pid)
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d))
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d))
    const timer = options.timeoutMs === undefined ? undefined : setTimeout(() => child.kill("SIGKILL"), options.timeoutMs)
    child.on("error", reject)
    child.on("close", (status, signal) => {
      if (timer !== undefined) clearTimeout(timer)
      resolve({ status, signal, stdout, stderr })
    })
    child.stdin.end(options.input ?? "")
  })
