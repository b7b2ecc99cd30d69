/**
 * Red team (issue 19), held: a short run of bench/race-campaign.ts. One `minicode mcp serve --allow-all --no-ask`
 * takes edit_file, delete_file, move_file, list_dir, read_file and sql_query calls, several in flight, while a host
 * process (python3 ctypes `renameat2(RENAME_EXCHANGE)` in a tight loop) exchanges the folder they name, `d`, with a
 * symlink `l` to a folder outside holding the same names: canary content, a canary file name, a database whose row
 * is the canary. The other swap tests go through separate CLI processes and cover grep, glob, undo/redo and bash
 * mounts; these operations, and the long-lived server's descriptor walk with calls overlapping, were only checked
 * after a swap, not during one.
 *
 * Invariant: whatever the interleaving, no output shows the canary and nothing outside changes (names, modes,
 * content, no new file, no temp-file litter). Some calls succeed and some are refused, so the race had teeth.
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { connect, isErrorResult, textOf } from "../serve/support/McpServeHarness.js"
import { attackFile, attackWorkspace } from "./support/Attack.js"
import { title, unavailable } from "../support/Sandbox.js"

const canary = "CANARYq7outside"
const canaryName = "zz-canary-name"
const cleanups = attackFile()

/** Swaps `d` and `l` until SIGTERM, then leaves `d` real. */
const swapperPy = `import ctypes, os, signal, sys
libc = ctypes.CDLL(None, use_errno=True)
stop = []
signal.signal(signal.SIGTERM, lambda *a: stop.append(1))
x = libc.renameat2
x(-100, b"d", -100, b"l", 2)
print("ready", flush=True)
while not stop:
    x(-100, b"d", -100, b"l", 2)
if os.path.islink("d"): x(-100, b"d", -100, b"l", 2)
`

const sqlite = (file: string, value: string) =>
  `import sqlite3\nc = sqlite3.connect(${JSON.stringify(file)})\nc.execute("create table t(v text)")\nc.execute("insert into t values ('${value}')")\nc.commit()\n`

const tree = (dir: string): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const name of fs.readdirSync(dir)) {
    const st = fs.lstatSync(path.join(dir, name))
    out[name] = `${st.mode} ${st.isFile() ? fs.readFileSync(path.join(dir, name)).toString("base64") : "?"}`
  }
  return out
}

describe.skipIf(unavailable !== undefined)(title("mcp serve file operations while a host process swaps their folder for a symlink outside"), () => {
  it("no output shows outside content and nothing outside changes", async () => {
    const { root, parent } = attackWorkspace(cleanups)
    const outside = path.join(parent, "outdir")
    const d = path.join(root, "d")
    const n = 8
    const lay = (dir: string, honest: boolean) => {
      fs.mkdirSync(dir, { recursive: true })
      fs.writeFileSync(path.join(dir, "notes.txt"), honest ? "inside notes\n" : `${canary}\n`)
      for (let k = 0; k < n; k++) {
        fs.writeFileSync(path.join(dir, `e${k}.txt`), honest ? "tick\n" : `tick ${canary}\n`)
        fs.writeFileSync(path.join(dir, `m${k}.txt`), honest ? "m\n" : `${canary}\n`)
      }
      for (let i = 0; i < 200; i++) fs.writeFileSync(path.join(dir, `x${i}.txt`), honest ? "x\n" : `${canary}\n`)
      const py = spawn("python3", ["-c", sqlite(path.join(dir, "db.sqlite"), honest ? "inside-row" : canary)])
      return new Promise((r) => py.on("exit", r))
    }
    await lay(outside, false)
    fs.writeFileSync(path.join(outside, canaryName), "name\n")
    await lay(d, true)
    fs.symlinkSync(outside, path.join(root, "l"))
    const before = tree(outside)
    const server = await connect(root, ["--allow-all", "--no-ask"])
    cleanups.push(() => server.close())
    const call = async (name: string, args: Record<string, unknown>) => {
      const r = await server.client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 })
      return { ok: !isErrorResult(r), text: textOf(r) }
    }
    // Honest first: each operation works on the real folder.
    expect((await call("sql_query", { sql: "SELECT v FROM t", connection: "d/db.sqlite" })).text).toContain("inside-row")
    expect((await call("list_dir", { path: "d" })).text).toContain("notes.txt")

    const swapper = spawn("python3", ["-c", swapperPy], { cwd: root, stdio: ["ignore", "pipe", "inherit"] })
    const exited = new Promise((r) => swapper.on("exit", r))
    cleanups.push(() => swapper.kill("SIGKILL"))
    await new Promise((r) => swapper.stdout.once("data", r))

    const leaks: Array<string> = []
    const outcomes = { ok: 0, refused: 0 }
    const state = Array.from({ length: n }, () => false)
    const attempt = async (op: string, i: number) => {
      const k = i % n
      const r =
        op === "edit_file"
          ? await call("edit_file", { path: `d/e${k}.txt`, old_string: state[k] === true ? "tock" : "tick", new_string: state[k] === true ? "tick" : "tock" })
          : op === "delete_file"
            ? await call("delete_file", { path: `d/x${i}.txt` })
            : op === "move_file"
              ? await call("move_file", state[k] === true ? { from: `m${k}.txt`, to: `d/m${k}.txt` } : { from: `d/m${k}.txt`, to: `m${k}.txt` })
              : op === "sql_query"
                ? await call("sql_query", { sql: "SELECT v FROM t", connection: "d/db.sqlite" })
                : await call(op, { path: op === "read_file" ? "d/notes.txt" : "d" })
      if (r.ok && (op === "edit_file" || op === "move_file")) state[k] = !(state[k] === true)
      if (r.text.includes(canary) || r.text.includes(canaryName)) leaks.push(`${op}: ${r.text.slice(0, 200)}`)
      if (r.ok) outcomes.ok++
      else outcomes.refused++
    }
    for (const op of ["edit_file", "delete_file", "move_file", "list_dir", "read_file", "sql_query"]) {
      state.fill(false)
      await Promise.all(
        Array.from({ length: n }, async (_, slot) => {
          for (let i = slot; i < 160; i += n) await attempt(op, i)
        })
      )
    }
    swapper.kill("SIGTERM")
    await exited
    expect(leaks).toEqual([])
    expect(tree(outside)).toEqual(before)
    expect(fs.readdirSync(outside).filter((f) => f.includes(".minicode-tmp"))).toEqual([])
    expect(fs.lstatSync(d).isDirectory()).toBe(true)
    // The race had teeth: calls met both the real folder and the swapped-in link.
    expect(outcomes.ok).toBeGreaterThan(0)
    expect(outcomes.refused).toBeGreaterThan(0)
  }, 120_000)
})
