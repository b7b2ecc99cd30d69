/**
 * Issue 40, item 7, the glob half: picomatch turns `*a*a*…*b` into a regex of lazy runs that V8 takes minutes to
 * refuse on one 40-character name, on the thread that answers every call. Such globs are now matched by
 * LinearGlob (linear in the name), in glob and in grep's `glob` filter, through the built CLI and `mcp serve`.
 * Before, each of these calls ran past the test's own limit; the answers are also checked against what the shell
 * would list.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { runCli } from "../support/Cli.js"
import { bin, ensureBuilt, makeWorkspace, Raw, textOf, workspaces } from "./support/McpServeHarness.js"

const { cleanups, workspace } = workspaces(makeWorkspace)
ensureBuilt()

const glob = `${"*a".repeat(14)}*b`
const setup = () => {
  const { root } = workspace()
  fs.mkdirSync(path.join(root, "names"))
  fs.writeFileSync(path.join(root, "names", "a".repeat(60)), "no b here\n")
  fs.writeFileSync(path.join(root, "names", `${"a".repeat(30)}b`), "a match: b\n")
  fs.writeFileSync(path.join(root, "names", "ab"), "too few a's\n")
  return root
}

describe("a glob that backtracks for ever in picomatch (built CLI and mcp serve)", () => {
  it("glob and grep's glob filter answer through the CLI, and list what the shell would", async () => {
    const root = setup()
    const listed = await runCli(bin, ["tool", "glob", JSON.stringify({ pattern: `names/${glob}` }), "--cwd", root], { timeoutMs: 60_000 })
    expect(listed.signal, "killed at the test's limit: the glob did not finish").toBeNull()
    expect(listed.stdout.trim().split("\n")).toEqual([`names/${"a".repeat(30)}b`])
    const grepped = await runCli(bin, ["tool", "grep", JSON.stringify({ pattern: "b", glob }), "--cwd", root], { timeoutMs: 60_000, env: { ...process.env, MINICODE_GREP: "node" } })
    expect(grepped.signal).toBeNull()
    expect(grepped.stdout).toContain(`names/${"a".repeat(30)}b:1:a match: b`)
    expect(grepped.stdout).not.toContain("too few")
  }, 150_000)

  it("mcp serve answers the glob, and a ping meanwhile", async () => {
    const root = setup()
    const r = new Raw(root, [], {})
    cleanups.push(() => r.kill())
    await r.init()
    r.call("g", "glob", { pattern: `**/${glob}` })
    r.send({ jsonrpc: "2.0", id: "ping", method: "ping" })
    await r.reply("ping", 1, 30_000)
    expect(textOf((await r.reply("g", 1, 30_000)).result)).toContain(`names/${"a".repeat(30)}b`)
  }, 90_000)
})
