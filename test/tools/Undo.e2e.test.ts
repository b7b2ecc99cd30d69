/**
 * `minicode undo` restores through the jail as the workspace is now (issue 19, hole 7): a folder replaced by a
 * symlink to outside since the turn, or a snapshot path edited in `.minicode/state.db`, is refused and nothing
 * outside the workspace is created, written or removed. Driven through the built CLI, as a user would.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as os from "node:os"
import * as path from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"

const bin = path.resolve("dist/bin.js")
const minicode = (args: ReadonlyArray<string>) => spawnSync(process.execPath, [bin, ...args], { encoding: "utf8" })

interface Db {
  prepare(sql: string): { run(...params: ReadonlyArray<unknown>): unknown; all(...params: ReadonlyArray<unknown>): ReadonlyArray<Record<string, unknown>> }
  close(): void
}
const openDb = (file: string): Db => {
  const Database: new (file: string) => Db = createRequire(import.meta.url)("better-sqlite3")
  return new Database(file)
}

let base: string
let ws: string
let outside: string
beforeEach(() => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "minicode-undo-jail-")))
  ws = path.join(base, "ws")
  outside = path.join(base, "outside")
  fs.mkdirSync(ws)
  fs.mkdirSync(outside)
  fs.writeFileSync(path.join(outside, "keep.txt"), "outside")
})
afterEach(() => fs.rmSync(base, { recursive: true, force: true }))

const build = () => ["--cwd", ws, "--work-mode", "BUILD", "--sandbox", "none"]
const tool = (name: string, args: unknown) => {
  const r = minicode(["tool", name, JSON.stringify(args), ...build()])
  expect(r.status, r.stderr).toBe(0)
}
const listing = (dir: string) => fs.readdirSync(dir, { recursive: true }).map(String).sort()

describe("undo and redo through the jail", () => {
  it("a deleted file whose folder became a symlink to outside is refused; nothing is created outside", () => {
    fs.mkdirSync(path.join(ws, "d/e"), { recursive: true })
    fs.writeFileSync(path.join(ws, "d/e/a.txt"), "precious\n")
    tool("delete_file", { path: "d/e/a.txt" })
    // Any process (sandboxed bash, a build step) replaces d by a link to outside.
    fs.rmSync(path.join(ws, "d"), { recursive: true })
    fs.symlinkSync(outside, path.join(ws, "d"))
    const undo = minicode(["undo", "--cwd", ws])
    expect(undo.status, undo.stderr).toBe(3) // denied: the exit-code table
    expect(undo.stdout).toContain("refused d/e/a.txt")
    expect(undo.stdout).toContain("leads outside the workspace through a symlink")
    expect(listing(outside)).toEqual(["keep.txt"])
    // Once d is a folder of the workspace again, undoing that turn restores the file.
    fs.rmSync(path.join(ws, "d"))
    fs.mkdirSync(path.join(ws, "d"))
    const [checkpoint] = JSON.parse(minicode(["checkpoints", "--json", "--cwd", ws]).stdout) as ReadonlyArray<{ session: string; turn: number }>
    const again = minicode(["undo", "--cwd", ws, "--session", checkpoint?.session ?? "", "--turn", String(checkpoint?.turn)])
    expect(again.status, again.stdout + again.stderr).toBe(0)
    expect(fs.readFileSync(path.join(ws, "d/e/a.txt"), "utf8")).toBe("precious\n")
    expect(listing(outside)).toEqual(["keep.txt"])
  })

  it("snapshot paths edited in state.db (../ and absolute) are refused by undo and redo; nothing outside is touched", () => {
    fs.writeFileSync(path.join(ws, "x.txt"), "one\n")
    fs.writeFileSync(path.join(ws, "y.txt"), "one\n")
    tool("write_file", { path: "x.txt", content: "two\n" })
    tool("write_file", { path: "y.txt", content: "two\n" })
    tool("write_file", { path: "z.txt", content: "new\n" })
    const db = openDb(path.join(ws, ".minicode/state.db"))
    const edits: ReadonlyArray<readonly [string, string]> = [
      ["x.txt", "../outside/x.txt"],
      ["y.txt", path.join(outside, "y.txt")],
      ["z.txt", "../outside/keep.txt"]
    ]
    for (const [from, to] of edits) db.prepare("UPDATE snapshots SET path = ? WHERE path = ?").run(to, from)
    expect(db.prepare("SELECT path FROM snapshots ORDER BY record_seq").all().map((r) => r.path)).toEqual(edits.map(([, to]) => to))
    db.close()
    const checkpoints = JSON.parse(minicode(["checkpoints", "--json", "--cwd", ws]).stdout) as ReadonlyArray<{ session: string; turn: number }>
    expect(checkpoints).toHaveLength(3)
    for (const c of checkpoints) {
      for (const action of ["undo", "redo"]) {
        const r = minicode([action, "--cwd", ws, "--session", c.session, "--turn", String(c.turn)])
        if (action === "undo") {
          expect(r.status, r.stdout + r.stderr).toBe(3) // denied: the exit-code table
          expect(r.stdout).toMatch(/refused .*: ".*" is not a plain workspace-relative path/)
        }
      }
    }
    // The outside file an undo of the create would have removed, and the files an undo would have written.
    expect(listing(outside)).toEqual(["keep.txt"])
    expect(fs.readFileSync(path.join(outside, "keep.txt"), "utf8")).toBe("outside")
    expect(fs.readFileSync(path.join(ws, "x.txt"), "utf8")).toBe("two\n")
    expect(fs.readFileSync(path.join(ws, "z.txt"), "utf8")).toBe("new\n")
  })
})
