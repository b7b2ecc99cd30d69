/**
 * The state folder's place and small files (src/adapters/fs/StateHome.ts, StateFile.ts) as a server asks for them on
 * every call: remembered between calls (issue 45), but always the answer for the folder and the file as they are now.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import * as StateFile from "../../../src/adapters/fs/StateFile.js"
import * as StateHome from "../../../src/adapters/fs/StateHome.js"

const made: Array<string> = []
const saved = process.env["XDG_STATE_HOME"]
afterEach(() => {
  process.env["XDG_STATE_HOME"] = saved
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
})
const temp = (prefix: string) => {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)))
  made.push(dir)
  return dir
}
const settle = () => new Promise((r) => setTimeout(r, 2_100))

describe("state place and files, asked again", () => {
  it("a workspace folder replaced at the same path, or another state home, gets another state folder", () => {
    const parent = temp("minicode-statefile-ws-")
    const ws = path.join(parent, "ws")
    fs.mkdirSync(ws)
    process.env["XDG_STATE_HOME"] = temp("minicode-statefile-state-")
    const first = StateHome.locate(ws)
    expect(first).toBeDefined()
    expect(StateHome.locate(ws)).toBe(first)
    // A folder in its place (a new inode; the old one kept alive so its number is not reused).
    fs.renameSync(ws, path.join(parent, "old"))
    fs.mkdirSync(ws)
    const replaced = StateHome.locate(ws)
    expect(replaced).toBeDefined()
    expect(replaced).not.toBe(first)
    const other = temp("minicode-statefile-state-")
    process.env["XDG_STATE_HOME"] = other
    expect(StateHome.locate(ws)?.startsWith(`${other}/`)).toBe(true)
    fs.rmSync(ws, { recursive: true })
    expect(StateHome.locate(ws)).toBeUndefined()
  })

  it("a body read before is the file's as it is now: rewritten, edited in place (mtime set back), damaged, removed", async () => {
    const ws = temp("minicode-statefile-ws-")
    process.env["XDG_STATE_HOME"] = temp("minicode-statefile-state-")
    StateFile.write(ws, "record", "f/1", "first-body")
    await settle()
    expect(StateFile.read(ws, "record", "f/1")).toBe("first-body")
    expect(StateFile.read(ws, "record", "f/1")).toBe("first-body")
    expect(StateFile.read(ws, "record", "other/1")).toBeUndefined()
    StateFile.write(ws, "record", "f/1", "second-bod")
    expect(StateFile.read(ws, "record", "f/1")).toBe("second-bod")
    await settle()
    expect(StateFile.read(ws, "record", "f/1")).toBe("second-bod")
    // The same length in place, times set back: its change time tells (and the checksum then refuses it).
    const file = path.join(StateHome.existing(ws) ?? "", "record")
    const { atime, mtime } = fs.statSync(file)
    fs.writeFileSync(file, fs.readFileSync(file, "utf8").replace("second-bod", "planted-xx"))
    fs.utimesSync(file, atime, mtime)
    expect(StateFile.read(ws, "record", "f/1")).toBeUndefined()
    StateFile.write(ws, "record", "f/1", "third-body")
    await settle()
    expect(StateFile.read(ws, "record", "f/1")).toBe("third-body")
    fs.rmSync(file)
    expect(StateFile.read(ws, "record", "f/1")).toBeUndefined()
  })
})
