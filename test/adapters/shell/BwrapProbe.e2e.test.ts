/**
 * The sandbox probe's record (src/adapters/shell/BwrapProbe.ts): a success is kept per boot in minicode's state root,
 * so a one-shot CLI call does not start bwrap twice before its work; a failure never is; a record that claims a
 * broken bwrap works only makes the call fail, never run unsandboxed.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import * as BwrapProbe from "../../../src/adapters/shell/BwrapProbe.js"
import { runCli } from "../../support/Cli.js"
import { mustRun, title, unavailable } from "../../support/Sandbox.js"

const bin = path.resolve("dist/bin.js")
const made: Array<string> = []
afterEach(() => {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
})
const temp = (prefix: string) => {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)))
  made.push(dir)
  return dir
}

/** A bwrap first on PATH that logs each start (its first argument) and runs the real one, or fails like a host without user namespaces. */
const fakeBwrap = (works: boolean) => {
  const dir = temp("minicode-probe-bin-")
  const log = path.join(dir, "starts.log")
  const real = ["/usr/bin/bwrap", "/bin/bwrap"].find((p) => fs.existsSync(p)) ?? "bwrap"
  const body = works ? `exec ${real} "$@"` : "echo 'bwrap: no user namespaces' >&2\nexit 1"
  fs.writeFileSync(path.join(dir, "bwrap"), `#!/bin/sh\necho "$1" >> ${log}\n${body}\n`, { mode: 0o755 })
  return { dir, file: path.join(dir, "bwrap"), starts: () => (fs.existsSync(log) ? fs.readFileSync(log, "utf8").split("\n").filter((l) => l !== "") : []) }
}

const setup = (works: boolean) => {
  const state = temp("minicode-probe-state-")
  const ws = temp("minicode-probe-ws-")
  const bwrap = fakeBwrap(works)
  const env = { ...process.env, XDG_STATE_HOME: state, PATH: `${bwrap.dir}:${process.env["PATH"] ?? "/usr/bin:/bin"}` }
  const bash = (command: string) =>
    runCli(bin, ["tool", "bash", JSON.stringify({ command }), "--work-mode", "BUILD", "--policy", "allow-all", "--cwd", ws, "--json"], { env, cwd: ws, timeoutMs: 120_000 })
  return { state, ws, bwrap, env, bash }
}

describe("sandbox probe record", () => {
  it("is believed only when its key is this boot's and this bwrap's, in a private file of ours", () => {
    const state = temp("minicode-probe-state-")
    const env = { XDG_STATE_HOME: state }
    const bwrap = fakeBwrap(true)
    expect(BwrapProbe.recorded(bwrap.file, env)).toBeUndefined()
    BwrapProbe.record(bwrap.file, "bubblewrap 0.8.0", env)
    const file = path.join(state, "minicode", "sandbox-probe.json")
    expect(fs.statSync(file).mode & 0o077).toBe(0)
    expect(fs.statSync(path.join(state, "minicode")).mode & 0o077).toBe(0)
    expect(BwrapProbe.recorded(bwrap.file, env)).toBe("bubblewrap 0.8.0")
    // Another binary (another path), or the same one replaced in place: not this record.
    const other = fakeBwrap(true)
    expect(BwrapProbe.recorded(other.file, env)).toBeUndefined()
    fs.appendFileSync(bwrap.file, "# changed\n")
    expect(BwrapProbe.recorded(bwrap.file, env)).toBeUndefined()
    BwrapProbe.record(bwrap.file, "bubblewrap 0.8.0", env)
    expect(BwrapProbe.recorded(bwrap.file, env)).toBe("bubblewrap 0.8.0")
    // Readable by others, or a symlink to a record elsewhere: not believed.
    fs.chmodSync(file, 0o644)
    expect(BwrapProbe.recorded(bwrap.file, env)).toBeUndefined()
    fs.chmodSync(file, 0o600)
    const elsewhere = path.join(temp("minicode-probe-elsewhere-"), "record.json")
    fs.renameSync(file, elsewhere)
    fs.symlinkSync(elsewhere, file)
    expect(BwrapProbe.recorded(bwrap.file, env)).toBeUndefined()
    fs.rmSync(file)
    fs.renameSync(elsewhere, file)
    // A state root others may write: not believed either.
    fs.chmodSync(path.join(state, "minicode"), 0o777)
    expect(BwrapProbe.recorded(bwrap.file, env)).toBeUndefined()
    fs.chmodSync(path.join(state, "minicode"), 0o700)
    expect(BwrapProbe.recorded(bwrap.file, env)).toBe("bubblewrap 0.8.0")
    // A version that is not what bwrap prints is neither written nor believed.
    BwrapProbe.record(bwrap.file, "bubblewrap 0.8.0\u001b[2J", env)
    expect(BwrapProbe.recorded(bwrap.file, env)).toBe("bubblewrap 0.8.0")
    fs.writeFileSync(file, JSON.stringify({ key: BwrapProbe.keyOf(bwrap.file), version: "x; rm -rf /" }), { mode: 0o600 })
    expect(BwrapProbe.recorded(bwrap.file, env)).toBeUndefined()
  })

  it.skipIf(unavailable !== undefined && !mustRun)(title("lets the second one-shot call skip the probe's two bwrap starts"), async () => {
    const { bwrap, bash, ws } = setup(true)
    const first = await bash("echo one > one.txt")
    expect(first.status, first.stderr).toBe(0)
    // The probe (`--version`, a trial sandbox), then the call's own sandbox(es).
    const before = bwrap.starts().length
    expect(bwrap.starts().slice(0, 2)).toEqual(["--version", "--unshare-user"])
    expect(before).toBeGreaterThanOrEqual(3)
    const second = await bash("echo two > two.txt")
    expect(second.status, second.stderr).toBe(0)
    // Only the call's own sandbox started: no --version, no trial sandbox.
    expect(bwrap.starts().slice(before).filter((a) => a === "--version")).toEqual([])
    expect(bwrap.starts().length - before).toBe(before - 2)
    expect(fs.readFileSync(path.join(ws, "two.txt"), "utf8")).toBe("two\n")
  })

  it("never records a failure: a host without a working bwrap is probed each time (and auto runs bash unsandboxed, as it said)", async () => {
    const { bwrap, bash, state } = setup(false)
    for (const round of [1, 2]) {
      const r = await bash("true")
      expect(r.status, `round ${round}: ${r.stderr}`).toBe(0)
      expect(bwrap.starts().filter((a) => a === "--version").length).toBe(round)
    }
    expect(fs.existsSync(path.join(state, "minicode", "sandbox-probe.json"))).toBe(false)
  })

  it("a record claiming a broken bwrap works makes the call fail closed, never run unsandboxed", async () => {
    const { bwrap, bash, ws, env } = setup(false)
    BwrapProbe.record(bwrap.file, "bubblewrap 0.8.0", env)
    expect(BwrapProbe.recorded(bwrap.file, env)).toBe("bubblewrap 0.8.0")
    const r = await bash("echo ran > ran.txt")
    expect(r.status).not.toBe(0)
    expect(fs.existsSync(path.join(ws, "ran.txt"))).toBe(false)
    expect(bwrap.starts().filter((a) => a === "--version")).toEqual([])
  })
})
