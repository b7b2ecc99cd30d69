/**
 * Issue 40, item 10: a `.minicode/state.db` deleted or replaced while `minicode mcp serve` runs. Before the fix the
 * server's later writes said ok while their records went into the unlinked file: `minicode journal` and `undo` saw
 * nothing of them. Now the next mutation is refused with a sentence, before its effect, and nothing is written.
 * Against the BUILT server with the SDK client, read back with the built CLI.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { beforeAll, describe, expect, it } from "vitest"
import { runCli } from "../support/Cli.js"
import { bin, connect, ensureBuilt, isErrorResult, makeWorkspace, textOf, workspaces } from "./support/McpServeHarness.js"

const { cleanups, workspace } = workspaces(makeWorkspace)
beforeAll(() => ensureBuilt(), 120_000)

const write = (p: string, content: string) => ({ name: "write_file", arguments: { path: p, content } })
const edit = (p: string) => ({ name: "edit_file", arguments: { path: p, old_string: "a", new_string: "A" } })

const serve = async (root: string) => {
  const s = await connect(root, ["--sandbox", "none"])
  cleanups.push(() => s.close().catch(() => undefined))
  return s
}

const records = async (root: string) => {
  const run = await runCli(bin, ["journal", "--json", "--cwd", root])
  expect(run.status, run.stderr).toBe(0)
  return (JSON.parse(run.stdout) as ReadonlyArray<{ readonly tool: string; readonly paths: ReadonlyArray<string> }>).map((r) => `${r.tool} ${r.paths.join(" ")}`)
}

describe("a journal database deleted or replaced mid-session (issue 40, item 10)", () => {
  const cases: ReadonlyArray<readonly [string, (db: string, root: string) => void, RegExp]> = [
    ["deleted", (db) => fs.rmSync(db), /state\.db was deleted since this process opened it: the call was refused and nothing was written/],
    [
      "replaced by a copy of itself (another inode)",
      (db) => {
        fs.copyFileSync(db, `${db}.copy`)
        fs.renameSync(`${db}.copy`, db)
      },
      /state\.db was replaced by another file since this process opened it: the call was refused and nothing was written/
    ],
    [
      "replaced by an empty file",
      (db) => {
        fs.writeFileSync(`${db}.new`, "")
        fs.renameSync(`${db}.new`, db)
      },
      /state\.db was replaced by another file/
    ]
  ]
  for (const [name, change, refusal] of cases) {
    it(`${name}: the next write and edit are refused with a sentence and change nothing; nothing is recorded blind`, async () => {
      const { root } = workspace()
      const s = await serve(root)
      expect(isErrorResult(await s.client.callTool(write("a.txt", "a\n")))).toBe(false)
      const db = path.join(root, ".minicode", "state.db")
      change(db, root)
      const refused = await s.client.callTool(write("b.txt", "b\n"))
      expect(isErrorResult(refused)).toBe(true)
      expect(textOf(refused)).toMatch(refusal)
      expect(fs.existsSync(path.join(root, "b.txt"))).toBe(false)
      const editRefused = await s.client.callTool(edit("a.txt"))
      expect(textOf(editRefused)).toMatch(refusal)
      expect(fs.readFileSync(path.join(root, "a.txt"), "utf8")).toBe("a\n")
      // Reads are not journaled: they go on.
      expect(textOf(await s.client.callTool({ name: "read_file", arguments: { path: "a.txt" } }))).toContain("a")
      await s.close()
      // What the journal at that path holds: never a record of the refused calls.
      const now = await records(root)
      expect(now.filter((r) => r.includes("b.txt"))).toEqual([])
      expect(now.filter((r) => r.startsWith("edit_file"))).toEqual([])
      // A new process journals into the file that is there now.
      const again = await serve(root)
      expect(isErrorResult(await again.client.callTool(write("b.txt", "b\n")))).toBe(false)
      await again.close()
      expect(await records(root)).toContain("write_file b.txt")
    }, 90_000)
  }
})
