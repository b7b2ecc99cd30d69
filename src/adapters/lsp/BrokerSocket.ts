/**
 * Where a workspace's LSP broker listens and how it is reached: a Unix socket in the user's runtime folder
 * (`$XDG_RUNTIME_DIR/minicode/`), else in the cache folder (`~/.cache/minicode/lsp/`), never in the workspace. The
 * folder is 0700 and the socket 0600, both owned by the user; a socket (or folder) owned by someone else, or open
 * to others, is refused before anything is sent. The name is a hash of the workspace's real path and of the
 * configuration the broker runs (servers, sandbox, protocol version): a changed configuration gets its own broker.
 * Beside the socket: `NAME.pid` (the broker's pid, its lock) and `NAME.log` (its stderr).
 */
import * as fs from "node:fs"
import * as net from "node:net"
import * as path from "node:path"
import { Effect } from "effect"
import { sha256 } from "../crypto/Sha256.js"

export interface Place {
  readonly dir: string
  /** `<workspace hash>-<configuration hash>`. */
  readonly base: string
  readonly socket: string
  readonly pidFile: string
  readonly logFile: string
}

/** The folder for brokers' sockets: the runtime folder, else the cache folder (undefined with neither). */
export const folder = (env: Readonly<Record<string, string | undefined>>): string | undefined => {
  const runtime = env["XDG_RUNTIME_DIR"]
  if (runtime !== undefined && runtime.startsWith("/")) return path.join(runtime, "minicode")
  const cache = env["XDG_CACHE_HOME"]
  if (cache !== undefined && cache.startsWith("/")) return path.join(cache, "minicode", "lsp")
  const home = env["HOME"]
  return home !== undefined && home.startsWith("/") ? path.join(home, ".cache", "minicode", "lsp") : undefined
}

/**
 * Whether `dir` is (or would be, once made) inside `root`, symlinks resolved as far as the path exists: a socket
 * folder the workspace holds (`HOME` in or at the workspace, no runtime folder) would let sandboxed bash reach the
 * broker, which runs outside the sandbox, and plant its socket, pid file or log (red team).
 */
export const inWorkspace = (dir: string, root: string): boolean => {
  let head = path.resolve(dir)
  const rest: Array<string> = []
  for (;;) {
    try {
      head = fs.realpathSync(head)
      break
    } catch {
      const up = path.dirname(head)
      if (up === head) break
      rest.unshift(path.basename(head))
      head = up
    }
  }
  const real = path.join(head, ...rest)
  return real === root || real.startsWith(root.endsWith("/") ? root : `${root}/`)
}

export const workspaceHash = (root: string) => sha256(root).slice(0, 16)

export const place = (dir: string, root: string, configuration: string): Place => {
  const base = `${workspaceHash(root)}-${sha256(configuration).slice(0, 8)}`
  return { dir, base, socket: path.join(dir, `${base}.sock`), pidFile: path.join(dir, `${base}.pid`), logFile: path.join(dir, `${base}.log`) }
}

/** The places of every broker of this workspace (whatever its configuration), for `lsp stop` and `lsp status`. */
export const placesOf = (dir: string, root: string): ReadonlyArray<Place> => {
  const prefix = `${workspaceHash(root)}-`
  let names: ReadonlyArray<string> = []
  try {
    names = fs.readdirSync(dir)
  } catch {
    return []
  }
  return names
    .filter((n) => n.startsWith(prefix) && n.endsWith(".sock"))
    .map((n) => {
      const base = n.slice(0, -".sock".length)
      return { dir, base, socket: path.join(dir, n), pidFile: path.join(dir, `${base}.pid`), logFile: path.join(dir, `${base}.log`) }
    })
}

const uid = () => (typeof process.getuid === "function" ? process.getuid() : -1)

