/**
 * The staged calls `recover --staged` finds: a call whose process is gone while `running` is listed as killed; one
 * still running is not; a folder whose maker was killed while making it (before the call started) is listed and
 * discarded too (it had no record yet, was never listed, and stayed for ever).
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import * as Staging from "../../../src/adapters/staged/Staging.js"
import { scratchFolders } from "../../support/Scratch.js"

const tmp = scratchFolders()

/** A pid no process has: one that just ended. */
const deadPid = (): number => {
  const r = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" })
  return Number(r.stdout)
}

describe("staged calls left behind", () => {
  it("a running call of a live process is not listed; its process gone, it is listed as killed and discarded", () => {
    const ws = tmp("staging-ws")
    const base = tmp("staging-base")
    const stage = Staging.create(ws, "echo hi", base)
    expect(Staging.pending(ws, base)).toEqual([])
    Staging.write(stage.dir, { id: stage.id, workspace: ws, command: "echo hi", pid: deadPid(), startedAt: Date.now(), state: "running" })
    const listed = Staging.pending(ws, base)
    expect(listed.map((c) => [c.id, c.state, c.command])).toEqual([[stage.id, "killed", "echo hi"]])
    for (const c of listed) Staging.discard(c.dir)
    expect(Staging.pending(ws, base)).toEqual([])
    expect(fs.readdirSync(path.dirname(stage.dir))).toEqual([])
  })

  it("a folder its maker was killed while making (no record, or a record not yet in place) is listed and discarded", () => {
    const ws = tmp("staging-ws")
    const base = tmp("staging-base")
    const dir = Staging.workspaceDir(ws, base)
    const pid = deadPid()
    fs.mkdirSync(path.join(dir, `abc-1.partial-${pid}`, "upper"), { recursive: true })
    fs.mkdirSync(path.join(dir, `abc-2.partial-${process.pid}`, "upper"), { recursive: true })
    const listed = Staging.pending(ws, base)
    // Only the dead maker's: this process is alive and may still be making its own.
    expect(listed.map((c) => [c.id, c.state, c.pid])).toEqual([["abc-1", "killed", pid]])
    for (const c of listed) Staging.discard(c.dir)
    expect(fs.readdirSync(dir)).toEqual([`abc-2.partial-${process.pid}`])
  })
})
