/**
 * The red team's workspace: a git repository with one committed file, the built CLI as an agent with
 * `--work-mode BUILD --policy allow-all` would call it, and a script run in sandboxed bash (written by write_file,
 * so no guard ever sees what it names). `cleanups` is the test file's list, emptied after each test.
 */
import { spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, beforeAll, expect } from "vitest"
import { bin, connect, ensureBuilt, isErrorResult, makeGitWorkspace, textOf } from "../../serve/support/McpServeHarness.js"
import { runCli } from "../../support/Cli.js"

/** A test file's cleanups, run after each test, and the built binary made before the first. */
export const attackFile = () => {
  const cleanups: Array<() => unknown> = []
  afterEach(async () => {
    for (const c of cleanups.splice(0)) await c()
  })
  beforeAll(() => ensureBuilt())
  return cleanups
}

export const attackWorkspace = (cleanups: Array<() => unknown>) => {
  const ws = makeGitWorkspace()
  cleanups.push(ws.cleanup)
  const { root, git } = ws
  fs.writeFileSync(path.join(root, "a.txt"), "a\n")
  git("add", "a.txt")
  git("commit", "-q", "-m", "first")
  const toolArgs = (name: string, args: unknown) => ["tool", name, JSON.stringify(args), "--cwd", root, "--work-mode", "BUILD", "--policy", "allow-all", "--json"]
  const tool = (name: string, args: unknown) => spawnSync(process.execPath, [bin, ...toolArgs(name, args)], { encoding: "utf8" })
  /** Sandboxed bash running the script `file` (written beforehand) in its own CLI process, not awaited. */
  const startScript = (file: string, onPid: (pid: number) => void = () => undefined) =>
    runCli(bin, toolArgs("bash", { command: `sh ${file}` }), { timeoutMs: 120_000, onPid })
  /** Runs `body` as a script in sandboxed bash; its stdout and stderr. */
  const script = (body: string) => {
    expect(tool("write_file", { path: "s.sh", content: `${body}\n` }).status).toBe(0)
    const r = tool("bash", { command: "sh s.sh" })
    return r.stdout + r.stderr
  }
  /** As `tool` and `script`, without blocking the test worker (for tests that make many calls: see test/support/Cli.ts). */
  const toolAsync = (name: string, args: unknown) => runCli(bin, toolArgs(name, args), { timeoutMs: 300_000 })
  const scriptAsync = async (body: string) => {
    expect((await toolAsync("write_file", { path: "s.sh", content: `${body}\n` })).status).toBe(0)
    const r = await toolAsync("bash", { command: "sh s.sh" })
    return r.stdout + r.stderr
  }
  return { ...ws, tool, script, startScript, toolAsync, scriptAsync }
}

/**
 * A workspace whose `.env` holds an old canary, `loop.sh` written by write_file, and the loop running as bash in a
 * fresh `mcp serve` (allow-all, no asks): the workspace and the call's result, for the host to act on meanwhile.
 */
export const loopInServe = async (cleanups: Array<() => unknown>, loop: string) => {
  const w = attackWorkspace(cleanups)
  fs.writeFileSync(path.join(w.root, ".env"), "OLD=canary-old\n")
  expect(w.tool("write_file", { path: "loop.sh", content: loop }).status).toBe(0)
  const s = await connect(w.root, ["--allow-all", "--no-ask"])
  cleanups.push(() => s.close())
  const call = s.client.callTool({ name: "bash", arguments: { command: "sh loop.sh" } }, undefined, { timeout: 120_000 })
  return { w, call }
}

/**
 * One `mcp serve` as the CLI calls run (BUILD work mode, allow-all policy), for a file's many calls of one family: a
 * CLI start costs ~0.35 CPU-seconds and a workspace scan, a served call a few milliseconds. Each call's text (result
 * or error) and whether it was an error; `close` ends the server (also after the test).
 */
export const served = async (cleanups: Array<() => unknown>, root: string) => {
  const s = await connect(root, ["--allow-all", "--no-ask"])
  cleanups.push(() => s.close().catch(() => undefined))
  const call = async (name: string, args: Record<string, unknown>) => {
    const result = await s.client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 })
    return { ok: !isErrorResult(result), text: textOf(result) }
  }
  return { call, close: () => s.close() }
}

/**
 * read_file of each of `names` through one `mcp serve` (`served`) instead of one CLI process per name (a table of 16
 * names spent more than 5 CPU-seconds), plus the first name through the built CLI too, so the CLI's own output stays
 * attacked: each name's answers (text or error, joined).
 */
export const readEach = async (ws: ReturnType<typeof attackWorkspace>, names: ReadonlyArray<string>): Promise<Readonly<Record<string, string>>> => {
  const s = await served([], ws.root)
  const out: Record<string, string> = {}
  try {
    for (const name of names) out[name] = (await s.call("read_file", { path: name })).text
  } finally {
    await s.close()
  }
  const first = names[0]
  if (first !== undefined) {
    const r = await ws.toolAsync("read_file", { path: first })
    out[first] = `${out[first] ?? ""}\n${r.stdout}${r.stderr}`
  }
  return out
}