/** Why this file or folder is not the user's own and private; undefined when it is. */
const foreign = (file: string, st: fs.Stats, what: string): string | undefined => {
  if (st.uid !== uid()) return `the LSP broker ${what} ${file} is owned by uid ${st.uid}, not by you (uid ${uid()}): refused`
  if ((st.mode & 0o077) !== 0) return `the LSP broker ${what} ${file} is open to other users (mode ${(st.mode & 0o777).toString(8)}): refused`
  return undefined
}

/** Creates the folder (0700) if needed; a reason when it is someone else's or open to others. */
export const ensureFolder = (dir: string): string | undefined => {
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
    const st = fs.lstatSync(dir)
    if (!st.isDirectory()) return `the LSP broker folder ${dir} is not a folder: refused`
    return foreign(dir, st, "folder")
  } catch (cause) {
    return `cannot make the LSP broker folder ${dir}: ${cause instanceof Error ? cause.message : String(cause)}`
  }
}

export type Reached =
  | { readonly _tag: "Connected"; readonly socket: net.Socket }
  | { readonly _tag: "Missing" }
  /** A socket file nobody listens on: a broker that died without removing it. */
  | { readonly _tag: "Stale" }
  | { readonly _tag: "Refused"; readonly reason: string }

/** Checks the folder and the socket file (owner, mode, kind), then connects. */
export const reach = (p: Place): Effect.Effect<Reached> =>
  Effect.suspend(() => {
    let st: fs.Stats
    try {
      const dir = fs.lstatSync(p.dir)
      const bad = dir.isDirectory() ? foreign(p.dir, dir, "folder") : `the LSP broker folder ${p.dir} is not a folder: refused`
      if (bad !== undefined) return Effect.succeed<Reached>({ _tag: "Refused", reason: bad })
      st = fs.lstatSync(p.socket)
    } catch {
      return Effect.succeed<Reached>({ _tag: "Missing" })
    }
    if (!st.isSocket()) return Effect.succeed<Reached>({ _tag: "Refused", reason: `the LSP broker socket ${p.socket} is not a socket: refused` })
    const bad = foreign(p.socket, st, "socket")
    if (bad !== undefined) return Effect.succeed<Reached>({ _tag: "Refused", reason: bad })
    return Effect.async<Reached>((resume) => {
      const socket = net.connect(p.socket)
      const onError = (e: NodeJS.ErrnoException) => {
        socket.destroy()
        resume(Effect.succeed(e.code === "ENOENT" ? { _tag: "Missing" } : e.code === "ECONNREFUSED" ? { _tag: "Stale" } : { _tag: "Refused", reason: `cannot reach the LSP broker at ${p.socket}: ${e.message}` }))
      }
      socket.once("error", onError)
      socket.once("connect", () => {
        socket.off("error", onError)
        resume(Effect.succeed({ _tag: "Connected", socket }))
      })
      return Effect.sync(() => void socket.destroy())
    })
  })

/** Calls `onLine` with each whole line the socket receives; `onEnd` once it closes (or fails). */
export const lines = (socket: net.Socket, onLine: (line: string) => void, onEnd: () => void, maxBytes = 64 * 1024 * 1024) => {
  let buffered = ""
  socket.setEncoding("utf8")
  socket.on("data", (chunk: string) => {
    buffered += chunk
    let nl = buffered.indexOf("\n")
    while (nl >= 0) {
      const line = buffered.slice(0, nl)
      buffered = buffered.slice(nl + 1)
      onLine(line)
      nl = buffered.indexOf("\n")
    }
    if (buffered.length > maxBytes) socket.destroy()
  })
  socket.on("error", () => undefined)
  socket.once("close", onEnd)
}

/** Whether `pid` is a running LSP broker (not just any process that got its number since). */
export const isBroker = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
  } catch (cause) {
    return (cause as NodeJS.ErrnoException).code === "EPERM"
  }
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("lsp\0broker")
  } catch {
    return true
  }
}

export const readPid = (file: string): number | undefined => {
  try {
    const n = Number.parseInt(fs.readFileSync(file, "utf8").trim(), 10)
    return Number.isInteger(n) && n > 0 ? n : undefined
  } catch {
    return undefined
  }
}
