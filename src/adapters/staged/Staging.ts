/**
 * Where staged bash's writes land: `$XDG_STATE_HOME/minicode/staged/<dev>-<ino>/<call>/` (else
 * `~/.local/state/…`), keyed by the device and inode of the workspace root, never inside the workspace, so no tool
 * and no sandboxed program can write what minicode reads back. A call's folder holds the overlay's layers (`mask`,
 * `lower` — a mount point —, `upper`, `work`), `started` (its change time is the call's start, on the clock file
 * times use), `listing` (written in the namespace once the command ended) and `call.json` (what `recover` lists).
 * A folder left behind is a call that never merged (minicode killed, a timeout) or one whose refused or conflicting
 * changes are kept; `recover --staged` lists them, `--discard` removes them.
 */
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Overlay from "./Overlay.js"

export interface Record {
  readonly id: string
  readonly workspace: string
  readonly command: string
  readonly pid: number
  readonly startedAt: number
  /** `running` until the call ends; `kept`: refused or conflicting changes stay; `killed`: it never merged. */
  readonly state: "running" | "kept" | "killed"
  readonly kept?: ReadonlyArray<{ readonly path: string; readonly why: string }>
}

export const baseDir = (env: NodeJS.ProcessEnv = process.env): string => {
  const state = env["XDG_STATE_HOME"]
  const home = env["HOME"]
  const root = state !== undefined && path.isAbsolute(state) ? state : home !== undefined && path.isAbsolute(home) ? path.join(home, ".local", "state") : path.join(os.tmpdir(), `minicode-${process.getuid?.() ?? "user"}`)
  return path.join(root, "minicode", "staged")
}

const inside = (root: string, p: string) => p === root || p.startsWith(`${root}/`)

/** The workspace's staging folder (made, private). Throws when it would be inside the workspace. */
export const workspaceDir = (workspace: string, base = baseDir()): string => {
  const st = fs.statSync(workspace)
  const dir = path.join(base, `${st.dev}-${st.ino}`)
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
  const real = fs.realpathSync(dir)
  if (inside(workspace, real)) throw new Error(`the staging folder ${real} is inside the workspace; set XDG_STATE_HOME elsewhere`)
  return real
}

export interface Stage {
  readonly id: string
  readonly dir: string
  readonly upper: string
  readonly mask: string
  readonly listing: string
}

const recordPath = (dir: string) => path.join(dir, "call.json")

export const write = (dir: string, record: Record): void => {
  const tmp = `${recordPath(dir)}.${process.pid}.tmp`
  fs.writeFileSync(tmp, JSON.stringify(record), { mode: 0o600 })
  fs.renameSync(tmp, recordPath(dir))
}

/** A fresh call folder with its record (`running`). */
export const create = (workspace: string, command: string, base = baseDir()): Stage => {
  const id = `${Date.now().toString(36)}-${randomBytes(4).toString("hex")}`
  const dir = path.join(workspaceDir(workspace, base), id)
  fs.mkdirSync(dir, { mode: 0o700 })
  for (const name of ["mask", "lower", "upper", "work"]) fs.mkdirSync(path.join(dir, name), { mode: 0o700 })
  write(dir, { id, workspace, command, pid: process.pid, startedAt: Date.now(), state: "running" })
  return { id, dir, upper: path.join(dir, "upper"), mask: path.join(dir, "mask"), listing: path.join(dir, "listing") }
}

/** Marks the call's start on the file clock: returns the change time of a file made now. */
export const markStart = (stage: Stage): number => {
  const marker = path.join(stage.dir, "started")
  fs.writeFileSync(marker, "")
  return fs.statSync(marker).ctimeMs
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM"
  }
}

const read = (dir: string): Record | undefined => {
  try {
    const parsed: unknown = JSON.parse(fs.readFileSync(recordPath(dir), "utf8"))
    if (typeof parsed !== "object" || parsed === null) return undefined
    const r = parsed as Partial<Record>
    return typeof r.id === "string" && typeof r.workspace === "string" && typeof r.command === "string" && typeof r.pid === "number" && typeof r.startedAt === "number"
      ? { id: r.id, workspace: r.workspace, command: r.command, pid: r.pid, startedAt: r.startedAt, state: r.state === "kept" ? "kept" : r.state === "killed" ? "killed" : "running", ...(Array.isArray(r.kept) ? { kept: r.kept } : {}) }
      : undefined
  } catch {
    return undefined
  }
}

/** Staged calls of the workspace that never merged (their process gone while `running`) or that keep changes. */
export const pending = (workspace: string, base = baseDir()): ReadonlyArray<Record & { readonly dir: string }> => {
  let dir: string
  try {
    dir = workspaceDir(workspace, base)
  } catch {
    return []
  }
  return fs.readdirSync(dir).flatMap((name) => {
    const at = path.join(dir, name)
    const r = read(at)
    if (r === undefined) return []
    if (r.state === "running" && alive(r.pid)) return []
    return [{ ...r, ...(r.state === "running" ? { state: "killed" as const } : {}), dir: at }]
  })
}

/** Removes a staged call's folder (its writes are dropped). */
export const discard = (dir: string): void => Overlay.remove(dir)
