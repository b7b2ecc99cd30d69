/**
 * Which process wrote a journal record, so `minicode recover` can tell a call still running in a live process (an
 * `mcp serve` mid-call) from one whose process died: the pid and the process's start time (field 22 of
 * `/proc/PID/stat`, clock ticks since boot), as `PID:TICKS`. A pid the kernel reused belongs to a process that
 * started later, so it never passes for the writer. Linux only: elsewhere no identity is recorded, and recover says
 * what it always said.
 */
import * as fs from "node:fs"

/** Field 22 (starttime) of a `/proc/PID/stat` line; the command name (field 2) may hold spaces and parentheses. */
export const startTicks = (stat: string): string | undefined => {
  const close = stat.lastIndexOf(")")
  if (close < 0) return undefined
  const fields = stat.slice(close + 2).split(" ")
  // After the name: state is field 3, so starttime (22) is index 19 here.
  const ticks = fields[19]
  return ticks !== undefined && /^[0-9]+$/.test(ticks) ? ticks : undefined
}

const ticksOf = (pid: number): string | undefined => {
  try {
    return startTicks(fs.readFileSync(`/proc/${pid}/stat`, "utf8"))
  } catch {
    return undefined
  }
}

let own: string | null | undefined

/** This process's identity (computed once), or null where it cannot be known. */
export const self = (): string | null => {
  if (own === undefined) {
    const ticks = process.platform === "linux" ? ticksOf(process.pid) : undefined
    own = ticks === undefined ? null : `${process.pid}:${ticks}`
  }
  return own
}

/** The pid of a live process that is the one `writer` names (same pid, same start time); undefined otherwise. */
export const alive = (writer: string | null | undefined): number | undefined => {
  const m = writer === null || writer === undefined ? null : /^([0-9]+):([0-9]+)$/.exec(writer)
  if (m === null) return undefined
  const pid = Number(m[1])
  return pid > 0 && ticksOf(pid) === m[2] ? pid : undefined
}
