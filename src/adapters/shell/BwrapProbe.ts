/**
 * Whether bubblewrap can make a sandbox here: `bwrap --version`, then a throwaway sandbox running `true` with every
 * namespace the real ones use. Once per bwrap path and process (every sandbox of a session shares it), and a success
 * is recorded for the boot, so a one-shot CLI call does not pay two bwrap starts before its work (issue 45: 20-60 ms
 * of wall time per call on this machine, more under load).
 *
 * The record (`sandbox-probe.json`) lives in minicode's state root (`$XDG_STATE_HOME/minicode`, else
 * `~/.local/state/minicode`, else `$XDG_RUNTIME_DIR/minicode/state`: `StateHome`), never in a workspace, read only
 * through a real private folder of ours and a private regular file of ours (never through a symlink). It is keyed by
 * the boot (`/proc/sys/kernel/random/boot_id`), the user, and the bwrap binary (its canonical path, device, inode,
 * size, modification and change times): a new boot, another bwrap or a bwrap replaced in place probes again.
 *
 * Only a success is recorded, never a failure: `--sandbox auto` runs bash unsandboxed when the probe fails, so a
 * record saying "bwrap does not work" would be a way to turn the sandbox off. A record saying "it works" when it
 * does not (planted, or the kernel's user namespaces turned off since) only means the call's own bwrap fails and
 * the call fails with it: closed, never unsandboxed.
 */
import { execFile } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect } from "effect"
import * as StateHomePlaces from "../../domain/core/StateHome.js"
import type { SandboxStatus } from "../../ports/Sandbox.js"

export interface Probed {
  readonly status: SandboxStatus
  readonly bwrap: string
}

const exec = (file: string, args: ReadonlyArray<string>, timeoutMs: number) =>
  Effect.async<{ readonly code: number; readonly stdout: string; readonly stderr: string }>((resume) => {
    const child = execFile(file, [...args], { timeout: timeoutMs, env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin" } }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === "number" ? error.code : 127
      resume(Effect.succeed({ code, stdout: String(stdout), stderr: String(stderr || (error?.message ?? "")) }))
    })
    return Effect.sync(() => child.kill("SIGKILL"))
  })

/** The throwaway sandbox's arguments (part of the record's key: a different trial is a different probe). */
export const trialArgs: ReadonlyArray<string> = [
  "--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-net", "--die-with-parent", "--cap-drop", "ALL",
  "--ro-bind", "/", "/", "--proc", "/proc", "--ro-bind", "/dev/null", "/proc/1/environ", "--dev", "/dev", "--tmpfs", "/tmp", "--", "true"
]

const format = "minicode-bwrap-probe/1"
const recordName = "sandbox-probe.json"
/** What `bwrap --version` prints; anything else in a record is not believed. */
const versionShape = /^bubblewrap [0-9][0-9A-Za-z.+~-]{0,40}$/
const uid = process.getuid?.()

const home = (): string | undefined => {
  try {
    return os.homedir()
  } catch {
    return undefined
  }
}

/** A real folder of ours that nobody else may write (never a symlink). */
const privateFolder = (dir: string): boolean => {
  const st = fs.lstatSync(dir, { throwIfNoEntry: false })
  return st !== undefined && st.isDirectory() && (uid === undefined || st.uid === uid) && (st.mode & 0o077) === 0
}

/** The state root the record lives in: the first place of `StateHome.candidates` that is (or is made) a private folder of ours. */
export const recordFolder = (env: NodeJS.ProcessEnv = process.env, make = false): string | undefined => {
  for (const candidate of StateHomePlaces.candidates(env, home())) {
    if (make && fs.lstatSync(candidate, { throwIfNoEntry: false }) === undefined) {
      try {
        fs.mkdirSync(candidate, { recursive: true, mode: 0o700 })
      } catch {
        continue
      }
    }
    if (privateFolder(candidate)) return candidate
  }
  return undefined
}

