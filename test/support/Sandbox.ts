/**
 * Whether the real sandbox can run here, decided before the suites are declared, so a suite that needs it is
 * reported skipped with the reason, never passed. In CI (CI=true) a missing sandbox is a failure, not a skip.
 */
import { spawnSync } from "node:child_process"

const probe = (): string | undefined => {
  const version = spawnSync("bwrap", ["--version"], { encoding: "utf8" })
  if (version.error !== undefined || version.status !== 0) return "bwrap (bubblewrap) is not installed"
  const trial = spawnSync(
    "bwrap",
    ["--unshare-user", "--unshare-pid", "--unshare-net", "--cap-drop", "ALL", "--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev", "true"],
    { encoding: "utf8" }
  )
  return trial.status === 0 ? undefined : `bwrap cannot create a user namespace here: ${trial.stderr.trim()}`
}

/** Undefined when the sandbox is usable; otherwise why not. */
export const unavailable: string | undefined = probe()

/** In CI a missing sandbox fails the run instead of skipping. */
export const mustRun = process.env["CI"] === "true"

export const title = (name: string) => (unavailable === undefined ? name : `${name} [skipped: ${unavailable}]`)
