/**
 * Issue 40, item 11, through the built CLI: a write killed mid-way leaves its temporary file, which the next run or
 * `recover` removes (and nothing else); on a full disk (a tmpfs this test mounts, as root) a call's outcome is still
 * recorded, never left `pending`, and `journal` and `recover` still list. Before: the temporary file stayed for good
 * (30 MiB here, shown by `git status`), and on a full disk the journal could not even be opened to list.
 */
import { execFileSync, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { runCli } from "../support/Cli.js"

const bin = path.resolve("dist/bin.js")
const cleanups: Array<() => void> = []
afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c()
})
const fresh = (prefix: string) => {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)))
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }))
  return dir
}
const build = (root: string) => ["--cwd", root, "--work-mode", "BUILD", "--sandbox", "none"]
const temps = (dir: string) => fs.readdirSync(dir).filter((n) => n.endsWith(".minicode-tmp"))

/** An edit of a 30 MiB file, SIGKILLed as soon as its temporary file appears. */
const killedEdit = async (root: string) => {
  fs.writeFileSync(path.join(root, "big.txt"), `MARK\n${"y".repeat(30 * 1024 * 1024)}`)
  const original = fs.readFileSync(path.join(root, "big.txt"))
  const earlier = temps(root)
  const child = spawn(process.execPath, [bin, "tool", "edit_file", JSON.stringify({ path: "big.txt", old_string: "MARK", new_string: "DONE" }), ...build(root)], { stdio: "ignore" })
  const watcher = fs.watch(root, (_event, name) => {
    if (typeof name === "string" && name.startsWith(".big.txt.") && name.endsWith(".minicode-tmp") && !earlier.includes(name)) child.kill("SIGKILL")
  })
  const signal = await new Promise<NodeJS.Signals | null>((resolve) => child.on("close", (_code, s) => resolve(s)))
  watcher.close()
  expect(signal).toBe("SIGKILL")
  expect(temps(root).filter((n) => !earlier.includes(n))).toHaveLength(1)
  expect(fs.readFileSync(path.join(root, "big.txt")).equals(original)).toBe(true)
}

describe("temporary files a killed write leaves (issue 40, item 11)", () => {
  it("recover removes the killed edit's temporary file and nothing a user named alike", async () => {
    const root = fresh("minicode-killed-write-")
    // A user's files with similar names: not minicode's (no writer id, another name, a link).
    const lookalikes = [".big.txt.5c1b3a2e-9f0d.minicode-tmp", ".other.txt.1-deadbeef.minicode-tmp", "big.txt.minicode-tmp"]
    for (const name of lookalikes) fs.writeFileSync(path.join(root, name), "user's\n")
    fs.symlinkSync(path.join(root, "big.txt"), path.join(root, ".big.txt.1-0badf00d.minicode-tmp"))
    await killedEdit(root)
    const recover = await runCli(bin, ["recover", "--cwd", root])
    expect(recover.status).toBe(4)
    expect(recover.stdout).toContain("edit_file on big.txt")
    expect(temps(root).sort()).toEqual([".big.txt.1-0badf00d.minicode-tmp", ...lookalikes].sort())
    for (const name of lookalikes) expect(fs.readFileSync(path.join(root, name), "utf8")).toBe("user's\n")
  }, 120_000)

  it("the next run (any call that opens the journal) removes it", async () => {
    const root = fresh("minicode-killed-write-")
    await killedEdit(root)
    const next = await runCli(bin, ["tool", "write_file", JSON.stringify({ path: "n.txt", content: "n\n" }), ...build(root)])
    expect(next.status, next.stderr).toBe(0)
    expect(temps(root)).toEqual([])
  }, 120_000)
})

const root = process.getuid?.() === 0
describe.skipIf(!root)("a full disk (a 2 MiB tmpfs mounted here; needs root)", () => {
  const fullDisk = () => {
    const mount = fresh("minicode-full-")
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=2m", "tmpfs", mount])
    cleanups.push(() => execFileSync("umount", ["-l", mount]))
    const ws = path.join(mount, "ws")
    fs.mkdirSync(ws)
    const fill = () => {
      try {
        execFileSync("dd", ["if=/dev/zero", `of=${path.join(mount, "fill")}`, "bs=4k"], { stdio: "ignore" })
      } catch {
        // dd stops with ENOSPC: the disk is full.
      }
      expect(fs.statfsSync(mount).bavail).toBe(0)
    }
    return { ws, fill }
  }

  it("journal and recover still list, and a call on the full disk ends recorded (never pending)", async () => {
    const { fill, ws } = fullDisk()
    fs.writeFileSync(path.join(ws, "a.txt"), "hello\n")
    expect((await runCli(bin, ["tool", "write_file", JSON.stringify({ path: "b.txt", content: "b\n" }), ...build(ws)])).status).toBe(0)
    fill()
    const journal = await runCli(bin, ["journal", "--cwd", ws])
    expect(journal.status, journal.stderr).toBe(0)
    expect(journal.stdout).toMatch(/write_file committed b\.txt/)
    const edit = await runCli(bin, ["tool", "edit_file", JSON.stringify({ path: "a.txt", old_string: "hello", new_string: "x".repeat(100_000) }), ...build(ws)])
    // It either happened whole or not at all, and the journal says which.
    const content = fs.readFileSync(path.join(ws, "a.txt"), "utf8")
    expect(content === "hello\n" || content === `${"x".repeat(100_000)}\n`).toBe(true)
    const listed = await runCli(bin, ["journal", "--json", "--cwd", ws])
    expect(listed.status, listed.stderr).toBe(0)
    const records = JSON.parse(listed.stdout) as ReadonlyArray<{ readonly tool: string; readonly state: string }>
    expect(records.filter((r) => r.state === "pending")).toEqual([])
    const edits = records.filter((r) => r.tool === "edit_file")
    if (content === "hello\n") expect(edits.every((r) => r.state === "failed"), `${edit.stderr} ${JSON.stringify(edits)}`).toBe(true)
    else expect(edits.map((r) => r.state)).toEqual(["committed"])
    const recover = await runCli(bin, ["recover", "--cwd", ws])
    expect(recover.status, recover.stdout + recover.stderr).toBe(0)
    expect(recover.stdout).not.toMatch(/stopped first|crashed/)
  }, 120_000)
})
