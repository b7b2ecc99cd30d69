/**
 * Long work on the built CLI: `tool bash` streams the command's output on stderr as it comes (redacted, capped),
 * the result still on stdout; repo_map, grep and a language server's start show a status line on stderr when it
 * is a terminal (a real pseudo-terminal, made by python3's `pty`), and nothing when it is not.
 */
import { spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { fakeServer } from "../support/LspFake.js"

const bin = path.resolve("dist/bin.js")
const made: Array<string> = []
afterAll(() => {
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true })
})
const temp = (prefix: string) => {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)))
  made.push(dir)
  return dir
}
const bash = (command: string) => ["tool", "bash", JSON.stringify({ command }), "--work-mode", "EXECUTE", "--sandbox", "none"]

/** Resolves once `text` has arrived on `stream`. */
const arrival = (stream: NodeJS.ReadableStream, text: string) =>
  new Promise<void>((resolve) => {
    let seen = ""
    const on = (chunk: Buffer) => {
      seen += chunk.toString()
      if (seen.includes(text)) {
        stream.off("data", on)
        resolve()
      }
    }
    stream.on("data", on)
  })

/** Runs the CLI with stderr on a pseudo-terminal (stdout a pipe): what each received. */
const onTerminal = (args: ReadonlyArray<string>, cwd: string, env: NodeJS.ProcessEnv = process.env) => {
  const script = [
    "import os, subprocess, sys",
    "m, s = os.openpty()",
    "p = subprocess.Popen(sys.argv[1:], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=s)",
    "os.close(s)",
    "err = b''",
    "while True:",
    "    try:",
    "        chunk = os.read(m, 65536)",
    "    except OSError:",
    "        break",
    "    if not chunk:",
    "        break",
    "    err += chunk",
    "out = p.stdout.read()",
    "code = p.wait()",
    "sys.stdout.buffer.write(str(code).encode() + b'\\0' + out + b'\\0' + err)"
  ].join("\n")
  const r = spawnSync("python3", ["-c", script, process.execPath, bin, ...args], { cwd, env, timeout: 90_000 })
  const [code, stdout, stderr] = r.stdout.toString("utf8").split("\0")
  return { status: Number(code), stdout: stdout ?? "", stderr: stderr ?? "" }
}

describe("tool bash streams its output", () => {
  it("on stderr as it comes: the first line arrives while the command still runs; the result follows on stdout", async () => {
    const ws = temp("minicode-stream-")
    const child = spawn(process.execPath, [bin, ...bash("echo first; while [ ! -e go ]; do sleep 0.05; done; echo second >&2")], { cwd: ws })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()))
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()))
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)))
    await arrival(child.stderr, "first\n")
    // The command waits for us: it has not ended, and nothing is on stdout yet.
    expect(child.exitCode).toBeNull()
    expect(stdout).toBe("")
    fs.writeFileSync(path.join(ws, "go"), "")
    expect(await exited).toBe(0)
    expect(stderr).toBe("first\nsecond\n")
    expect(stdout).toContain("first\n[stderr]\nsecond\n[exit code: 0]")
  })

  it("redacted, capped at the output budget, and not with --json", () => {
    const ws = temp("minicode-stream-")
    const token = `ghp_${"a1B2c3D4e5".repeat(4)}`
    const secret = spawnSync(process.execPath, [bin, ...bash(`echo "token ${token}"`)], { cwd: ws, encoding: "utf8" })
    expect(secret.stderr).toBe("token [redacted: github token]\n")
    const big = spawnSync(process.execPath, [bin, ...bash("yes 0123456789abcdef | head -c 1000000")], { cwd: ws, encoding: "utf8", maxBuffer: 1 << 24 })
    expect(big.status).toBe(0)
    expect(big.stderr.endsWith("[output past 262144 bytes not shown as it comes: the result below is capped the same way]\n")).toBe(true)
    expect(Buffer.byteLength(big.stderr)).toBeLessThan(262144 + 200)
    expect(big.stdout).toContain("[truncated")
    const json = spawnSync(process.execPath, [bin, ...bash("echo quiet"), "--json"], { cwd: ws, encoding: "utf8" })
    expect(json.stderr).toBe("")
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: true, text: expect.stringContaining("quiet") })
  })
})

describe("progress on a terminal", () => {
  const workspace = () => {
    const ws = temp("minicode-progress-")
    for (let i = 0; i < 40; i++) fs.writeFileSync(path.join(ws, `m${i}.ts`), `export const f${i} = (x: number) => x + ${i}\n`)
    return ws
  }

  it("repo_map and grep show a status line on a terminal, erased at the end; stdout stays the result", () => {
    const ws = workspace()
    const map = onTerminal(["tool", "repo_map", "{}"], ws)
    expect(map.status, map.stderr).toBe(0)
    expect(map.stderr).toMatch(/^\r\x1b\[Krepo_map: listing files/)
    expect(map.stderr.endsWith("\r\x1b[K")).toBe(true)
    expect(map.stdout).toContain("m1.ts")
    expect(map.stdout).not.toContain("\x1b")
    const grep = onTerminal(["tool", "grep", '{"pattern":"x \\\\+ 3"}'], ws)
    expect(grep.status, grep.stderr).toBe(0)
    // Either engine: its own walk ("grep: listing files") or ripgrep ("grep: searching with ripgrep").
    expect(grep.stderr).toMatch(/^\r\x1b\[Kgrep: (listing files|searching with ripgrep)/)
    expect(grep.stdout).toContain("m3.ts:1:")
  })

  it("nothing on stderr when it is not a terminal", () => {
    const ws = workspace()
    for (const args of [["tool", "repo_map", "{}"], ["tool", "grep", '{"pattern":"f1"}']]) {
      const r = spawnSync(process.execPath, [bin, ...args], { cwd: ws, encoding: "utf8" })
      expect(r.status).toBe(0)
      expect(r.stderr).toBe("")
    }
  })

  it("a language server's start-up shows while it starts", () => {
    const home = temp("minicode-progress-home-")
    const ws = temp("minicode-progress-ws-")
    fs.writeFileSync(path.join(ws, "a.fake"), "hello\n")
    const env = { ...process.env, XDG_CONFIG_HOME: home }
    const marker = path.join(home, "fake")
    const added = spawnSync(process.execPath, [bin, "config", "lsp", "add", ".fake", "--command", process.execPath, "--arg", fakeServer, "--arg", "hang-initialize", "--arg", marker, "--timeout", "initialize=1500", "--cwd", ws, "--no-sandbox"], { encoding: "utf8", env })
    expect(added.status, added.stderr).toBe(0)
    const r = onTerminal(["tool", "lsp_hover", '{"path":"a.fake","line":1,"character":2}', "--cwd", ws], ws, env)
    expect(r.status).toBe(1)
    expect(r.stderr).toContain("\r\x1b[Kstarting the language server")
  })
})
