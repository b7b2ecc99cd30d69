/**
 * The sandbox probe's record (src/adapters/shell/BwrapProbe.ts): a success is kept per boot in the workspace's state folder,
 * so a one-shot CLI call does not start bwrap twice before its work; a failure never is; a record that claims a
 * broken bwrap works only makes the call fail, never run unsandboxed.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import * as StateHome from "../../../src/adapters/fs/StateHome.js"
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

/**
 * A bwrap first on PATH that logs each start (its first argument) and runs the real one, or fails like a host
 * without user namespaces: from the start (`works` false), or once `breakIt` is called (the binary itself unchanged).
 */
const fakeBwrap = (works: boolean) => {
  const dir = temp("minicode-probe-bin-")
  const log = path.join(dir, "starts.log")
  const broken = path.join(dir, "broken")
  if (!works) fs.writeFileSync(broken, "")
  const real = ["/usr/bin/bwrap", "/bin/bwrap"].find((p) => fs.existsSync(p)) ?? "bwrap"
  const body = `if [ -e ${broken} ]; then echo 'bwrap: no user namespaces' >&2; exit 1; fi\nexec ${real} "$@"`
  fs.writeFileSync(path.join(dir, "bwrap"), `#!/bin/sh\necho "$1" >> ${log}\n${body}\n`, { mode: 0o755 })
  return {
    dir,
    file: path.join(dir, "bwrap"),
    breakIt: () => fs.writeFileSync(broken, ""),
    starts: () => (fs.existsSync(log) ? fs.readFileSync(log, "utf8").split("\n").filter((l) => l !== "") : [])
  }
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
  it("is believed only when its key is this boot's and this bwrap's, in the workspace's private state folder", () => {
    const ws = temp("minicode-probe-ws-")
    const saved = process.env["XDG_STATE_HOME"]
    process.env["XDG_STATE_HOME"] = temp("minicode-probe-state-")
    try {
      const bwrap = fakeBwrap(true)
      expect(BwrapProbe.recorded(bwrap.file, ws)).toBeUndefined()
      BwrapProbe.record(bwrap.file, "bubblewrap 0.8.0", ws)
      const file = path.join(StateHome.existing(ws) ?? "", "sandbox-probe")
      expect(fs.statSync(file).mode & 0o077).toBe(0)
      expect(BwrapProbe.recorded(bwrap.file, ws)).toBe("bubblewrap 0.8.0")
      // Another binary (another path), or the same one replaced in place: not this record.
      const other = fakeBwrap(true)
      expect(BwrapProbe.recorded(other.file, ws)).toBeUndefined()
      fs.appendFileSync(bwrap.file, "# changed\n")
      expect(BwrapProbe.recorded(bwrap.file, ws)).toBeUndefined()
      BwrapProbe.record(bwrap.file, "bubblewrap 0.8.0", ws)
      expect(BwrapProbe.recorded(bwrap.file, ws)).toBe("bubblewrap 0.8.0")
      // Readable by others, or a symlink to a record elsewhere: not believed.
      fs.chmodSync(file, 0o644)
      expect(BwrapProbe.recorded(bwrap.file, ws)).toBeUndefined()
      fs.chmodSync(file, 0o600)
      const elsewhere = path.join(temp("minicode-probe-elsewhere-"), "record")
      fs.renameSync(file, elsewhere)
      fs.symlinkSync(elsewhere, file)
      expect(BwrapProbe.recorded(bwrap.file, ws)).toBeUndefined()
      fs.rmSync(file)
      fs.renameSync(elsewhere, file)
      expect(BwrapProbe.recorded(bwrap.file, ws)).toBe("bubblewrap 0.8.0")
      // A version that is not what bwrap prints is neither written nor believed.
      BwrapProbe.record(bwrap.file, "bubblewrap 0.8.0\u001b[2J", ws)
      expect(BwrapProbe.recorded(bwrap.file, ws)).toBe("bubblewrap 0.8.0")
      // Written by hand (no header of this code, no checksum): not believed.
      fs.writeFileSync(file, JSON.stringify({ key: BwrapProbe.keyOf(bwrap.file), version: "bubblewrap 0.8.0" }), { mode: 0o600 })
      expect(BwrapProbe.recorded(bwrap.file, ws)).toBeUndefined()
    } finally {
      process.env["XDG_STATE_HOME"] = saved
    }
  })

  it("is never kept in, nor believed from, the workspace: with every state place inside it, there is no record", () => {
    const ws = temp("minicode-probe-ws-")
    const saved = { XDG_STATE_HOME: process.env["XDG_STATE_HOME"], HOME: process.env["HOME"], XDG_RUNTIME_DIR: process.env["XDG_RUNTIME_DIR"] }
    process.env["XDG_STATE_HOME"] = path.join(ws, "state")
    process.env["HOME"] = ws
    delete process.env["XDG_RUNTIME_DIR"]
    try {
      const bwrap = fakeBwrap(true)
      BwrapProbe.record(bwrap.file, "bubblewrap 0.8.0", ws)
      expect(fs.readdirSync(ws)).toEqual([])
      // Planted where a state home inside the workspace would put it: not read.
      const planted = path.join(ws, "state", "minicode")
      fs.mkdirSync(planted, { recursive: true, mode: 0o700 })
      fs.writeFileSync(path.join(planted, "sandbox-probe"), JSON.stringify({ key: BwrapProbe.keyOf(bwrap.file), version: "bubblewrap 0.8.0" }), { mode: 0o600 })
      expect(BwrapProbe.recorded(bwrap.file, ws)).toBeUndefined()
    } finally {
      for (const [k, v] of Object.entries(saved)) if (v === undefined) delete process.env[k]
      else process.env[k] = v
    }
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
    const root = path.join(state, "minicode")
    const kept = fs.existsSync(root) ? fs.readdirSync(root).flatMap((d) => fs.readdirSync(path.join(root, d))) : []
    expect(kept).not.toContain("sandbox-probe")
  })

  it.skipIf(unavailable !== undefined && !mustRun)(title("a record saying bwrap works when it no longer does makes the call fail closed, never run unsandboxed"), async () => {
    const { bwrap, bash, ws } = setup(true)
    const first = await bash("true")
    expect(first.status, first.stderr).toBe(0)
    // User namespaces gone since (the same binary): the record still says it works.
    bwrap.breakIt()
    const before = bwrap.starts().length
    const r = await bash("echo ran > ran.txt")
    expect(r.status).not.toBe(0)
    expect(fs.existsSync(path.join(ws, "ran.txt"))).toBe(false)
    expect(bwrap.starts().slice(before).filter((a) => a === "--version")).toEqual([])
  })
})
