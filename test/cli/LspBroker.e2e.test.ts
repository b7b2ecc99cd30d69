/**
 * The LSP broker through the shipped binary (dist/bin.js) with a real typescript-language-server: the first CLI
 * lsp_definition starts it, the next call is answered by the same broker and the same server processes, with the
 * answer the in-process path gives; `mcp serve` shares it; it stops by itself when idle and on `lsp stop`; a stale
 * socket is replaced, a socket that is not the user's own (or open to others) is refused with a sentence and the
 * call answered in-process; two concurrent first calls start one broker.
 */
import { spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"
import * as path from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { afterEach, beforeAll, describe, expect, it } from "vitest"
import { runCli } from "../support/Cli.js"
import { fakeServer, running } from "../support/LspFake.js"
import { tempDir } from "../support/Workspace.js"
import { ensureBuilt, textOf } from "../serve/support/McpServeHarness.js"

const bin = path.resolve("dist/bin.js")
const server = fs.realpathSync(path.resolve("node_modules/.bin/typescript-language-server"))
/** A cold tsserver on a loaded machine can be slow: deadlines, not speed. */
const slowMachine = ["--timeout", "initialize=90000", "--timeout", "request=90000", "--timeout", "load=90000"]

interface Status {
  readonly pid: number
  readonly requests: number
  readonly children: ReadonlyArray<number>
  readonly rssBytes: number
  readonly idleMs: number
}

const cleanups: Array<() => void> = []
afterEach(() => {
  for (const c of cleanups.splice(0)) c()
})
beforeAll(() => ensureBuilt())

const alive = running

/** The broker processes serving `ws` (their command line names it). */
const brokersOf = (ws: string): ReadonlyArray<number> =>
  fs.readdirSync("/proc").filter((n) => /^\d+$/.test(n)).flatMap((n) => {
    try {
      return fs.readFileSync(`/proc/${n}/cmdline`, "utf8").includes(`lsp\0broker\0--cwd\0${ws}\0`) ? [Number(n)] : []
    } catch {
      return []
    }
  })

/** The processes whose parent is `pid`. */
const childrenOf = (pid: number): ReadonlyArray<number> =>
  fs.readdirSync("/proc").filter((n) => /^\d+$/.test(n)).flatMap((n) => {
    try {
      const stat = fs.readFileSync(`/proc/${n}/stat`, "utf8")
      return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === pid ? [Number(n)] : []
    } catch {
      return []
    }
  })

const until = async (what: string, ok: () => boolean, ms = 30_000) => {
  const end = Date.now() + ms
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for: ${what}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

/** A TypeScript workspace, its own config and runtime folders, and the .ts server configured as a user would. */
const setup = (extraEnv: Record<string, string> = {}) => {
  const home = tempDir("minicode-broker-home-")
  const ws = tempDir("minicode-broker-ws-")
  const runtime = path.join(home, "run")
  fs.mkdirSync(runtime, { mode: 0o700 })
  fs.writeFileSync(path.join(ws, "tsconfig.json"), JSON.stringify({ compilerOptions: { strict: true, target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", noEmit: true, lib: ["ES2022"] }, include: ["src"] }))
  fs.mkdirSync(path.join(ws, "src"))
  fs.writeFileSync(path.join(ws, "src/math.ts"), "/** Adds two numbers. */\nexport function add(a: number, b: number): number {\n  return a + b\n}\n")
  fs.writeFileSync(path.join(ws, "src/main.ts"), 'import { add } from "./math.js"\n\nexport const total: number = add(1, 2)\n')
  const env: Record<string, string> = { ...(process.env as Record<string, string>), HOME: home, XDG_CONFIG_HOME: path.join(home, ".config"), XDG_RUNTIME_DIR: runtime, ...extraEnv }
  delete env["MINICODE_LSP_BROKER"]
  const runSync = (args: ReadonlyArray<string>, more: Record<string, string> = {}) =>
    spawnSync(process.execPath, [bin, ...args, "--cwd", ws], { encoding: "utf8", cwd: ws, env: { ...env, ...more }, timeout: 150_000 })
  // Calls that may start a language server cold: without blocking the test worker (test/support/Cli.ts).
  const run = (args: ReadonlyArray<string>, more: Record<string, string> = {}) => runCli(bin, [...args, "--cwd", ws], { cwd: ws, env: { ...env, ...more }, timeoutMs: 150_000 })
  const added = runSync(["config", "lsp", "add", ".ts", "--command", server, "--arg", "--stdio", "--no-sandbox", ...slowMachine])
  expect(added.status, added.stderr).toBe(0)
  // A scripted server for failures (test/support/lsp-fake-server.mjs): a.fake dies at start, b.hung never answers hover.
  fs.writeFileSync(path.join(ws, "a.fake"), "hello\n")
  fs.writeFileSync(path.join(ws, "b.hung"), "hello\n")
  const marker = path.join(home, "fake")
  for (const [ext, modes, timeouts] of [[".fake", "exit-at-start", []], [".hung", "hang-hover", ["--timeout", "request=1200"]]] as const) {
    const fake = runSync(["config", "lsp", "add", ext, "--command", process.execPath, "--arg", fakeServer, "--arg", modes, "--arg", `${marker}${ext}`, "--no-sandbox", ...timeouts])
    expect(fake.status, fake.stderr).toBe(0)
  }
  const folder = path.join(runtime, "minicode")
  const status = async (): Promise<ReadonlyArray<{ readonly socket: string; readonly status?: Status; readonly error?: string }>> => JSON.parse((await run(["lsp", "status", "--json"])).stdout)
  cleanups.push(() => {
    runSync(["lsp", "stop"])
    for (const pid of brokersOf(ws)) process.kill(pid, "SIGKILL")
  })
  return { home, ws, env, run, folder, status }
}

const definition = ["tool", "lsp_definition", JSON.stringify({ path: "src/main.ts", symbol: "add", line: 3 })]
const expected = /definition of src\/main\.ts:3:30: 1 location\nsrc\/math\.ts:2:17 {2}export function add/

/** The first call, which starts the broker; its pid and server processes, read at once from the pid file (a CLI
 * start-up on a loaded machine may outlast a short idle period). */
const firstCall = async (s: ReturnType<typeof setup>) => {
  const r = await s.run(definition)
  expect(r.stdout, r.stderr).toMatch(expected)
  const [pidFile] = fs.readdirSync(s.folder).filter((n) => n.endsWith(".pid"))
  const pid = Number(fs.readFileSync(path.join(s.folder, pidFile ?? ""), "utf8"))
  return { pid, children: childrenOf(pid) }
}

describe("the LSP broker", () => {
  it("the first call starts it, the second reuses it and its server, mcp serve shares it, answers equal the in-process path's", async () => {
    const s = setup()
    const first = await s.run(definition)
    expect(first.status, first.stderr).toBe(0)
    expect(first.stdout).toMatch(expected)
    const [row] = await s.status()
    expect(row?.status, row?.error).toBeDefined()
    const broker = row?.status as Status
    expect(fs.readFileSync(row?.socket.replace(/\.sock$/, ".pid") ?? "", "utf8").trim()).toBe(String(broker.pid))
    expect(brokersOf(s.ws)).toEqual([broker.pid])
    expect(broker.children.length).toBeGreaterThan(0)
    // The socket lives in the runtime folder, never in the workspace; private to the user.
    expect(path.dirname(row?.socket ?? "")).toBe(s.folder)
    expect(fs.statSync(s.folder).mode & 0o777).toBe(0o700)
    expect(fs.statSync(row?.socket ?? "").mode & 0o777).toBe(0o600)
    expect(fs.readdirSync(s.ws).filter((n) => /\.(sock|pid|log)$/.test(n))).toEqual([])

    const second = await s.run(definition)
    expect(second.status, second.stderr).toBe(0)
    expect(second.stdout).toBe(first.stdout)
    const [again] = await s.status()
    expect(again?.status?.pid).toBe(broker.pid)
    expect(again?.status?.children).toEqual(broker.children)
    expect(again?.status?.requests).toBeGreaterThan(broker.requests)

    const direct = await s.run(definition, { MINICODE_LSP_BROKER: "off" })
    expect(direct.status, direct.stderr).toBe(0)
    expect(direct.stdout).toBe(first.stdout)

    // The call hierarchy through the broker (protocol 2), as in-process.
    const callers = ["tool", "lsp_incoming_calls", JSON.stringify({ path: "src/math.ts", symbol: "add" })]
    const brokered = await s.run(callers)
    expect(brokered.status, brokered.stderr).toBe(0)
    expect(brokered.stdout).toMatch(/^incoming calls of add \(src\/math\.ts:2:17\): 1 call from 1 function\n.*\n {2}src\/main\.ts:3:30 {2}export const total: number = add\(1, 2\)$/m)
    expect((await s.run(callers, { MINICODE_LSP_BROKER: "off" })).stdout).toBe(brokered.stdout)

    const transport = new StdioClientTransport({ command: process.execPath, args: [bin, "mcp", "serve", "--cwd", s.ws], env: s.env, stderr: "pipe", cwd: s.ws })
    const client = new Client({ name: "minicode-broker-e2e", version: "1.0.0" })
    await client.connect(transport)
    try {
      const r = await client.callTool({ name: "lsp_definition", arguments: { path: "src/main.ts", symbol: "add", line: 3 } })
      expect(textOf(r)).toMatch(expected)
    } finally {
      await client.close()
    }
    const [shared] = await s.status()
    expect(shared?.status?.pid).toBe(broker.pid)
    expect(shared?.status?.children).toEqual(broker.children)
    expect(shared?.status?.requests).toBeGreaterThan(again?.status?.requests ?? 0)

    // The jail holds in the broker too: only its own workspace, only documents inside it.
    const raw = (request: unknown) =>
      new Promise<string>((resolve) => {
        const socket = net.connect(row?.socket ?? "")
        let text = ""
        socket.on("connect", () => socket.write(`${JSON.stringify(request)}\n`))
        socket.on("data", (d: Buffer) => (text += d.toString("utf8")))
        socket.on("close", () => resolve(text))
      })
    const outside = await raw({ version: 2, root: s.ws, watched: false, operation: { op: "hover", doc: { path: "/etc/passwd", text: "x" }, at: { line: 0, character: 0 } } })
    expect(outside).toContain(`/etc/passwd is outside the broker's workspace ${s.ws}`)
    const other = await raw({ version: 2, root: "/etc", watched: false, operation: { op: "status" } })
    expect(other).toContain(`this broker serves ${s.ws}, not /etc`)
    const garbage = await raw({ version: 99, op: "status" })
    expect(garbage).toContain("a request it does not understand")

    const stop = await s.run(["lsp", "stop"])
    expect(stop.stdout).toContain("stopped 1 LSP broker")
    await until("the broker and its servers exit", () => !alive(broker.pid) && broker.children.every((c) => !alive(c)))
    expect(fs.existsSync(row?.socket ?? "")).toBe(false)
    expect((await s.run(["lsp", "stop"])).stdout).toContain("no LSP broker running")
  }, 300_000)

  it("a server's failures come back through the broker as they do in-process: same message, same exit code", async () => {
    const s = setup()
    for (const call of [
      ["tool", "lsp_hover", '{"path":"a.fake","line":1,"character":2}'],
      ["tool", "lsp_hover", '{"path":"b.hung","line":1,"character":2}', "--json"]
    ]) {
      const brokered = await s.run(call)
      const direct = await s.run(call, { MINICODE_LSP_BROKER: "off" })
      expect(brokered.status).toBe(1)
      expect(direct.status).toBe(1)
      expect(brokered.stdout).toBe(direct.stdout)
      expect(brokered.stderr).toBe(direct.stderr)
    }
    expect((await s.run(["tool", "lsp_hover", '{"path":"a.fake","line":1,"character":2}'])).stderr).toContain("the language server exited at start (code 7)")
    expect(JSON.parse((await s.run(["tool", "lsp_hover", '{"path":"b.hung","line":1,"character":2}', "--json"])).stdout)).toMatchObject({
      ok: false,
      error: { _tag: "ToolTimeout", message: "language server node (.hung) (textDocument/hover) timed out after 1200 ms" }
    })
    expect((await s.status())[0]?.status?.pid).toBeGreaterThan(0)
  }, 120_000)

  it("stops by itself after its idle period (MINICODE_LSP_IDLE_MS), with its servers, socket and pid file", async () => {
    const s = setup({ MINICODE_LSP_IDLE_MS: "4000" })
    const { pid, children } = await firstCall(s)
    expect(brokersOf(s.ws)).toEqual([pid])
    expect(children.length).toBeGreaterThan(0)
    await until("the idle broker exits", () => !alive(pid) && children.every((c) => !alive(c)))
    expect(fs.readdirSync(s.folder).filter((n) => !n.endsWith(".log"))).toEqual([])
  }, 200_000)

  it("stops soon after its workspace is deleted, long before its idle period", async () => {
    const s = setup({ MINICODE_LSP_IDLE_MS: "600000" })
    const { pid, children } = await firstCall(s)
    expect(alive(pid)).toBe(true)
    fs.rmSync(s.ws, { recursive: true, force: true })
    await until("the broker of a deleted workspace exits", () => !alive(pid) && children.every((c) => !alive(c)))
  }, 200_000)

  it("a stale socket and pid file are replaced; a socket open to others or not the user's own is refused with a sentence, the call answered in-process", async () => {
    const s = setup()
    expect((await s.run(definition)).stdout).toMatch(expected)
    const [row] = await s.status()
    expect(row?.status, row?.error).toBeDefined()
    const socket = row?.socket ?? ""
    const pidFile = socket.replace(/\.sock$/, ".pid")
    // The broker killed outright: its socket file and pid file stay behind, nobody listens.
    const killed = row?.status as Status
    process.kill(killed.pid, "SIGKILL")
    for (const c of killed.children) process.kill(c, "SIGKILL")
    await until("the broker is gone", () => !alive(killed.pid))
    expect(fs.existsSync(socket) && fs.existsSync(pidFile)).toBe(true)
    expect((await s.status())[0]?.error).toContain("stale")
    const replaced = await s.run(definition)
    expect(replaced.status, replaced.stderr).toBe(0)
    expect(replaced.stdout).toMatch(expected)
    const [fresh] = await s.status()
    expect(fresh?.status?.pid).toBeGreaterThan(0)
    expect(fresh?.status?.pid).not.toBe(killed.pid)
    expect(fs.readFileSync(pidFile, "utf8").trim()).toBe(String(fresh?.status?.pid))

    // The live broker's socket opened to everyone: not spoken to.
    fs.chmodSync(socket, 0o666)
    const open = await s.run(definition)
    expect(open.status, open.stderr).toBe(0)
    expect(open.stdout).toMatch(expected)
    expect(open.stderr).toContain(`the LSP broker socket ${socket} is open to other users (mode 666): refused; answering in-process`)
    expect((await s.status())[0]?.error).toContain("refused")

    // Someone else's socket in its place.
    fs.chmodSync(socket, 0o600)
    fs.chownSync(socket, 65534, 65534)
    const foreign = await s.run(definition)
    expect(foreign.status, foreign.stderr).toBe(0)
    expect(foreign.stdout).toMatch(expected)
    expect(foreign.stderr).toContain(`the LSP broker socket ${socket} is owned by uid 65534, not by you (uid 0): refused; answering in-process`)
    fs.chownSync(socket, 0, 0)
  }, 300_000)

  it("two concurrent first calls start one broker, and both are answered", async () => {
    const s = setup()
    const call = () =>
      new Promise<{ code: number | null; stdout: string }>((resolve) => {
        const child = spawn(process.execPath, [bin, ...definition, "--cwd", s.ws], { cwd: s.ws, env: s.env, stdio: ["ignore", "pipe", "ignore"] })
        let stdout = ""
        child.stdout.on("data", (d: Buffer) => (stdout += d.toString("utf8")))
        child.once("exit", (code) => resolve({ code, stdout }))
      })
    const [a, b] = await Promise.all([call(), call()])
    expect(a.code).toBe(0)
    expect(b.code).toBe(0)
    expect(a.stdout).toMatch(expected)
    expect(b.stdout).toBe(a.stdout)
    // A second broker that lost the race leaves at once; one remains, the one in the pid file.
    await until("one broker left", () => brokersOf(s.ws).length === 1)
    const [row] = await s.status()
    expect(brokersOf(s.ws)).toEqual([row?.status?.pid])
    expect(row?.status?.requests).toBe(2)
  }, 200_000)
})
