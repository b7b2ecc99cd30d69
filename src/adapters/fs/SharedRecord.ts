/**
 * A record shared by the overlapping writable calls of every process on one workspace (`.minicode/gitcontrol.json`,
 * `.minicode/editorcontrols.json`): the calls that hold it, by owner (`StateLock.Owner`) and id, and what the first
 * of them found. Read and written only inside `StateLock.withLock`; written whole through a temporary file and a
 * rename, so a reader never sees half of one; read without following a symlink at its name.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import * as StateLock from "./StateLock.js"

export interface Call {
  readonly owner: StateLock.Owner
  readonly id: string
}

/** The record `file` in the state folder `dir`, parsed; undefined when absent, a symlink, unreadable or not JSON. */
export const read = (dir: string, file: string): unknown => {
  try {
    const fd = fs.openSync(path.join(dir, file), fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW)
    try {
      return JSON.parse(fs.readFileSync(fd, "utf8")) as unknown
    } finally {
      fs.closeSync(fd)
    }
  } catch {
    return undefined
  }
}

export const write = (dir: string, file: string, record: unknown): void => {
  const at = path.join(dir, file)
  const tmp = `${at}.${process.pid}.tmp`
  StateLock.removeFile(tmp)
  fs.writeFileSync(tmp, JSON.stringify(record), { flag: "wx", mode: 0o600 })
  fs.renameSync(tmp, at)
}

/** The calls still running (their process alive: a killed one does not count), but for the call `except`. */
export const live = (calls: ReadonlyArray<Call>, except?: string): Array<Call> => calls.filter((c) => c.id !== except && StateLock.alive(c.owner))
