/**
 * Issue 40, item 9: one failed journal open must not fail a server for life. Against the BUILT `minicode mcp serve`
 * (SDK client) and the built CLI: another process holds `.minicode/state.db`'s lock past the busy timeout (5 s) while
 * the first writes arrive; once it lets go, every call succeeds. Before the fix the open's failure was cached (every
 * later mutation of the server failed with "database is locked"), and a lock seen by the integrity check was kept as
 * damage ("the journal database is damaged").
 */
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as path from "node:path"
import { beforeAll, describe, expect, it } from "vitest"
import { runCli } from "../support/Cli.js"
import { bin, connect, ensureBuilt, isErrorResult, makeWorkspace, textOf, workspaces } from "./support/McpServeHarness.js"

interface Db {
  exec(sql: string): unknown
  close(): void
}
const openDb = (file: string): Db => {
  const Database: new (file: string) => Db = createRequire(import.meta.url)("better-sqlite3")
  return new Database(file)
}

const { cleanups, workspace } = workspaces(makeWorkspace)
beforeAll(() => ensureBuilt(), 120_000)

/** A fresh workspace's state.db with an exclusive lock held by this process, released after `ms`. */
const lockedFor = (root: string, ms: number) => {
  fs.mkdirSync(path.join(root, ".minicode"), { mode: 0o700 })
  const db = openDb(path.join(root, ".minicode", "state.db"))
  db.exec("BEGIN EXCLUSIVE")
  let open = true
  const release = () => {
    if (!open) return
    open = false
    db.exec("ROLLBACK")
    db.close()
  }
  const timer = setTimeout(release, ms)
  cleanups.push(() => {
    clearTimeout(timer)
    release()
  })
}

const write = (p: string, content: string) => ({ name: "write_file", arguments: { path: p, content } })

describe("a journal open that fails is tried again (issue 40, item 9)", () => {
  it("two servers whose first writes meet a lock held past the busy timeout: every call of both succeeds, and the journal has them all", async () => {
    const { root } = workspace()
    lockedFor(root, 7_000)
    const servers = await Promise.all([connect(root, ["--sandbox", "none"]), connect(root, ["--sandbox", "none"])])
    for (const s of servers) cleanups.push(() => s.close().catch(() => undefined))
    const failures: Array<string> = []
    await Promise.all(
      servers.map(async (s, n) => {
        for (let i = 0; i < 6; i++) {
          const result = await s.client.callTool(write(`s${n}-${i}.txt`, `${n}.${i}\n`))
          if (isErrorResult(result)) failures.push(`server ${n} call ${i}: ${textOf(result)}`)
        }
      })
    )
    expect(failures).toEqual([])
    for (const s of servers) await s.close()
    for (const n of [0, 1]) for (let i = 0; i < 6; i++) expect(fs.readFileSync(path.join(root, `s${n}-${i}.txt`), "utf8")).toBe(`${n}.${i}\n`)
    const journal = await runCli(bin, ["journal", "--json", "--cwd", root])
    expect(journal.status, journal.stderr).toBe(0)
    const records = JSON.parse(journal.stdout) as ReadonlyArray<{ readonly tool: string; readonly state: string }>
    expect(records.filter((r) => r.tool === "write_file" && r.state === "committed")).toHaveLength(12)
  }, 90_000)

  it("a server whose first write failed (the lock outlived every try) writes once the lock is gone", async () => {
    const { root } = workspace()
    // Longer than the open's tries (4 of 5 s each, plus their pauses): the first call fails, said as a lock.
    lockedFor(root, 24_000)
    const s = await connect(root, ["--sandbox", "none"])
    cleanups.push(() => s.close().catch(() => undefined))
    const first = await s.client.callTool(write("a.txt", "a\n"))
    expect(isErrorResult(first)).toBe(true)
    expect(textOf(first)).toMatch(/database is locked/)
    expect(fs.existsSync(path.join(root, "a.txt"))).toBe(false)
    await new Promise((resolve) => setTimeout(resolve, 4_000))
    for (const name of ["a.txt", "b.txt"]) {
      const result = await s.client.callTool(write(name, `${name}\n`))
      expect(isErrorResult(result), textOf(result)).toBe(false)
    }
    expect(fs.readFileSync(path.join(root, "b.txt"), "utf8")).toBe("b.txt\n")
    await s.close()
  }, 120_000)

  it("the CLI's write waits out another process's lock instead of failing", async () => {
    const { root } = workspace()
    lockedFor(root, 7_000)
    const run = await runCli(bin, ["tool", "write_file", JSON.stringify({ path: "c.txt", content: "c\n" }), "--cwd", root, "--work-mode", "BUILD", "--sandbox", "none"], { timeoutMs: 60_000 })
    expect(run.status, run.stderr).toBe(0)
    expect(fs.readFileSync(path.join(root, "c.txt"), "utf8")).toBe("c\n")
  }, 90_000)
})
