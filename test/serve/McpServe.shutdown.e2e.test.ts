/**
 * End to end, on the BUILT binary with the SDK's real Client: the overall deadline of a call (injected through the
 * configuration file), SIGTERM while a command runs (interrupted at the drain deadline, its process tree killed,
 * journaled `unknown`, the process gone within the deadline), and a cancelled call followed by the next one.
 */
import { execFileSync, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { beforeAll, describe, expect, it } from "vitest"
import { bin, connect, ensureBuilt, isErrorResult, makeWorkspace, sleep, slowGrepFixture, textOf, workspaces } from "./support/McpServeHarness.js"

const { cleanups, workspace } = workspaces(makeWorkspace)

beforeAll(() => ensureBuilt(), 120_000)

/** mcp serve's drain deadline (McpServe.limits.drainMs). */
const drainMs = 5_000

/** A configuration home with this config.json, for XDG_CONFIG_HOME. */
const configHome = (parent: string, config: object) => {
  const dir = path.join(parent, "xdg")
  fs.mkdirSync(path.join(dir, "minicode"), { recursive: true })
  fs.writeFileSync(path.join(dir, "minicode", "config.json"), JSON.stringify(config))
  return dir
}

const server = async (root: string, flags: ReadonlyArray<string> = [], env?: Readonly<Record<string, string>>) => {
  const s = await connect(root, flags, undefined, env)
  cleanups.push(() => s.close().catch(() => undefined))
  return s
}

interface Proc {
  readonly pid: number
  readonly ppid: number
  readonly state: string
  readonly comm: string
}

const proc = (pid: number): Proc | undefined => {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
    const close = stat.lastIndexOf(")")
    const fields = stat.slice(close + 2).split(" ")
    return { pid, ppid: Number(fields[1]), state: fields[0] ?? "?", comm: stat.slice(stat.indexOf("(") + 1, close) }
  } catch {
    return undefined
  }
}

/** Every process descended from `root` (by parent id, from /proc). */
const descendants = (root: number): ReadonlyArray<Proc> => {
  const all = fs.readdirSync("/proc").flatMap((d) => (/^\d+$/.test(d) ? [proc(Number(d))].filter((p): p is Proc => p !== undefined) : []))
  const found: Array<Proc> = []
  let frontier = [root]
  while (frontier.length > 0) {
    const next = all.filter((p) => frontier.includes(p.ppid))
    found.push(...next)
    frontier = next.map((p) => p.pid)
  }
  return found
}

/** Still running: present in /proc and not a zombie (a zombie has exited and waits to be reaped). */
const alive = (pid: number) => {
  const p = proc(pid)
  return p !== undefined && p.state !== "Z" && p.state !== "X"
}

/** Waits until a `sleep` runs under the server (the command started). */
const sleepUnder = async (serverPid: number, timeoutMs = 15_000): Promise<ReadonlyArray<Proc>> => {
  const until = Date.now() + timeoutMs
  for (;;) {
    const tree = descendants(serverPid)
    if (tree.some((p) => p.comm === "sleep")) return tree
    if (Date.now() > until) throw new Error("the command did not start")
    await sleep(50)
  }
}

const journal = (root: string): ReadonlyArray<{ readonly tool: string; readonly state: string; readonly note: string | null }> =>
  JSON.parse(execFileSync(process.execPath, [bin, "journal", "--json", "--cwd", root], { encoding: "utf8" }))

