/**
 * Where staged bash's writes land: `staged/<call>/` in the workspace's state folder (`adapters/fs/StateHome`:
 * `$XDG_STATE_HOME/minicode/<id>`, else `~/.local/state/…`, keyed by the workspace root's identity), never inside
 * the workspace, so no tool and no sandboxed program can write what minicode reads back. Where no such place
 * exists, nothing is made and bash is refused with what to set. A call's folder holds the overlay's layers (`mask`,
 * `lower` — a mount point —, `upper`, `work`), `started` (its change time is the call's start, on the clock file
 * times use), `listing` (written in the namespace once the command ended) and `call.json` (what `recover` lists).
 * A folder left behind is a call that never merged (minicode killed, a timeout) or one whose refused or conflicting
 * changes are kept; `recover --staged` lists them, `--discard` removes them.
 */
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import * as StateHome from "../fs/StateHome.js"
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

const inside = (root: string, p: string) => p === root || p.startsWith(`${root}/`)

/**
 * The workspace's staging folder (made, private): `staged` in its state folder, or `<base>/<dev>-<ino>` when a base
 * is given (tests, the bench). Throws a readable error (what to set) when there is no place outside the workspace.
 */
export const workspaceDir = (workspace: string, base?: string): string => {
  if (base === undefined) {
    const dir = path.join(StateHome.folder(workspace), "staged")
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
    return dir
  }
  const st = fs.statSync(workspace)
  const dir = path.join(base, `${st.dev}-${st.ino}`)
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
  const real = fs.realpathSync(dir)
  if (inside(workspace, real)) throw new Error(`the staging folder ${real} is inside the workspace; set XDG_STATE_HOME elsewhere`)
  return real
}

/** The workspace's staging folder if it exists (nothing is made); undefined otherwise. */
const existingDir = (workspace: string, base?: string): string | undefined => {
  if (base !== undefined) {
    try {
      return workspaceDir(workspace, base)
    } catch {
      return undefined
    }
  }
  const state = StateHome.existing(workspace)
  const dir = state === undefined ? undefined : path.join(state, "staged")
  return dir !== undefined && fs.existsSync(dir) ? dir : undefined
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

/** A folder being made (`<id>.partial-<pid>`): renamed to `<id>` once its record is in it. */
const partialName = /^(.+)\.partial-(\d+)$/

/**
 * A fresh call folder with its record (`running`), made under a partial name and renamed into place whole, so a
 * process killed while making it leaves a folder `recover --staged` still lists and discards (a folder with no
 * record was never listed, and stayed for ever).
 */
export const create = (workspace: string, command: string, base?: string): Stage => {
  const id = `${Date.now().toString(36)}-${randomBytes(4).toString("hex")}`
  const parent = workspaceDir(workspace, base)
  const dir = path.join(parent, id)
  const partial = path.join(parent, `${id}.partial-${process.pid}`)
  fs.mkdirSync(partial, { mode: 0o700 })
  for (const name of ["mask", "lower", "upper", "work"]) fs.mkdirSync(path.join(partial, name), { mode: 0o700 })
  write(partial, { id, workspace, command, pid: process.pid, startedAt: Date.now(), state: "running" })
  fs.renameSync(partial, dir)
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
export const pending = (workspace: string, base?: string): ReadonlyArray<Record & { readonly dir: string }> => {
  const dir = existingDir(workspace, base)
  if (dir === undefined) return []
  return fs.readdirSync(dir).flatMap((name) => {
    const at = path.join(dir, name)
    const made = partialName.exec(name)
    if (made !== null) {
      // Its maker was killed before the call started (or is still making it): nothing ran in it.
      const pid = Number(made[2])
      if (alive(pid)) return []
      const startedAt = fs.lstatSync(at, { throwIfNoEntry: false })?.mtimeMs ?? 0
      return [{ id: made[1] ?? name, workspace, command: read(at)?.command ?? "(not started)", pid, startedAt, state: "killed" as const, dir: at }]
    }
    const r = read(at)
    if (r === undefined) return []
    if (r.state === "running" && alive(r.pid)) return []
    return [{ ...r, ...(r.state === "running" ? { state: "killed" as const } : {}), dir: at }]
  })
}

/** Removes a staged call's folder (its writes are dropped). */
export const discard = (dir: string): void => Overlay.remove(dir)
