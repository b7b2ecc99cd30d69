/**
 * End to end, with the SDK's real Client against the BUILT `minicode mcp serve`: what a request id means across a
 * restart. Each session numbers its ids afresh, so the same call in two sessions runs twice; only a call that a
 * killed server never answered is answered from the journal, once.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { beforeAll, describe, expect, it } from "vitest"
import { connect, ensureBuilt, isErrorResult, makeWorkspace, sleep, textOf, workspaces } from "./support/McpServeHarness.js"

const { cleanups, workspace } = workspaces(makeWorkspace)

/** One session: a fresh server and a fresh SDK client (whose ids start again: initialize is 0, the first call 1). */
const session = async (root: string) => {
  const s = await connect(root)
  cleanups.push(() => s.close().catch(() => undefined))
  return s
}

const bash = (command: string) => ({ name: "bash", arguments: { command } })

const lines = (file: string): ReadonlyArray<string> =>
  fs.existsSync(file) ? fs.readFileSync(file, "utf8").split("\n").filter((l) => l !== "") : []

const until = async (what: string, ok: () => boolean, timeoutMs = 15_000) => {
  const deadline = Date.now() + timeoutMs
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(20)
  }
}

/** The JSON-RPC error a call was answered with (the SDK throws it as an McpError), or undefined for a result. */
const rpcErrorOf = async (p: Promise<unknown>): Promise<{ readonly code: unknown; readonly message: string } | undefined> =>
  p.then(
    () => undefined,
    (e: unknown) => ({ code: typeof e === "object" && e !== null && "code" in e ? e.code : undefined, message: String(e) })
  )

beforeAll(() => ensureBuilt(), 120_000)

describe("minicode mcp serve across restarts (built binary, SDK client)", () => {
  it("two sessions whose first call is the same both execute it (verified on disk)", async () => {
    const { root } = workspace()
    const log = path.join(root, "log.txt")
    for (const n of [1, 2]) {
      const { client, close } = await session(root)
      const result = await client.callTool(bash("echo hello >> log.txt"))
      expect(isErrorResult(result), textOf(result)).toBe(false)
      expect(lines(log)).toEqual(Array.from({ length: n }, () => "hello"))
      await close()
    }
    // The same again after a session that also wrote something else, and with another tool.
    const third = await session(root)
    expect(isErrorResult(await third.client.callTool(bash("echo hello >> log.txt")))).toBe(false)
    expect(isErrorResult(await third.client.callTool({ name: "write_file", arguments: { path: "w.txt", content: "w" } }))).toBe(false)
    await third.close()
    fs.rmSync(path.join(root, "w.txt"))
    const fourth = await session(root)
    expect(isErrorResult(await fourth.client.callTool(bash("echo hello >> log.txt")))).toBe(false)
    expect(isErrorResult(await fourth.client.callTool({ name: "write_file", arguments: { path: "w.txt", content: "w" } }))).toBe(false)
    await fourth.close()
    expect(lines(log)).toHaveLength(4)
    expect(fs.readFileSync(path.join(root, "w.txt"), "utf8")).toBe("w")
  }, 60_000)

  it("a call killed mid-run (SIGKILL of the server) and retried with the same id and arguments is answered 'outcome unknown', not re-run", async () => {
    const { root } = workspace()
    const started = path.join(root, "started.txt")
    const call = bash("echo started >> started.txt; sleep 2; echo done >> done.txt")
    const first = await session(root)
    const lost = first.client.callTool(call).then(
      () => "answered",
      () => "lost"
    )
    await until("the call to start", () => lines(started).length === 1)
    process.kill(first.pid, "SIGKILL")
    expect(await lost).toBe("lost")

    const second = await session(root)
    const retry = await rpcErrorOf(second.client.callTool(call))
    expect(retry?.code).toBe(-32082)
    expect(retry?.message).toMatch(/earlier run of this server that stopped before answering it/)
    expect(retry?.message).toMatch(/outcome is unknown/)
    // A re-run would have started again before any answer came.
    expect(lines(started)).toEqual(["started"])
    // Another call of that session runs as usual.
    expect(isErrorResult(await second.client.callTool(bash("echo other >> other.txt")))).toBe(false)
    await second.close()
    expect(lines(started)).toEqual(["started"])

    // That answer was written: the request is answered, and the next session's same call is a new one.
    const third = await session(root)
    const fresh = await third.client.callTool(call)
    expect(isErrorResult(fresh), textOf(fresh)).toBe(false)
    expect(lines(started)).toEqual(["started", "started"])
    await third.close()
  }, 60_000)

  it("two servers at once in one workspace: the same id and arguments from both clients run in both", async () => {
    const { root } = workspace()
    const call = bash("echo run >> log.txt; sleep 1")
    const a = await session(root)
    const b = await session(root)
    const first = a.client.callTool(call)
    // A's call is journaled and running (not answered) when B's same call comes.
    await until("A's call to start", () => lines(path.join(root, "log.txt")).length === 1)
    const second = await b.client.callTool(call)
    expect(isErrorResult(second), textOf(second)).toBe(false)
    expect(isErrorResult(await first)).toBe(false)
    expect(lines(path.join(root, "log.txt"))).toEqual(["run", "run"])
  }, 60_000)

  it("a failed call, fixed by the user, succeeds in the next session", async () => {
    const { root } = workspace()
    const call = bash("cat input.txt >> out.txt")
    const first = await session(root)
    const failed = await first.client.callTool(call)
    expect(isErrorResult(failed)).toBe(true)
    await first.close()
    fs.writeFileSync(path.join(root, "input.txt"), "fixed\n")
    const second = await session(root)
    const ok = await second.client.callTool(call)
    expect(isErrorResult(ok), textOf(ok)).toBe(false)
    expect(fs.readFileSync(path.join(root, "out.txt"), "utf8")).toBe("fixed\n")
    await second.close()
  }, 60_000)
})
