/**
 * Issue 40, item 2, through the built CLI and `mcp serve`: `[!a-z]*` returned exactly the names it should leave out
 * (picomatch read `[!` as a class holding `!`), in glob and in grep's `glob` filter, with ripgrep and with grep's own
 * walk. A negated class (`[!…]`, `[^…]`) negates now, as in the shell.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { runCli } from "../support/Cli.js"
import { bin, connect, gitWorkspaces, textOf } from "../serve/support/McpServeHarness.js"

const { workspace, cleanups } = gitWorkspaces()

const files = ["abc.ts", "Xyz.ts", "1a.ts", "!x.ts", "src/b.ts", "src/Z.ts"]
/** What bash names for `**\/[!a-z]*` (dotglob, globstar, C locale) among `files`. */
const negated = ["!x.ts", "1a.ts", "Xyz.ts", "src/Z.ts"]

const plant = (root: string) => {
  for (const f of files) {
    fs.mkdirSync(path.dirname(path.join(root, f)), { recursive: true })
    fs.writeFileSync(path.join(root, f), `needle in ${f}\n`)
  }
}
const lines = (text: string) => text.split("\n").filter((l) => l !== "" && !l.startsWith("["))
const grepFiles = (text: string) => [...new Set(lines(text).map((l) => l.split(":")[0] ?? ""))].sort()

describe("glob's negated classes (issue 40, item 2)", () => {
  it("the CLI: glob and grep's glob filter (ripgrep and the own walk) leave out what [!a-z] and [^a-z] name", async () => {
    const { root } = workspace()
    plant(root)
    const cli = (tool: string, args: unknown, env: NodeJS.ProcessEnv = process.env) =>
      runCli(bin, ["tool", tool, JSON.stringify(args), "--cwd", root], { env, timeoutMs: 120_000 })
    for (const pattern of ["[!a-z]*", "[^a-z]*"]) {
      const g = await cli("glob", { pattern })
      expect(g.status, g.stderr).toBe(0)
      expect(lines(g.stdout).sort(), pattern).toEqual(negated)
      for (const engine of ["rg", "node"]) {
        const env = engine === "node" ? { ...process.env, MINICODE_GREP: "node" } : process.env
        const r = await cli("grep", { pattern: "needle", glob: pattern }, env)
        expect(r.status, r.stderr).toBe(0)
        expect(grepFiles(r.stdout), `${engine} ${pattern}`).toEqual(negated)
      }
    }
    const sub = await cli("glob", { pattern: "src/[!a-z]*" })
    expect(lines(sub.stdout)).toEqual(["src/Z.ts"])
  }, 240_000)

  it("mcp serve: glob and grep's glob filter negate the class", async () => {
    const { root } = workspace()
    plant(root)
    const s = await connect(root, ["--allow-all", "--no-ask"])
    cleanups.push(() => s.close())
    const g = textOf(await s.client.callTool({ name: "glob", arguments: { pattern: "[!a-z]*" } }))
    expect(lines(g).sort()).toEqual(negated)
    const r = textOf(await s.client.callTool({ name: "grep", arguments: { pattern: "needle", glob: "[!a-z]*" } }))
    expect(grepFiles(r)).toEqual(negated)
  }, 120_000)
})
