/**
 * `undo`, `redo`, `checkpoints` and `journal` on the built CLI, as a user meets them: turns that changed nothing
 * are no checkpoints, a refused undo leaves the turn undoable, messages are sentences, bash records show their
 * (redacted) command.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"

const bin = path.resolve("dist/bin.js")
const made: Array<string> = []
afterEach(() => {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
})
const workspace = () => {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "minicode-undo-cli-")))
  made.push(dir)
  return dir
}
const run = (dir: string, args: ReadonlyArray<string>) =>
  spawnSync(process.execPath, [bin, ...args, "--cwd", dir], { encoding: "utf8", timeout: 60_000 })
const tool = (dir: string, name: string, args: unknown, mode = "BUILD") =>
  run(dir, ["tool", name, JSON.stringify(args), "--work-mode", mode, "--sandbox", "none"])
const turns = (dir: string) =>
  (JSON.parse(run(dir, ["checkpoints", "--json"]).stdout) as ReadonlyArray<{ turn: number; status: string; paths: ReadonlyArray<string> }>).map(
    (c) => [c.turn, c.status, c.paths] as const
  )

describe("undo on the command line", () => {
  it("turns that changed nothing are no checkpoints: undo goes straight to the turn that did", () => {
    const dir = workspace()
    fs.writeFileSync(path.join(dir, "a.txt"), "one\n")
    expect(tool(dir, "write_file", { path: "a.txt", content: "two\n" }).status).toBe(0)
    // A write of what is there, and a failed edit: neither changed a file.
    expect(tool(dir, "write_file", { path: "a.txt", content: "two\n" }).status).toBe(0)
    expect(tool(dir, "edit_file", { path: "a.txt", old_string: "absent text", new_string: "x" }).status).toBe(1)
    expect(turns(dir)).toEqual([[1, "applied", ["a.txt"]]])
    const undo = run(dir, ["undo"])
    expect(undo.status, undo.stderr).toBe(0)
    expect(undo.stdout).toContain("Undid turn cli/1: 1 file restored.")
    expect(fs.readFileSync(path.join(dir, "a.txt"), "utf8")).toBe("one\n")
    const none = run(dir, ["undo"])
    expect(none.status).toBe(2)
    expect(none.stderr).toMatch(/^minicode: nothing to undo: /)
    // Asked for by number, a turn that changed nothing says so.
    const noop = run(dir, ["undo", "--turn", "3"])
    expect(noop.status).toBe(2)
    expect(noop.stderr).toContain("nothing to undo: turn cli/3 changed no file")
  })

  it("a refused undo changes nothing and does not use the turn up: fixed, the same undo works, then redo", () => {
    const dir = workspace()
    fs.writeFileSync(path.join(dir, "a.txt"), "one\n")
    expect(tool(dir, "write_file", { path: "a.txt", content: "two\n" }).status).toBe(0)
    expect(tool(dir, "write_file", { path: "b.txt", content: "b\n" }).status).toBe(0)
    expect(tool(dir, "write_file", { path: "a.txt", content: "three\n" }).status).toBe(0)
    fs.writeFileSync(path.join(dir, "a.txt"), "someone else's\n")
    for (let i = 0; i < 2; i++) {
      const refused = run(dir, ["undo"])
      expect(refused.status).toBe(3)
      expect(refused.stdout.split("\n")[0]).toBe(
        "Undo of turn cli/3 refused: nothing was changed, and the turn can still be undone. Put the file below back as the turn left it (or move it aside), then run `minicode undo --session cli --turn 3`."
      )
      // What changed in words a person can check (issue 44): sizes and lines, never a hash prefix.
      expect(refused.stdout).toContain("refused a.txt: its content changed since the turn: now 15 bytes in 1 line, the turn left 6 bytes in 1 line.")
      expect(refused.stdout).not.toMatch(/sha256|[0-9a-f]{12}/)
      expect(fs.readFileSync(path.join(dir, "a.txt"), "utf8")).toBe("someone else's\n")
    }
    expect(turns(dir)[0]).toEqual([3, "applied", ["a.txt"]])
    // Nothing to redo: the refusal undid nothing.
    expect(run(dir, ["redo"]).stderr).toContain("nothing to redo")
    fs.writeFileSync(path.join(dir, "a.txt"), "three\n")
    const undo = run(dir, ["undo"])
    expect(undo.status, undo.stdout).toBe(0)
    expect(fs.readFileSync(path.join(dir, "a.txt"), "utf8")).toBe("two\n")
    const redo = run(dir, ["redo"])
    expect(redo.status, redo.stdout).toBe(0)
    expect(redo.stdout).toContain("Redid turn cli/3: 1 file restored.")
    expect(fs.readFileSync(path.join(dir, "a.txt"), "utf8")).toBe("three\n")
  })

  it("says what is there and what the turn left in words: a directory, absent, a file", () => {
    const dir = workspace()
    expect(tool(dir, "write_file", { path: "d/x.txt", content: "x" }).status).toBe(0)
    fs.rmSync(path.join(dir, "d/x.txt"))
    fs.mkdirSync(path.join(dir, "d/x.txt"))
    const dirNow = run(dir, ["undo"])
    expect(dirNow.status).toBe(3)
    expect(dirNow.stdout).toContain("refused d/x.txt: it is now a directory; the turn left a file of 1 byte in 1 line (mode 644).")
    expect(dirNow.stdout).not.toMatch(/sha256|absent or absent/)
    fs.rmdirSync(path.join(dir, "d/x.txt"))
    const already = run(dir, ["undo"])
    expect(already.status).toBe(0)
    expect(already.stdout).toContain("Nothing to restore in turn cli/1: every file it changed is already as it was before the turn.")
    expect(already.stdout).toContain("skipped d/x.txt: it is already as it was before the turn.")
    fs.writeFileSync(path.join(dir, "d/x.txt"), "other")
    const redo = run(dir, ["redo"])
    expect(redo.status).toBe(3)
    expect(redo.stdout).toContain("refused d/x.txt: a file of 5 bytes in 1 line (mode 644) was made there since the undo, which left it absent.")
    // Only the mode changed, or the content at the same size: said so.
    fs.rmSync(path.join(dir, "d/x.txt"))
    expect(run(dir, ["redo"]).status).toBe(0)
    fs.chmodSync(path.join(dir, "d/x.txt"), 0o600)
    expect(run(dir, ["undo"]).stdout).toContain("refused d/x.txt: its mode changed since the turn: now 600, the turn left 644.")
    fs.writeFileSync(path.join(dir, "d/x.txt"), "y")
    fs.chmodSync(path.join(dir, "d/x.txt"), 0o644)
    expect(run(dir, ["undo"]).stdout).toContain("refused d/x.txt: its content changed since the turn: the same size (1 byte in 1 line), other content.")
  })

  it("journal shows a bash record's command, redacted", () => {
    const dir = workspace()
    const token = `ghp_${"a1B2c3D4e5".repeat(4)}`
    const r = tool(dir, "bash", { command: `PGPASSWORD=hunter2 echo ${token} && echo done` }, "EXECUTE")
    expect(r.status, r.stderr).toBe(0)
    const text = run(dir, ["journal"]).stdout
    expect(text).toMatch(/^#1 .* cli\/1 bash committed \$ PGPASSWORD=\[redacted\] echo \[redacted: github token\] && echo done$/m)
    expect(text).not.toContain("hunter2")
    expect(text).not.toContain(token)
    const [record] = JSON.parse(run(dir, ["journal", "--json"]).stdout) as ReadonlyArray<{ summary?: string }>
    expect(record?.summary).toBe("PGPASSWORD=[redacted] echo [redacted: github token] && echo done")
    expect(fs.readFileSync(path.join(dir, ".minicode/state.db")).includes(Buffer.from("hunter2"))).toBe(false)
  })
})
