/**
 * Issue 40, item 7: a pattern that backtracks for ever (`(a+)+(?=b)` over a line of 5,000 `a`s) ran on the main
 * thread: `mcp serve` answered nothing else, ignored `notifications/cancelled`, SIGTERM and SIGINT (only SIGKILL
 * ended it), and the CLI ignored SIGTERM for minutes. Now grep's own search runs in a worker thread the call's
 * scope ends. The regex never finishes by itself, so every bound below is a liveness bound, not a benchmark.
 * Cases: the own walk (MINICODE_GREP=node), rg's path with a look-ahead (rg cannot take it: the own walk answers),
 * and rg's path with a pattern rg takes (`(a+)+c`, linear in rg) over a file rg names binary past 8 KiB, which grep
 * searches again with JavaScript's regex.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { limits } from "../../src/serve/Server.js"
import { runCli } from "../support/Cli.js"
import { bin, cpuMs, ensureBuilt, makeWorkspace, Raw, sleep, textOf, workspaces } from "./support/McpServeHarness.js"

const { cleanups, workspace } = workspaces(makeWorkspace)
ensureBuilt()

const line = `${"a".repeat(5000)}!\n`
const cases = [
  { name: "the own walk", env: { MINICODE_GREP: "node" }, pattern: "(a+)+(?=b)" },
  { name: "rg's path, a look-ahead (the own walk answers)", env: { MINICODE_GREP: "" }, pattern: "(a+)+(?=b)" },
  { name: "rg's path, a file rg names binary past 8 KiB", env: { MINICODE_GREP: "" }, pattern: "^(a+)+$" }
] as const

const setup = () => {
  const { root } = workspace()
  fs.writeFileSync(path.join(root, "ok.txt"), "still here\n")
  fs.mkdirSync(path.join(root, "slow"))
  fs.writeFileSync(path.join(root, "slow/long.txt"), line)
  // A match for rg before a NUL 9 KiB in, then the line that backtracks.
  fs.writeFileSync(path.join(root, "slow/late.bin"), Buffer.concat([Buffer.from(`aaa\n${"filler\n".repeat(1400)}`), Buffer.from([0]), Buffer.from(`\n${line}`)]))
  return root
}

const serve = (root: string, env: Readonly<Record<string, string>>) => {
  const r = new Raw(root, [], env)
  cleanups.push(() => r.kill())
  return r
}

/** Waits until the process has burnt `ms` more CPU (the search is under way), at most 20 s. */
const busy = async (pid: number, ms: number) => {
  const before = cpuMs(pid)
  for (let i = 0; i < 200 && cpuMs(pid) - before <= ms; i++) await sleep(100)
  return cpuMs(pid) - before
}

describe("a regex that backtracks for ever holds nothing up (built mcp serve and CLI)", () => {
  for (const c of cases) {
    it(`${c.name}: other calls and pings are answered, notifications/cancelled stops it, SIGTERM ends the server`, async () => {
      const root = setup()
      const r = serve(root, c.env)
      await r.init()
      r.call("slow", "grep", { pattern: c.pattern, path: "slow" })
      expect(await busy(r.child.pid ?? 0, 300)).toBeGreaterThan(300)
      // A ping and another call while it runs.
      let sent = Date.now()
      r.send({ jsonrpc: "2.0", id: "ping", method: "ping" })
      await r.reply("ping", 1, 1000)
      expect(Date.now() - sent).toBeLessThan(1000)
      r.call("read", "read_file", { path: "ok.txt" })
      expect(JSON.stringify((await r.reply("read", 1, 5000)).result)).toContain("still here")
      // Cancelled: the process goes idle, and answers the next grep.
      r.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "slow", reason: "user pressed stop" } })
      await sleep(1000)
      const idle = cpuMs(r.child.pid ?? 0)
      await sleep(1000)
      expect(cpuMs(r.child.pid ?? 0) - idle).toBeLessThan(300)
      r.call("after", "grep", { pattern: "still" })
      expect(textOf((await r.reply("after", 1, 20_000)).result)).toContain("ok.txt:1:still here")
      // Busy again, then SIGTERM: a read-only call is stopped at once (it changed nothing), so the server is gone
      // within 2 s, not after the drain deadline writes get; before, it never exited.
      r.call("slow2", "grep", { pattern: c.pattern, path: "slow" })
      expect(await busy(r.child.pid ?? 0, 300)).toBeGreaterThan(300)
      sent = Date.now()
      r.child.kill("SIGTERM")
      await r.exit(limits.drainMs + 2000)
      expect(Date.now() - sent).toBeLessThan(2000)
      expect(JSON.stringify(await r.reply("slow2", 1, 100))).toMatch(/shut down while request .*a read-only call is stopped at once/)
    }, 120_000)

    it(`${c.name}: the CLI exits promptly on SIGTERM mid-grep`, async () => {
      const root = setup()
      let pid = 0
      const run = runCli(bin, ["tool", "grep", JSON.stringify({ pattern: c.pattern, path: "slow" }), "--cwd", root], {
        env: { ...process.env, ...c.env },
        timeoutMs: 60_000,
        onPid: (p) => (pid = p)
      })
      await sleep(500)
      expect(await busy(pid, 300)).toBeGreaterThan(300)
      const sent = Date.now()
      process.kill(pid, "SIGTERM")
      const done = await run
      expect(Date.now() - sent).toBeLessThan(2000)
      expect(done.signal).toBeNull()
      expect(done.status).toBe(130)
    }, 120_000)
  }
})
