/**
 * Whether the sandbox's masks still hold while its command runs. A mask is a bind mount over a protected file, and
 * Linux detaches a mount in every namespace when the host renames over its mount point or removes it: an editor
 * saving `.env` by writing a temporary file and renaming it into place (vim, JetBrains' safe write, `sed -i`) made
 * the new content readable to a bash call already running. Was a hole (red team, issue 19): a bash loop of
 * `cat .env` printed the new secret the moment the host saved it. The kernel cannot be told to keep the mask, so
 * the shell asks this guard before it lets any output out (`SandboxedShell`): once a masked path is not the one
 * masked (another inode, or gone), the guard says so for the rest of the call, and the output is withheld. Only the
 * host can do that (inside, a mount point cannot be renamed over or removed). A file written in place keeps its
 * inode, and its mask: no break. A file is told by its device, inode and birth time: ext4 gives a removed file's inode
 * to the next file made (was a hole, red team 9: the host's `rm .env; echo … > .env` kept the inode number, and a
 * `cat .env` loop printed the new secret unnoticed). The masks' folders are watched (inotify), so a name replaced
 * and put back before the end is seen when it happens (red team 9: `mv .env .env.dev; cp .env.prod .env; …; mv
 * .env.dev .env` on the host showed `.env.prod` to a call that printed only at its end). Guarded too: the read-only
 * copies of git's control files (BwrapSandbox), whose break stops the command (`whenBroken`). Left: a protected file
 * the host creates while the call runs (a new `.env.local`): the call itself may create one too (a setup script),
 * and which of them made it cannot be told; a name replaced and put back faster than the event is read.
 */
import * as fs from "node:fs"
import * as path from "node:path"

/**
 * The file at the path, as device, inode and birth time (0 where the file system keeps none); "gone" when nothing is
 * there; undefined when it cannot be told (a folder on the way made unsearchable).
 */
const identityOf = (p: string): string | undefined => {
  try {
    const st = fs.lstatSync(p, { throwIfNoEntry: false })
    return st === undefined ? "gone" : `${st.dev}:${st.ino}:${st.birthtimeMs}`
  } catch {
    return undefined
  }
}

export interface MaskGuard {
  /** Undefined while every mask holds; once one does not, why (the same answer for the rest of the call). */
  readonly broken: () => string | undefined
  /** When the guard was made (`Date.now()`), just before the command starts. */
  readonly startedMs: number
  /** Ends the watch on the masks' folders (what was seen till then still counts). */
  readonly stop: () => void
  /** Calls `listener` once, when a break of a `stopping` path is first seen (at once if it was); unsubscribes. */
  readonly whenBroken: (listener: () => void) => () => void
}

export const none: MaskGuard = { broken: () => undefined, startedMs: 0, stop: () => undefined, whenBroken: () => () => undefined }

/** The guard over `masked` (the paths the sandbox masks, files and folders), taken before the command starts. */
export const make = (workspace: string, masked: ReadonlyArray<string>, stopping: ReadonlySet<string> = new Set()): MaskGuard => {
  const startedMs = Date.now()
  const marks = masked.flatMap((p) => {
    const id = identityOf(p)
    return id !== undefined && id !== "gone" ? [{ path: p, id }] : []
  })
  let why: string | undefined
  let stop = false
  const listeners = new Set<() => void>()
  const breaks = (p: string | undefined) => {
    if (p === undefined) return
    why ??= replaced(p)
    if (stop || !stopping.has(p)) return
    stop = true
    for (const l of [...listeners]) l()
    listeners.clear()
  }
  const shown = (p: string) => path.relative(workspace, p) || "."
  const replaced = (p: string) => `${shown(p)} was replaced or removed on the host while the command ran`
  /** The marks no longer what they were. */
  const check = (): ReadonlyArray<string> =>
    marks.flatMap((m) => {
      // A folder on the way the call made unsearchable (`chmod 000 conf`): the host cannot replace anything there either.
      const id = identityOf(m.path)
      return id !== undefined && id !== m.id ? [m.path] : []
    })
  // A rename or removal of a masked name in its folder: the host's (a mount point cannot be renamed or removed inside),
  // judged by the name's identity when told: Node says "rename" for a folder's changed attributes too (inotify's
  // IN_ISDIR), and a watch shares its descriptor with the process's other watches of the folder (`mcp serve`'s scan),
  // so events from before the guard (the call's own `commondir` made for it) reach it too.
  const byFolder = new Map<string, Map<string, (typeof marks)[number]>>()
  for (const m of marks) (byFolder.get(path.dirname(m.path)) ?? byFolder.set(path.dirname(m.path), new Map()).get(path.dirname(m.path)))?.set(path.basename(m.path), m)
  const watchers = [...byFolder].flatMap(([dir, names]) => {
    try {
      const w = fs.watch(dir, { persistent: false }, (event, name) => {
        if (event !== "rename") return
        const told = name === null ? [...names.values()] : [names.get(name.toString())]
        for (const m of told) if (m !== undefined && identityOf(m.path) !== m.id) breaks(m.path)
      })
      w.on("error", () => undefined)
      return [w]
    } catch {
      // No watch to be had (the system's limit): the identity check still holds for what is not put back.
      return []
    }
  })
  return {
    startedMs,
    broken: () => {
      if (why === undefined || (!stop && stopping.size > 0)) for (const p of check()) breaks(p)
      return why
    },
    stop: () => {
      for (const w of watchers) w.close()
      listeners.clear()
    },
    whenBroken: (listener) => {
      if (stop) {
        listener()
        return () => undefined
      }
      listeners.add(listener)
      return () => void listeners.delete(listener)
    }
  }
}
