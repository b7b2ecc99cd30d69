/**
 * A child on a real pseudo-terminal (python3's `pty`), as a person at a terminal runs it: stdin, stdout and stderr
 * are the terminal, and it is the controlling terminal (/dev/tty). `steps` are typed in order, each once `after`
 * has appeared in what the terminal shows. Run without blocking the test worker.
 */
import { spawn } from "node:child_process"

export interface Step {
  /** Type `send` once this text has been shown (after the previous step's). */
  readonly after: string
  readonly send: string
}

export interface PtyRun {
  /** Everything the terminal showed (echo included), as bytes decoded as UTF-8. */
  readonly screen: string
  /** Whether the child ended by itself before the time-out (else it was killed). */
  readonly exited: boolean
  readonly status: number | null
}

const driver = String.raw`
import json, os, pty, select, sys, time
spec = json.loads(sys.argv[1])
pid, fd = pty.fork()
if pid == 0:
    os.chdir(spec["cwd"])
    os.execvpe(spec["argv"][0], spec["argv"], spec["env"])
out = b""
seen = 0
steps = spec["steps"]
deadline = time.time() + spec["timeoutMs"] / 1000.0
status = None
while time.time() < deadline:
    r, _, _ = select.select([fd], [], [], 0.05)
    if r:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            chunk = b""
        out += chunk
    if steps and steps[0]["after"].encode() in out[seen:]:
        seen = out.index(steps[0]["after"].encode(), seen) + len(steps[0]["after"].encode())
        time.sleep(0.1)
        os.write(fd, steps[0]["send"].encode())
        steps = steps[1:]
    done, code = os.waitpid(pid, os.WNOHANG)
    if done:
        status = code
        while True:
            r, _, _ = select.select([fd], [], [], 0.05)
            if not r:
                break
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
        break
exited = status is not None
if not exited:
    os.kill(pid, 9)
    os.waitpid(pid, 0)
sys.stdout.write(json.dumps({"screen": out.decode("utf-8", "replace"), "exited": exited, "status": os.waitstatus_to_exitcode(status) if exited else None}))
`

export const onPty = (
  argv: ReadonlyArray<string>,
  options: { readonly cwd: string; readonly steps?: ReadonlyArray<Step>; readonly timeoutMs?: number; readonly env?: NodeJS.ProcessEnv }
): Promise<PtyRun> =>
  new Promise((resolve, reject) => {
    const spec = { argv, cwd: options.cwd, steps: options.steps ?? [], timeoutMs: options.timeoutMs ?? 30_000, env: { ...(options.env ?? process.env), TERM: "xterm" } }
    const child = spawn("python3", ["-c", driver, JSON.stringify(spec)], { stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d))
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d))
    child.on("error", reject)
    child.on("close", () => {
      try {
        resolve(JSON.parse(stdout) as PtyRun)
      } catch {
        reject(new Error(`pty driver failed: ${stderr}`))
      }
    })
  })
