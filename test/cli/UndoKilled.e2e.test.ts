/**
 * Issue 40, item 8: an undo killed part-way. A turn of 60 files (made by the BUILT `mcp serve`: 50 changed, 5
 * created, 5 deleted) is undone by the built CLI, which SIGKILLs itself after its Nth journaled step
 * (MINICODE_TEST_KILL_RESTORE_AT, read from the environment the test gives it). For a spread of N over every kind of
 * step (the run's intent; a file's intent, write and record; the run's end): `recover` names every file, each file
 * found restored has a record of its own, and a later undo (then redo), or a redo, leaves a consistent tree.
 * Before: one record for the whole run, so a kill left files restored with no record that said so.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { runCli } from "../support/Cli.js"
import { tree } from "../support/Workspace.js"
import { bin, connect, ensureBuilt } from "../serve/support/McpServeHarness.js"

const made: Array<string> = []
afterAll(() => {
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true })
})
const fresh = (prefix: string) => {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)))
  made.push(dir)
  return dir
}

const names = Array.from({ length: 60 }, (_, i) => `f${String(i).padStart(2, "0")}.txt`)
let base = ""
let before: Record<string, string> = {}
let after: Record<string, string> = {}

beforeAll(async () => {
  ensureBuilt()
  base = fresh("minicode-undo-killed-base-")
  names.forEach((name, i) => {
    if (i < 55) fs.writeFileSync(path.join(base, name), `before ${i}\n`)
  })
  before = tree(base)
  const s = await connect(base, ["--sandbox", "none"])
  for (const [i, name] of names.entries()) {
    // 0-49 changed, 50-54 deleted, 55-59 created: undo writes, recreates and removes.
    const call = i >= 50 && i < 55 ? { name: "delete_file", arguments: { path: name } } : { name: "write_file", arguments: { path: name, content: `after ${i}\n` } }
    const result = await s.client.callTool(call)
    expect(result.isError, JSON.stringify(result)).not.toBe(true)
  }
  await s.close()
  after = tree(base)
}, 180_000)

const cli = (root: string, args: ReadonlyArray<string>, env: NodeJS.ProcessEnv = process.env) =>
  runCli(bin, [...args, "--cwd", root], { env, timeoutMs: 120_000 })

interface Item {
  readonly seq: number | null
  readonly tool: string | null
  readonly paths: ReadonlyArray<string>
  readonly classification: string
  readonly explanation: string
}

// Steps: 1 the run's intent; file k (from 0) has 3k+2 its intent, 3k+3 its write, 3k+4 its record; 182 the run's end.
const killPoints = [1, 2, 3, 4, 5, 30, 31, 89, 90, 91, 168, 170, 182, 181]

describe("an undo killed at every kind of step (issue 40, item 8)", () => {
  for (const [n, at] of killPoints.entries()) {
    it(`killed after step ${at}: recover names every file and which are restored; then ${n % 2 === 0 ? "undo finishes it and redo reverses it" : "redo takes it back"}`, async () => {
      const root = fresh("minicode-undo-killed-")
      fs.cpSync(base, root, { recursive: true })
      const killed = await cli(root, ["undo"], { ...process.env, MINICODE_TEST_KILL_RESTORE_AT: String(at) })
      expect(killed.signal, killed.stderr).toBe("SIGKILL")
      const now = tree(root)
      const restored = names.filter((p) => now[p] === before[p])
      for (const p of names) expect(now[p] === before[p] || now[p] === after[p], `${p} is either as before or as after`).toBe(true)

      const recover = await cli(root, ["recover", "--json"])
      const items = (JSON.parse(recover.stdout) as { readonly items: ReadonlyArray<Item> }).items
      // Every file of the turn is named by the run's own record (or, once it ended, by the file records).
      const named = new Set(items.flatMap((i) => i.paths))
      for (const p of names) expect(named.has(p), `recover names ${p}`).toBe(true)
      // Each file found restored has a record of its own: done, or open for the file the kill came at.
      const fileItems = items.filter((i) => i.tool === "undo.file")
      for (const p of restored) expect(fileItems.some((i) => i.paths.includes(p)), `${p} restored and recorded`).toBe(true)
      const doneFiles = fileItems.filter((i) => i.classification === "done").flatMap((i) => i.paths)
      for (const p of doneFiles) expect(now[p], `${p} recorded done is restored`).toBe(before[p])
      const waiting = items.filter((i) => i.classification !== "done")
      if (at < 182) {
        expect(recover.status).toBe(4)
        expect(waiting.find((i) => i.tool === "undo")?.explanation).toMatch(/^#\d+ undo of turn mcp-server\/1 stopped before it finished .* run `minicode undo --session mcp-server --turn 1` to finish it/)
      } else {
        expect(recover.status).toBe(0)
      }

      if (n % 2 === 0) {
        const undo = await cli(root, ["undo"])
        // Killed after its end, the undo is done: nothing is left to undo.
        expect(undo.status, undo.stdout + undo.stderr).toBe(at === 182 ? 2 : 0)
        expect(tree(root)).toEqual(before)
        const settled = await cli(root, ["recover"])
        expect(settled.status, settled.stdout).toBe(0)
        const redo = await cli(root, ["redo"])
        expect(redo.status, redo.stdout + redo.stderr).toBe(0)
        expect(tree(root)).toEqual(after)
      } else {
        const redo = await cli(root, ["redo"])
        expect(redo.status, redo.stdout + redo.stderr).toBe(0)
        expect(tree(root)).toEqual(after)
        const settled = await cli(root, ["recover"])
        expect(settled.status, settled.stdout).toBe(0)
        const undo = await cli(root, ["undo"])
        expect(undo.status, undo.stdout + undo.stderr).toBe(0)
        expect(tree(root)).toEqual(before)
      }
    }, 180_000)
  }
})