/** The key of a probe of `bwrap` on this boot, by this user; undefined when the boot or the binary cannot be known. */
export const keyOf = (bwrap: string): string | undefined => {
  try {
    const boot = fs.readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim()
    const real = fs.realpathSync(bwrap)
    const st = fs.statSync(real, { bigint: true })
    if (boot === "" || !st.isFile()) return undefined
    return [format, boot, String(uid), real, st.dev, st.ino, st.size, st.mtimeNs, st.ctimeNs, trialArgs.join(" ")].join("\0")
  } catch {
    return undefined
  }
}

/** The version a recorded success of `bwrap` on this boot says, or undefined (no record, another key, anything odd). */
export const recorded = (bwrap: string, env: NodeJS.ProcessEnv = process.env): string | undefined => {
  try {
    const key = keyOf(bwrap)
    const dir = recordFolder(env)
    if (key === undefined || dir === undefined) return undefined
    const fd = fs.openSync(path.join(dir, recordName), fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK)
    let text: string
    try {
      const st = fs.fstatSync(fd)
      if (!st.isFile() || (uid !== undefined && st.uid !== uid) || (st.mode & 0o077) !== 0 || st.size > 64 * 1024) return undefined
      text = fs.readFileSync(fd, "utf8")
    } finally {
      fs.closeSync(fd)
    }
    const record: unknown = JSON.parse(text)
    if (typeof record !== "object" || record === null) return undefined
    const r = record as Record<string, unknown>
    return r["key"] === key && typeof r["version"] === "string" && versionShape.test(r["version"]) ? r["version"] : undefined
  } catch {
    return undefined
  }
}

/** Records that `bwrap` (printing `version`) made a sandbox on this boot. A record that cannot be written is only a slower next start. */
export const record = (bwrap: string, version: string, env: NodeJS.ProcessEnv = process.env): void => {
  const key = keyOf(bwrap)
  if (key === undefined || !versionShape.test(version)) return
  const dir = recordFolder(env, true)
  if (dir === undefined) return
  const tmp = path.join(dir, `${recordName}.${process.pid}.tmp`)
  try {
    const fd = fs.openSync(tmp, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_TRUNC | fs.constants.O_NOFOLLOW, 0o600)
    try {
      fs.writeSync(fd, JSON.stringify({ key, version }))
    } finally {
      fs.closeSync(fd)
    }
    fs.renameSync(tmp, path.join(dir, recordName))
  } catch {
    try {
      fs.rmSync(tmp, { force: true })
    } catch {
      // nothing to clean up
    }
  }
}

const probe = (bwrap: string | undefined): Effect.Effect<Probed> =>
  Effect.gen(function* () {
    if (bwrap === undefined) return { status: { _tag: "Unavailable", reason: "bwrap (bubblewrap) is not installed" }, bwrap: "bwrap" }
    const known = recorded(bwrap)
    const limits = { prlimit: false, pidsCgroup: false, processLimit: false }
    if (known !== undefined) return { status: { _tag: "Available", kind: "bwrap", version: known, limits }, bwrap }
    const version = yield* exec(bwrap, ["--version"], 5_000)
    if (version.code !== 0) return { status: { _tag: "Unavailable", reason: `${bwrap} --version failed: ${version.stderr.trim()}` }, bwrap }
    const trial = yield* exec(bwrap, trialArgs, 10_000)
    if (trial.code !== 0) {
      return {
        status: { _tag: "Unavailable", reason: `bwrap cannot create a sandbox here (user namespaces unavailable?): ${trial.stderr.trim() || `exit ${trial.code}`}` },
        bwrap
      }
    }
    record(bwrap, version.stdout.trim())
    return { status: { _tag: "Available", kind: "bwrap", version: version.stdout.trim(), limits }, bwrap }
  })

/** One probe per bwrap path and process: every sandbox of a session (bash, git's reads, servers) shares it. */
const probes = new Map<string, Probed>()

export const probeOnce = (bwrap: string | undefined): Effect.Effect<Probed> => {
  const known = probes.get(bwrap ?? "")
  return known !== undefined ? Effect.succeed(known) : Effect.tap(probe(bwrap), (found) => Effect.sync(() => probes.set(bwrap ?? "", found)))
}
