/**
 * Small caches minicode keeps across its processes in the workspace's state folder (`StateHome`: outside the
 * workspace, never bound in a sandbox, out of the file tools' reach): read and written only through a real folder of ours, never a symlink, the
 * file private (0600) and ours, written whole to a fresh name then renamed into place (a reader sees the old file or
 * the new one, never half; two writers race harmlessly, the last rename wins and both files are whole).
 *
 * Each file starts with a header line: the format, the code that wrote it (`codeIdentity`: a new minicode may judge
 * paths differently, so what an older one cached is not trusted) and a sha256 of the body. Anything unexpected reads
 * as nothing: the caller then computes afresh (fail closed).
 */
import { createHash, randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as StateHome from "./StateHome.js"
import * as StateLock from "./StateLock.js"

const stamp = (file: string): string => {
  const st = fs.statSync(file, { throwIfNoEntry: false })
  return st === undefined ? "?" : `${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`
}

/**
 * The running code, as the file holding this module (the program bundle, named by its content hash): its path, and
 * its inode, size and times, which every build and every install renews (an install may set mtimes back, not ctimes).
 */
export const codeIdentity: string = (() => {
  try {
    const file = fileURLToPath(import.meta.url)
    return `${file}@${stamp(file)}`
  } catch {
    return `unknown@${randomBytes(8).toString("hex")}`
  }
})()

const uid = process.getuid?.()

/**
 * Bodies read before, per file, with the file's identity and times when it was read: a server asks for some on
 * every call (the alias targets), and reading, parsing and hashing them each time was most of that question. Kept
 * only for a file whose change time was past the settle margin when it was read, so that any later change (always
 * a new file renamed into place: `write`) has another change time, whatever the clock's granularity.
 */
const bodies = new Map<string, { readonly stamp: string; readonly format: string; readonly body: string }>()
const settleNs = 2_000_000_000n

/** The body of `<state folder>/<name>` when its header says `format` and this code, and the checksum holds. */
export const read = (workspace: string, name: string, format: string): string | undefined => {
  try {
    const dir = StateHome.existing(workspace)
    if (dir === undefined) return undefined
    const file = path.join(dir, name)
    const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK)
    let text: string
    let stamp: string
    let settled: boolean
    try {
      const st = fs.fstatSync(fd, { bigint: true })
      if (!st.isFile() || (uid !== undefined && st.uid !== BigInt(uid)) || (st.mode & 0o077n) !== 0n || st.size > 256n * 1024n * 1024n) return undefined
      stamp = `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`
      const known = bodies.get(file)
      if (known !== undefined && known.stamp === stamp && known.format === format) return known.body
      settled = st.ctimeNs < BigInt(Date.now()) * 1_000_000n - settleNs
      text = fs.readFileSync(fd, "utf8")
    } finally {
      fs.closeSync(fd)
    }
    const nl = text.indexOf("\n")
    if (nl < 0) return undefined
    const header: unknown = JSON.parse(text.slice(0, nl))
    const body = text.slice(nl + 1)
    if (typeof header !== "object" || header === null) return undefined
    const h = header as Record<string, unknown>
    if (h["format"] !== format || h["code"] !== codeIdentity) return undefined
    if (h["sum"] !== createHash("sha256").update(body).digest("hex")) return undefined
    if (settled) {
      if (bodies.size > 256) bodies.clear()
      bodies.set(file, { stamp, format, body })
    }
    return body
  } catch {
    return undefined
  }
}

/** Writes `<state folder>/<name>` (the folder made private if missing). Throws as `fs` does; callers ignore a failure. */
export const write = (workspace: string, name: string, format: string, body: string): void => {
  const dir = StateLock.stateFolder(workspace)
  const header = JSON.stringify({ format, code: codeIdentity, sum: createHash("sha256").update(body).digest("hex") })
  const tmp = path.join(dir, `${name}.${process.pid}-${randomBytes(4).toString("hex")}.tmp`)
  const fd = fs.openSync(tmp, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW, 0o600)
  try {
    fs.writeSync(fd, `${header}\n`)
    fs.writeSync(fd, body)
  } catch (e) {
    fs.closeSync(fd)
    fs.rmSync(tmp, { force: true })
    throw e
  }
  fs.closeSync(fd)
  try {
    fs.renameSync(tmp, path.join(dir, name))
  } catch (e) {
    fs.rmSync(tmp, { force: true })
    throw e
  }
}