describe("mcp serve: the overall deadline of a call (built binary)", () => {
  it("a call past the configured deadline is stopped with an error naming the limit; the next call runs", async () => {
    const { root, parent } = workspace()
    const fixture = slowGrepFixture(root)
    fs.writeFileSync(path.join(root, "a.txt"), "still here\n")
    const { client } = await server(root, [], { XDG_CONFIG_HOME: configHome(parent, { toolDeadlineMs: 300 }) })
    const stopped = await client.callTool({ name: "grep", arguments: { pattern: fixture.pattern, path: fixture.path } }, undefined, { timeout: 20_000 })
    expect(isErrorResult(stopped)).toBe(true)
    expect(textOf(stopped)).toBe("grep stopped: the call ran past minicode's overall deadline of 0.3 s (config toolDeadlineMs)")
    expect(textOf(await client.callTool({ name: "read_file", arguments: { path: "a.txt" } }))).toMatch(/still here/)
  })

  it("a bad toolDeadlineMs in the configuration stops start-up with a message naming it", () => {
    const { root, parent } = workspace()
    for (const bad of [0, -5, 1.5, "10s"]) {
      const env = { ...process.env, XDG_CONFIG_HOME: configHome(parent, { toolDeadlineMs: bad }) }
      const run = spawnSync(process.execPath, [bin, "mcp", "serve", "--cwd", root], { env, input: "", encoding: "utf8", timeout: 20_000 })
      expect(run.status, String(bad)).not.toBe(0)
      // stdout is the protocol channel: the start-up error is one plain line on stderr, naming the key.
      expect(run.stdout, String(bad)).toBe("")
      expect(run.stderr, String(bad)).toMatch(/^minicode mcp serve: .*config\.json: toolDeadlineMs: /)
    }
  })
})

describe("mcp serve: SIGTERM and cancellation while a command runs (built binary, SDK client)", () => {
  it("SIGTERM during `sleep 60`: interrupted at the drain deadline and answered so, the process tree killed, journaled unknown, exit within the deadline", async () => {
    const { root } = workspace()
    const { client, pid } = await server(root)
    const closed = new Promise<number>((resolve) => {
      client.onclose = () => resolve(Date.now())
    })
    const call = client.callTool({ name: "bash", arguments: { command: "sleep 60; echo never" } }, undefined, { timeout: 120_000 }).then(
      (r) => ({ ok: true as const, text: textOf(r) }),
      (e: unknown) => ({ ok: false as const, text: e instanceof Error ? e.message : String(e), code: (e as { code?: unknown }).code })
    )
    const tree = await sleepUnder(pid)
    const sent = Date.now()
    process.kill(pid, "SIGTERM")
    const answer = await call
    const exitedAfter = (await closed) - sent
    console.log(`[measured] SIGTERM with bash sleep 60 running: exit after ${exitedAfter} ms (drain deadline ${drainMs} ms)`)
    expect(answer.ok).toBe(false)
    expect(answer.text).toMatch(/shut down while request .* ran: it was interrupted at the drain deadline of 5 s/)
    // The calls in flight get the whole drain deadline; then the process is gone within about a second.
    expect(exitedAfter).toBeGreaterThanOrEqual(drainMs - 100)
    expect(exitedAfter).toBeLessThan(drainMs + 1_500)
    await sleep(200)
    expect(tree.filter((p) => alive(p.pid)).map((p) => `${p.pid} ${p.comm}`)).toEqual([])
    const records = journal(root)
    expect(records.map((r) => [r.tool, r.state])).toEqual([["bash", "unknown"]])
    expect(records[0]?.note).toMatch(/interrupted/)
  }, 30_000)

  it("notifications/cancelled for a running `sleep 30`: the command is killed and the next read on the connection answers promptly", async () => {
    const { root } = workspace()
    fs.writeFileSync(path.join(root, "a.txt"), "still here\n")
    const { client, pid } = await server(root)
    const abort = new AbortController()
    const long = client.callTool({ name: "bash", arguments: { command: "sleep 30; echo never" } }, undefined, { signal: abort.signal, timeout: 120_000 })
    const tree = await sleepUnder(pid)
    const cancelled = Date.now()
    abort.abort("user pressed stop")
    await expect(long).rejects.toThrow()
    const read = await client.callTool({ name: "read_file", arguments: { path: "a.txt" } })
    const answeredAfter = Date.now() - cancelled
    console.log(`[measured] cancel of bash sleep 30 -> next read_file answered after ${answeredAfter} ms`)
    expect(textOf(read)).toMatch(/still here/)
    expect(answeredAfter).toBeLessThan(5_000)
    const until = Date.now() + 5_000
    while (tree.some((p) => alive(p.pid)) && Date.now() < until) await sleep(50)
    expect(tree.filter((p) => alive(p.pid)).map((p) => `${p.pid} ${p.comm}`)).toEqual([])
    // The server still serves, and the cancelled command is journaled as not known to have finished.
    expect(await client.ping()).toEqual({})
    await client.close()
    await sleep(300)
    expect(journal(root).map((r) => [r.tool, r.state])).toEqual([["bash", "unknown"]])
  }, 30_000)
})
