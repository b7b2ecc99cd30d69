/**
 * Helpers for the end-to-end tests of `minicode mcp serve`: build the bundle when it is stale, start the BUILT
 * binary with the SDK's real Client over StdioClientTransport, or drive it raw (line by line) for what a
 * well-behaved client never sends (duplicate ids, malformed JSON, oversized lines).
 */
import { type ChildProcessWithoutNullStreams, execFileSync, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { afterEach, beforeAll } from "vitest"

export const repo = fileURLToPath(new URL("../../../", import.meta.url))
export const bin = path.join(repo, "dist/bin.js")

const newest = (dir: string): number =>
  fs.readdirSync(dir, { withFileTypes: true }).reduce((max, e) => {
    const p = path.join(dir, e.name)
    return Math.max(max, e.isDirectory() ? newest(p) : fs.statSync(p).mtimeMs)
  }, 0)

/**
 * Runs `npm run build` when dist/bin.js is missing or older than any source file; never under vitest's globalSetup,
 * which built dist/ once for the whole run (a rebuild here would delete dist/ under other workers' processes).
 */
export const ensureBuilt = () => {
  if (process.env["MINICODE_TEST_BUILT"] === "1") return
  const built = fs.existsSync(bin) ? fs.statSync(bin).mtimeMs : 0
  if (built < Math.max(newest(path.join(repo, "src")), fs.statSync(path.join(repo, "scripts/build.mjs")).mtimeMs)) {
    execFileSync("node", ["scripts/build.mjs"], { cwd: repo, stdio: "inherit" })
  }
}

/** A fresh workspace inside a fresh parent, so "nothing outside the workspace changed" can be checked. */
export const makeWorkspace = () => {
  const parent = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "minicode-e2e-")))
  const root = path.join(parent, "ws")
  fs.mkdirSync(root)
  fs.writeFileSync(path.join(parent, "outside.txt"), "sentinel\n")
  return { parent, root, cleanup: () => fs.rmSync(parent, { recursive: true, force: true }) }
}

/** A workspace that is a fresh git repository (branch main, a committer set), with `git` to run in it. */
export const makeGitWorkspace = () => {
  const ws = makeWorkspace()
  const git = (...args: Array<string>) => execFileSync("git", args, { cwd: ws.root, encoding: "utf8" })
  git("init", "-q", "-b", "main")
  git("config", "user.email", "dev@example.com")
  git("config", "user.name", "Dev")
  return { ...ws, git }
}

/**
 * For a test file that runs the built bundle in git workspaces: the bundle built once, and after each test every
 * workspace made by `workspace()` (and whatever else was pushed on `cleanups`) removed.
 */
export const gitWorkspaces = () => {
  beforeAll(() => ensureBuilt())
  return workspaces(makeGitWorkspace)
}

/** For a test file: `workspace()` makes one with `make`; after each test, it and what `cleanups` holds go, newest first. */
export const workspaces = <W extends { readonly cleanup: () => unknown }>(make: () => W) => {
  const cleanups: Array<() => unknown> = []
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c()
  })
  const workspace = () => {
    const ws = make()
    cleanups.push(ws.cleanup)
    return ws
  }
  return { cleanups, workspace }
}

/** Every file under `dir` with its content (for before/after comparisons), except under `skip` (the workspace). */
export const snapshot = (dir: string, skip?: string): Record<string, string> => {
  const out: Record<string, string> = {}
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name)
      if (p === skip) continue
      if (e.isDirectory()) walk(p)
      else out[path.relative(dir, p)] = e.isFile() ? fs.readFileSync(p, "utf8") : "<special>"
    }
  }
  walk(dir)
  return out
}

const stateEnv = (): Record<string, string> => {
  const v = process.env["XDG_STATE_HOME"]
  return v === undefined ? {} : { XDG_STATE_HOME: v }
}

/** `env` is added to the SDK's default environment of a spawned server (which inherits only HOME, PATH and the like). */
const staged = (): Record<string, string> => {
  const v = process.env["MINICODE_BASH_STAGED"]
  return v === undefined ? {} : { MINICODE_BASH_STAGED: v }
}

export const connect = async (
  root: string,
  flags: ReadonlyArray<string> = [],
  roots?: ReadonlyArray<string>,
  env?: Readonly<Record<string, string>>
) => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin, "mcp", "serve", "--cwd", root, ...flags],
    stderr: "pipe",
    cwd: root,
    // The test run's state place (globalSetup) too, so the test finds the records where the server keeps them.
    // The test's choice of bash's write path (MINICODE_BASH_STAGED=0: the live sandbox) reaches the server too.
    env: { ...getDefaultEnvironment(), ...stateEnv(), ...staged(), ...env }
  })
  const client = new Client({ name: "minicode-e2e", version: "1.0.0" }, { capabilities: roots === undefined ? {} : { roots: { listChanged: true } } })
  if (roots !== undefined) {
    const { ListRootsRequestSchema } = await import("@modelcontextprotocol/sdk/types.js")
    client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: roots.map((r) => ({ uri: `file://${r}`, name: r })) }))
  }
  await client.connect(transport)
  return { client, transport, pid: transport.pid ?? 0, close: () => client.close() }
}

/** The text of a tool result (every minicode result is one text block). */
/**
 * Per test: `start(files, flags)` runs `mcp serve` (no sandbox) on a fresh workspace holding `files`; the servers
 * stop and the workspaces go after each test.
 */
