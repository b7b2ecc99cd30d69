/**
 * Which process wrote a journal record (issue 44 item 6): `PID:STARTTICKS` from /proc. A live process is the writer
 * only with the same start time (a reused pid is another process); a dead one, or a malformed value, never is.
 */
import { spawn } from "node:child_process"
import { describe, expect, it } from "vitest"
import * as WriterIdentity from "../../../src/adapters/journal/WriterIdentity.js"

describe.runIf(process.platform === "linux")("WriterIdentity", () => {
  it("reads starttime past a command name holding spaces and parentheses", () => {
    const rest = Array.from({ length: 30 }, (_, i) => String(i + 3)).join(" ")
    expect(WriterIdentity.startTicks(`42 (a (b) c) ${rest}`)).toBe("22")
    expect(WriterIdentity.startTicks("42 no-parenthesis")).toBeUndefined()
  })

  it("this process is its own writer; another start time, a dead process or garbage is not", async () => {
    const self = WriterIdentity.self()
    expect(self).toMatch(/^\d+:\d+$/)
    expect(WriterIdentity.alive(self)).toBe(process.pid)
    const ticks = Number(self?.split(":")[1])
    expect(WriterIdentity.alive(`${process.pid}:${ticks + 1}`)).toBeUndefined()
    for (const bad of [null, undefined, "", "x:y", `${process.pid}`, `-1:${ticks}`, `0:${ticks}`]) expect(WriterIdentity.alive(bad), String(bad)).toBeUndefined()
    const child = spawn("sleep", ["30"])
    const pid = child.pid ?? 0
    const stat = await import("node:fs").then((fs) => fs.readFileSync(`/proc/${pid}/stat`, "utf8"))
    const writer = `${pid}:${WriterIdentity.startTicks(stat)}`
    expect(WriterIdentity.alive(writer)).toBe(pid)
    const exited = new Promise((r) => child.on("exit", r))
    child.kill("SIGKILL")
    await exited
    expect(WriterIdentity.alive(writer)).toBeUndefined()
  })
})
