/**
 * Whether bubblewrap can make a sandbox here: `bwrap --version`, then a throwaway sandbox running `true` with every
 * namespace the real ones use. Once per bwrap path and process (every sandbox of a session shares it), and a success
 * is recorded for the boot by a one-shot process (a CLI command), so it does not pay two bwrap starts before its
 * work (issue 45: 20-60 ms of wall time per call on this machine, more under load); a server probes once per process.
 *
 * The record (`sandbox-probe`) lives in the command's workspace's state folder (`StateFile`: outside the workspace,
 * private, never read through a symlink, checksummed, written by this very code; with no state place, no record is
 * kept). It is keyed by
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
import { Effect } from "effect"
import * as StateFile from "../fs/StateFile.js"
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
const recordName = "sandbox-probe"
/** What `bwrap --version` prints; anything else in a record is not believed. */
const versionShape = /^bubblewrap [0-9][0-9A-Za-z.+~-]{0,40}$/

/** The key of a probe of `bwrap` on this boot, by this user; undefined when the boot or the binary cannot be known. */
export const keyOf = (bwrap: string): string | undefined => {
  try {
    const boot = fs.readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim()
    const real = fs.realpathSync(bwrap)
    const st = fs.statSync(real, { bigint: true })
    if (boot === "" || !st.isFile()) return undefined
    return [format, boot, String(process.getuid?.()), real, st.dev, st.ino, st.size, st.mtimeNs, st.ctimeNs, trialArgs.join(" ")].join("\0")
  } catch {
    return undefined
  }
}

/** The version a recorded success of `bwrap` on this boot says, or undefined (no record, another key, anything odd). */
export const recorded = (bwrap: string, workspace: string): string | undefined => {
  try {
    const key = keyOf(bwrap)
    const body = key === undefined ? undefined : StateFile.read(workspace, recordName, format)
    if (body === undefined) return undefined
    const record: unknown = JSON.parse(body)
    if (typeof record !== "object" || record === null) return undefined
    const r = record as Record<string, unknown>
    return r["key"] === key && typeof r["version"] === "string" && versionShape.test(r["version"]) ? r["version"] : undefined
  } catch {
    return undefined
  }
}

/** Records that `bwrap` (printing `version`) made a sandbox on this boot. A record that cannot be written is only a slower next start. */
export const record = (bwrap: string, version: string, workspace: string): void => {
  const key = keyOf(bwrap)
  if (key === undefined || !versionShape.test(version)) return
  try {
    StateFile.write(workspace, recordName, format, JSON.stringify({ key, version }))
  } catch {
    // no state place: probed again next time
  }
}

const probe = (bwrap: string | undefined, workspace: string | undefined): Effect.Effect<Probed> =>
  Effect.gen(function* () {
    if (bwrap === undefined) return { status: { _tag: "Unavailable", reason: "bwrap (bubblewrap) is not installed" }, bwrap: "bwrap" }
    const known = workspace === undefined ? undefined : recorded(bwrap, workspace)
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
    if (workspace !== undefined) record(bwrap, version.stdout.trim(), workspace)
    return { status: { _tag: "Available", kind: "bwrap", version: version.stdout.trim(), limits }, bwrap }
  })

/** One probe per bwrap path and process: every sandbox of a session (bash, git's reads, servers) shares it. */
const probes = new Map<string, Probed>()

/** `workspace`: a one-shot process's, whose state place keeps the record (none: probed, nothing recorded). */
export const probeOnce = (bwrap: string | undefined, workspace?: string): Effect.Effect<Probed> => {
  const known = probes.get(bwrap ?? "")
  return known !== undefined ? Effect.succeed(known) : Effect.tap(probe(bwrap, workspace), (found) => Effect.sync(() => probes.set(bwrap ?? "", found)))
}