export const serversOn = () => {
  const cleanups: Array<() => Promise<void> | void> = []
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c()
  })
  return async (files: Readonly<Record<string, string>>, flags: ReadonlyArray<string> = []) => {
    const ws = makeWorkspace()
    cleanups.push(ws.cleanup)
    for (const [name, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(ws.root, name)), { recursive: true })
      fs.writeFileSync(path.join(ws.root, name), text)
    }
    const s = await connect(ws.root, ["--sandbox", "none", ...flags])
    cleanups.push(() => s.close().catch(() => undefined))
    return { ...ws, client: s.client }
  }
}

export const textOf = (result: unknown): string => {
  if (typeof result !== "object" || result === null || !("content" in result) || !Array.isArray(result.content)) return ""
  return result.content.map((c: unknown) => (typeof c === "object" && c !== null && "text" in c && typeof c.text === "string" ? c.text : "")).join("")
}

export const isErrorResult = (result: unknown): boolean =>
  typeof result === "object" && result !== null && "isError" in result && result.isError === true

export interface Reply {
  readonly id?: unknown
  readonly result?: unknown
  readonly error?: { readonly code: number; readonly message: string }
}

const isReply = (u: unknown): u is Reply => typeof u === "object" && u !== null && !Array.isArray(u)

/** The server driven line by line: no client-side id allocation, no validation. */
export class Raw {
  readonly child: ChildProcessWithoutNullStreams
  readonly replies: Array<Reply> = []
  /** Replies that came as one JSON-RPC batch (their elements are in `replies` too). */
  readonly batches: Array<ReadonlyArray<Reply>> = []
  private buffer = ""
  private waiters: Array<() => void> = []
  exited: number | null | undefined = undefined

  constructor(root: string, flags: ReadonlyArray<string> = [], env?: Readonly<Record<string, string>>) {
    this.child = spawn(process.execPath, [bin, "mcp", "serve", "--cwd", root, ...flags], {
      cwd: root,
      stdio: ["pipe", "pipe", "pipe"],
      ...(env === undefined ? {} : { env: { ...process.env, ...env } })
    })
    this.child.stdout.setEncoding("utf8")
    this.child.stdout.on("data", (chunk: string) => {
      this.buffer += chunk
      let nl = this.buffer.indexOf("\n")
      while (nl >= 0) {
        const line = this.buffer.slice(0, nl)
        this.buffer = this.buffer.slice(nl + 1)
        const parsed: unknown = JSON.parse(line)
        if (isReply(parsed)) this.replies.push(parsed)
        else if (Array.isArray(parsed)) {
          const items: Array<Reply> = parsed.filter(isReply)
          this.batches.push(items)
          this.replies.push(...items)
        }
        nl = this.buffer.indexOf("\n")
      }
      this.wake()
    })
    this.child.stdin.on("error", () => undefined)
    this.child.on("exit", (code) => {
      this.exited = code
      this.wake()
    })
  }

  private wake() {
    const ws = this.waiters
    this.waiters = []
    for (const w of ws) w()
  }

  send(message: unknown) {
    this.child.stdin.write(`${typeof message === "string" ? message : JSON.stringify(message)}\n`)
  }

  async init(protocolVersion = "2025-06-18") {
    this.send({ jsonrpc: "2.0", id: "init", method: "initialize", params: { protocolVersion, capabilities: {}, clientInfo: { name: "raw", version: "1" } } })
    const reply = await this.reply("init")
    this.send({ jsonrpc: "2.0", method: "notifications/initialized" })
    return reply
  }

  call(id: string | number, name: string, args: unknown) {
    this.send({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } })
  }

  /** Waits for the `n`-th reply (1-based) carrying this id. */
  async reply(id: unknown, n = 1, timeoutMs = 20_000): Promise<Reply> {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const found = this.replies.filter((r) => JSON.stringify(r.id) === JSON.stringify(id))
      const hit = found[n - 1]
      if (hit !== undefined) return hit
      if (this.exited !== undefined) throw new Error(`server exited (${this.exited}) before replying to ${JSON.stringify(id)}`)
      if (Date.now() > deadline) throw new Error(`no reply to ${JSON.stringify(id)} within ${timeoutMs} ms`)
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 50)
        this.waiters.push(() => {
          clearTimeout(timer)
          resolve()
        })
      })
    }
  }

  async exit(timeoutMs = 15_000): Promise<number | null> {
    const deadline = Date.now() + timeoutMs
    while (this.exited === undefined) {
      if (Date.now() > deadline) throw new Error("the server did not exit")
      await new Promise((r) => setTimeout(r, 20))
    }
    return this.exited
  }

  kill() {
    if (this.exited === undefined) this.child.kill("SIGKILL")
  }
}

/** CPU time (user + system, in ms) a process has used so far, from /proc. */
export const cpuMs = (pid: number): number => {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  const ticks = Number(fields[11]) + Number(fields[12])
  return (ticks * 1000) / 100
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/**
 * Files whose single line makes `^(a|a)*$` backtrack for ~10-40 ms each: a grep over them runs for seconds. The
 * look-ahead keeps it on grep's own (backtracking) engine: ripgrep, which cannot take one, would match in linear time.
 */
export const slowGrepFixture = (root: string, files = 300) => {
  const dir = path.join(root, "slow")
  fs.mkdirSync(dir, { recursive: true })
  for (let i = 0; i < files; i++) fs.writeFileSync(path.join(dir, `f${i}.txt`), `${"a".repeat(21)}!\n`)
  return { path: "slow", pattern: "^(?=a)(a|a)*$" }
}
