/**
 * The lock shared by minicode processes on one workspace: a live owner (another real process) holds it, a dead one
 * (killed -9) does not, and a reused pid with another start time does not either.
 */
import { spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import * as StateLock from "../../../src/adapters/fs/StateLock.js"

const cleanups: Array<() => void> = []
afterEach(() => {
  for (const c of cleanups.splice(0)) c()
})

const folder = () => {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "minicode-lock-")))
  cleanups.push(() => fs.rmSync(root, { recursive: true, force: true }))
  return StateLock.stateFolder(root)
}

describe("StateLock", () => {
  it("a live process's lock holds; once it is killed -9 the lock is taken over", async () => {
    const dir = folder()
    const holder = spawn("sleep", ["60"])
    cleanups.push(() => holder.kill("SIGKILL"))
    fs.writeFileSync(path.join(dir, "x.lock"), `${holder.pid}:${StateLock.startOf(holder.pid ?? 0)}\n`)
    expect(() => StateLock.withLock(dir, "x", () => "ran", 300)).toThrow(/held by a live process/)
    holder.kill("SIGKILL")
    await new Promise((r) => holder.on("exit", r))
    expect(StateLock.withLock(dir, "x", () => "ran", 300)).toBe("ran")
    expect(fs.readdirSync(dir).filter((f) => f.includes("lock"))).toEqual([])
  })

  it("a pid that runs again but as another process (start time differs) is dead", () => {
    expect(StateLock.alive(StateLock.self)).toBe(true)
    expect(StateLock.self.start).toMatch(/^\d+$/)
    expect(StateLock.alive({ pid: process.pid, start: "1" })).toBe(false)
    const gone = Number(spawnSync("sh", ["-c", "echo $$"], { encoding: "utf8" }).stdout.trim())
    expect(StateLock.alive({ pid: gone, start: "" })).toBe(false)
  })

  it("the state folder is never the workspace's `.minicode` (a repository's link there leads nowhere minicode writes)", () => {
    const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "minicode-lock-")))
    cleanups.push(() => fs.rmSync(root, { recursive: true, force: true }))
    fs.mkdirSync(path.join(root, "elsewhere"))
    fs.symlinkSync(path.join(root, "elsewhere"), path.join(root, ".minicode"))
    const folder = StateLock.stateFolder(root)
    expect(folder.startsWith(`${root}/`)).toBe(false)
    expect(fs.readdirSync(path.join(root, "elsewhere"))).toEqual([])
  })
})
