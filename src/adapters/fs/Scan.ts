/**
 * `FileSystem.scan` on node:fs: one directory descriptor (`DirFd.open`, which never follows a link on the way),
 * each name opened relative to it with `O_NOFOLLOW | O_NONBLOCK` (a symlink fails with ELOOP, a FIFO does not block),
 * `fstat`ed, read into one reused buffer a chunk at a time, closed: four syscalls a file, none of them a path walk.
 * The descriptor is relative to the directory that was opened, so nothing swapped in meanwhile is followed.
 */
import * as fs from "node:fs"
import * as DirFd from "./DirFd.js"
import type { ScanSink } from "../../ports/FileSystem.js"

const flags = fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK

/** 1 MiB: nearly every source file in one read, a big file in a few dozen. */
export const chunkBytes = 1024 * 1024

/** Scans `names` in `dir`; the names that could not be read are returned. Throws only when `dir` cannot be opened. */
export const scanDir = (
  dir: string,
  names: ReadonlyArray<string>,
  sink: ScanSink,
  buffer: Buffer,
  skip?: (dev: number, ino: number) => boolean
): ReadonlyArray<string> => {
  const d = DirFd.open(dir)
  const unreadable: Array<string> = []
  try {
    let stopped = false
    for (let i = 0; i < names.length && !stopped; i++) {
      const name = names[i] ?? ""
      let fd: number
      try {
        fd = fs.openSync(DirFd.at(d, name), flags)
      } catch (cause) {
        // A symlink (ELOOP) is passed over as the walk passes symlinks over; anything else is reported.
        if (codeOf(cause) !== "ELOOP" && codeOf(cause) !== "ENOENT") unreadable.push(name)
        continue
      }
      try {
        const st = fs.fstatSync(fd)
        if (!st.isFile() || skip?.(st.dev, st.ino) === true) continue
        const size = st.size
        if (size === 0) {
          if (sink(i, buffer.subarray(0, 0), true, true) === "stop") break
          continue
        }
        let offset = 0
        let first = true
        let open = true
        while (open && offset < size) {
          const n = fs.readSync(fd, buffer, 0, Math.min(buffer.byteLength, size - offset), offset)
          // Shrunk while read: what was read is all there is.
          const last = n === 0 || offset + n >= size
          offset += n
          const verdict = sink(i, buffer.subarray(0, n), first, last)
          if (verdict === "stop") stopped = true
          open = verdict === true && !last
          first = false
        }
      } catch {
        unreadable.push(name)
      } finally {
        fs.closeSync(fd)
      }
    }
  } finally {
    DirFd.close(d)
  }
  return unreadable
}

const codeOf = (cause: unknown): string =>
  typeof cause === "object" && cause !== null && "code" in cause && typeof cause.code === "string" ? cause.code : "EIO"
