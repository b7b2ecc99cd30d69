/**
 * Call cgroups left by minicode processes that are gone are removed when the next process finds its cgroup base;
 * a live process's are kept. Needs a writable pids cgroup (root here); skipped with the reason otherwise.
 */
import { spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { pidsCgroupBase, sweepStaleCgroups } from "../../../src/adapters/shell/BwrapSandbox.js"

const base = process.getuid?.() === 0 ? pidsCgroupBase() : undefined
const deadPid = (): number => {
  const r = spawnSync("true")
  return r.pid ?? 0
}

describe("stale call cgroups", () => {
  it("a dead process's cgroups are removed (their tasks killed), a live one's kept", async (ctx) => {
    if (base === undefined) return ctx.skip("no writable pids cgroup here")
    const dead = path.join(base, `minicode-${deadPid()}-a1b2c3`)
    const withTask = path.join(base, `minicode-${deadPid()}-d4e5f6`)
    const own = path.join(base, `minicode-${process.pid}-0a0b0c`)
    const other = path.join(base, "someone-else-1")
    for (const d of [dead, withTask, own, other]) fs.mkdirSync(d)
    const sleeper = spawn("sleep", ["30"], { stdio: "ignore" })
    const exited = new Promise<NodeJS.Signals | null>((r) => sleeper.on("exit", (_c, s) => r(s)))
    try {
      fs.writeFileSync(path.join(withTask, "cgroup.procs"), String(sleeper.pid))
      sweepStaleCgroups(base)
      expect(fs.existsSync(dead)).toBe(false)
      expect(fs.existsSync(own)).toBe(true)
      expect(fs.existsSync(other)).toBe(true)
      // the leftover task was killed; its cgroup goes once it has exited
      expect(await exited).toBe("SIGKILL")
      for (let i = 0; i < 50 && fs.existsSync(withTask); i++) {
        sweepStaleCgroups(base)
        await new Promise((r) => setTimeout(r, 20))
      }
      expect(fs.existsSync(withTask)).toBe(false)
    } finally {
      sleeper.kill("SIGKILL")
      for (const d of [dead, withTask, own, other]) {
        for (let i = 0; i < 50 && fs.existsSync(d); i++) {
          try {
            fs.rmdirSync(d)
          } catch {
            await new Promise((r) => setTimeout(r, 20))
          }
        }
      }
    }
  })
})
