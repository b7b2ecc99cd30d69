/** The shipped executable (dist/bin.js) and its V8 code cache: kept outside the workspace, never trusted blindly. */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"

const bin = path.resolve("dist/bin.js")
// `--help` goes through the program (`--version` alone is answered by the launcher without it).
const run = (cwd: string, env: NodeJS.ProcessEnv) =>
  spawnSync(process.execPath, [bin, "--help"], { encoding: "utf8", cwd, env: { ...process.env, NODE_DISABLE_COMPILE_CACHE: "", ...env }, timeout: 30_000 })
const made: Array<string> = []
afterEach(() => {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
})
const temp = (prefix: string) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix))
  made.push(dir)
  return dir
}
const caches = (dir: string) => (fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith(".cache")) : [])

describe("minicode executable", () => {
  it("writes its code cache in the user's cache folder, not the workspace, and reuses it", () => {
    const ws = temp("minicode-launch-ws-")
    const xdg = temp("minicode-launch-cache-")
    const first = run(ws, { XDG_CACHE_HOME: xdg })
    expect(first.status).toBe(0)
    const dir = path.join(xdg, "minicode")
    const [file] = caches(dir)
    expect(file).toBeDefined()
    expect(fs.statSync(dir).mode & 0o077).toBe(0)
    expect(fs.readdirSync(ws)).toEqual([])
    const written = fs.statSync(path.join(dir, file ?? "")).mtimeMs
    const second = run(ws, { XDG_CACHE_HOME: xdg })
    expect(second.stdout).toBe(first.stdout)
    expect(fs.statSync(path.join(dir, file ?? "")).mtimeMs).toBe(written)
  })

  it("replaces a damaged cache instead of handing it to V8", () => {
    const xdg = temp("minicode-launch-cache-")
    const first = run(process.cwd(), { XDG_CACHE_HOME: xdg })
    const dir = path.join(xdg, "minicode")
    const file = path.join(dir, caches(dir)[0] ?? "")
    const data = fs.readFileSync(file)
    for (let i = 4096; i < data.length; i += 997) data[i] = (data[i] ?? 0) ^ 0xff
    fs.writeFileSync(file, data)
    const damaged = run(process.cwd(), { XDG_CACHE_HOME: xdg })
    expect(damaged.status).toBe(0)
    expect(damaged.stdout).toBe(first.stdout)
    fs.writeFileSync(file, data.subarray(0, 100))
    const truncated = run(process.cwd(), { XDG_CACHE_HOME: xdg })
    expect(truncated.status).toBe(0)
    expect(truncated.stdout).toBe(first.stdout)
    expect(fs.statSync(file).size).toBeGreaterThan(100_000)
  })

  it("removes cache files nobody wrote for a week when it writes its own, and nothing else", () => {
    const xdg = temp("minicode-launch-cache-")
    const dir = path.join(xdg, "minicode")
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
    const old = Date.now() / 1000 - 8 * 24 * 3600
    const stale = path.join(dir, "minicode-OLDBUNDLE-serve-abc123.cache")
    const recent = path.join(dir, "minicode-OTHERBUNDLE-cli-abc123.cache")
    const foreign = path.join(dir, "notes.txt")
    for (const f of [stale, recent, foreign]) fs.writeFileSync(f, "x")
    fs.utimesSync(stale, old, old)
    fs.utimesSync(foreign, old, old)
    expect(run(process.cwd(), { XDG_CACHE_HOME: xdg }).status).toBe(0)
    expect(fs.existsSync(stale)).toBe(false)
    expect(fs.existsSync(recent)).toBe(true)
    expect(fs.existsSync(foreign)).toBe(true)
    expect(caches(dir).length).toBe(2)
  })

  it("runs without a cache when none can be kept, or when it is turned off", () => {
    const ws = temp("minicode-launch-ws-")
    const file = path.join(ws, "not-a-folder")
    fs.writeFileSync(file, "")
    for (const env of [
      { XDG_CACHE_HOME: "/proc/minicode-nonexistent", HOME: "/proc/minicode-nonexistent", TMPDIR: "/proc/minicode-nonexistent" },
      { XDG_CACHE_HOME: file, HOME: file, TMPDIR: file },
      { NODE_DISABLE_COMPILE_CACHE: "1", XDG_CACHE_HOME: path.join(ws, "off") }
    ]) {
      const r = run(ws, env)
      expect(r.status, r.stderr).toBe(0)
      expect(r.stdout).toMatch(/^minicode - /)
    }
    expect(fs.readdirSync(ws)).toEqual(["not-a-folder"])
  })

  it("answers --version alone without loading the program, in the CLI's words; anything more goes through the CLI", () => {
    const xdg = temp("minicode-launch-cache-")
    const root = temp("minicode-install-")
    fs.cpSync(path.resolve("dist"), path.join(root, "dist"), { recursive: true })
    fs.symlinkSync(path.resolve("node_modules"), path.join(root, "node_modules"))
    const copy = path.join(root, "dist", "bin.js")
    const call = (args: ReadonlyArray<string>) =>
      spawnSync(process.execPath, [copy, ...args], { encoding: "utf8", env: { ...process.env, NODE_DISABLE_COMPILE_CACHE: "", XDG_CACHE_HOME: xdg }, timeout: 30_000 })
    const throughCli = call(["--version", "--json"])
    expect(throughCli.status, throughCli.stderr).toBe(0)
    const version = JSON.parse(fs.readFileSync(path.resolve("package.json"), "utf8")).version
    expect(throughCli.stdout).toBe(`${version}\n\n`)
    // The program's bundle broken: `--version` still answers (it never read it), the same bytes as the CLI's.
    const bundle = fs.readdirSync(path.join(root, "dist")).find((f) => /^minicode-.*\.cjs$/.test(f)) ?? ""
    fs.writeFileSync(path.join(root, "dist", bundle), "this is not JavaScript (")
    const fast = call(["--version"])
    expect(fast.status, fast.stderr).toBe(0)
    expect(fast.stdout).toBe(throughCli.stdout)
    const broken = call(["--version", "--json"])
    expect(broken.status).not.toBe(0)
  })

  it("keys the cache by install path too: two installs of one bundle never print each other's paths in a trace", () => {
    const xdg = temp("minicode-launch-cache-")
    const installs = ["a", "b"].map((name) => {
      const root = path.join(temp(`minicode-install-${name}-`), "minicode")
      fs.mkdirSync(root)
      fs.cpSync(path.resolve("dist"), path.join(root, "dist"), { recursive: true })
      fs.copyFileSync(path.resolve("package.json"), path.join(root, "package.json"))
      fs.symlinkSync(path.resolve("node_modules"), path.join(root, "node_modules"))
      return root
    })
    // A usage error with --debug prints the stack trace, which names the bundle's file.
    const trace = (root: string) =>
      spawnSync(process.execPath, [path.join(root, "dist", "bin.js"), "--debug", "tool", "read_file", "{path:1}"], {
        encoding: "utf8",
        env: { ...process.env, NODE_DISABLE_COMPILE_CACHE: "", XDG_CACHE_HOME: xdg },
        timeout: 30_000
      })
    const [a, b] = installs as [string, string]
    for (const round of [1, 2]) {
      for (const [own, other] of [[a, b], [b, a]] as const) {
        const r = trace(own)
        expect(r.status, `round ${round}: ${r.stderr}`).toBe(2)
        expect(r.stderr).toContain(path.join(own, "dist"))
        expect(r.stderr).not.toContain(other)
      }
    }
    expect(caches(path.join(xdg, "minicode")).length).toBe(2)
  })
})