/** Inflates every file under .git/objects (and `extra`) as zlib, loose objects and every offset of every pack. */
export const inflateAll = (extra = "") => `python3 - <<'PY'
import glob, zlib
for p in glob.glob(".git/objects/**/*", recursive=True) + glob.glob("${extra}**/*", recursive=True):
    try:
        b = open(p, "rb").read()
    except Exception:
        continue
    for i in range(len(b)):
        if b[i] == 0x78:
            try:
                print(zlib.decompressobj().decompress(b[i:])[:300])
            except Exception:
                pass
PY`


/** A swapper for sandboxed bash (python3 ctypes `renameat2(RENAME_EXCHANGE)` in a loop): exchanges `d` (a real folder) and `l` (a symlink to argv[1]) for argv[2] seconds, and leaves `d` real. */
export const swapper = `import ctypes, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
if not os.path.lexists("l"): os.symlink(sys.argv[1], "l")
end = time.time() + float(sys.argv[2])
while time.time() < end and not os.path.exists("stop"):
    libc.renameat2(-100, b"d", -100, b"l", 2)
if os.path.islink("d"): libc.renameat2(-100, b"d", -100, b"l", 2)
print("swapped")
`

/**
 * Starts `swapper` in sandboxed bash in its own CLI process (exchanging `root/d` and `root/l` → `outside`), once it
 * has begun (its symlink exists); the function that stops it and waits for its process to end.
 */
export const startSwapper = async (
  cleanups: Array<() => unknown>,
  root: string,
  outside: string,
  tool: (name: string, args: unknown) => { readonly status: number | null }
): Promise<() => Promise<unknown>> => {
  expect(tool("write_file", { path: "swap.py", content: swapper }).status).toBe(0)
  const args = ["tool", "bash", JSON.stringify({ command: `python3 swap.py ${outside} 280`, timeout_ms: 300_000 }), "--cwd", root, "--work-mode", "BUILD", "--policy", "allow-all", "--json"]
  const child = spawn(process.execPath, [bin, ...args], { stdio: "ignore" })
  const done = new Promise((resolve) => child.on("exit", resolve))
  cleanups.push(() => child.kill())
  for (let i = 0; i < 200 && fs.lstatSync(path.join(root, "l"), { throwIfNoEntry: false }) === undefined; i++) await new Promise((r) => setTimeout(r, 50))
  return () => {
    fs.writeFileSync(path.join(root, "stop"), "")
    return done
  }
}

/**
 * A workspace with `src/` committed, the marker a planted program would make outside it, and the user's own
 * `git status` in `src/` on the host (no global or system configuration): for plants git's discovery would follow.
 */
export const committedSrc = (cleanups: Array<() => unknown>) => {
  const ws = attackWorkspace(cleanups)
  fs.mkdirSync(path.join(ws.root, "src"))
  fs.writeFileSync(path.join(ws.root, "src/main.c"), "int main(void) { return 0; }\n")
  ws.git("add", "src")
  ws.git("commit", "-q", "-m", "src")
  const marker = path.join(ws.parent, "PWNED")
  const userStatus = () =>
    spawnSync("git", ["status", "--short"], { cwd: path.join(ws.root, "src"), encoding: "utf8", env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" } })
  return { ws, marker, userStatus }
}

/**
 * Writes `files` (workspace-relative name → content holding one `canary-…` word) and asks read_file, grep and
 * sandboxed bash for each: the names whose canary any of them showed (`read_file .env`, `grep .env`, `bash .env`).
 */
export const shownSecrets = async (ws: ReturnType<typeof attackWorkspace>, files: Readonly<Record<string, string>>): Promise<ReadonlyArray<string>> => {
  const canaryOf = (content: string): string => /canary-[a-z-]+/.exec(content)?.[0] ?? "?"
  for (const [name, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(ws.root, name)), { recursive: true })
    fs.writeFileSync(path.join(ws.root, name), content)
  }
  const shown: Array<string> = []
  const read = await readEach(ws, Object.keys(files))
  for (const [name, content] of Object.entries(files)) if (read[name]?.includes(canaryOf(content)) === true) shown.push(`read_file ${name}`)
  const grep = await ws.toolAsync("grep", { pattern: "canary-" })
  for (const [name, content] of Object.entries(files)) if (grep.stdout.includes(canaryOf(content))) shown.push(`grep ${name}`)
  const quoted = Object.keys(files).map((n) => `'${n}'`).join(" ")
  const out = await ws.scriptAsync(`cat ${quoted} 2>/dev/null; grep -r canary- . 2>/dev/null; echo read-done`)
  expect(out).toContain("read-done")
  for (const [name, content] of Object.entries(files)) if (out.includes(canaryOf(content))) shown.push(`bash ${name}`)
  return shown
}

/** The text of the workspace file `rel`, or undefined when it cannot be read (absent, a folder, a dangling link). */
export const fileText = (root: string, rel: string): string | undefined => {
  try {
    return fs.readFileSync(path.join(root, rel), "utf8")
  } catch {
    return undefined
  }
}
