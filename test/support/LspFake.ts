/** The scripted language server (lsp-fake-server.mjs) and checks that its processes are really gone. */
import * as fs from "node:fs"
import * as path from "node:path"

export const fakeServer = path.resolve(import.meta.dirname, "lsp-fake-server.mjs")

/** The server's pid and its helper's (when started with `child`), as it recorded them at start. */
export const pidsOf = (marker: string): ReadonlyArray<number> =>
  fs.existsSync(`${marker}.pids`) ? fs.readFileSync(`${marker}.pids`, "utf8").trim().split(/\s+/).map(Number) : []

/** Running (a zombie waiting to be reaped by init counts as gone: it runs nothing). */
export const running = (pid: number) => {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z"
  } catch {
    return false
  }
}

/** The pids still running after up to `ms` (reaping by init may lag the kill a little). */
export const survivors = async (pids: ReadonlyArray<number>, ms = 3000): Promise<ReadonlyArray<number>> => {
  const until = Date.now() + ms
  for (;;) {
    const left = pids.filter(running)
    if (left.length === 0 || Date.now() > until) return left
    await new Promise((r) => setTimeout(r, 50))
  }
}

/** Kills whatever a failed test left behind. */
export const reap = (pids: ReadonlyArray<number>) => {
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL")
    } catch {
      // Gone already.
    }
  }
}
