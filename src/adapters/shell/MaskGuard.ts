/**
 * Whether the sandbox's masks still hold while its command runs. A mask is a bind mount over a protected file, and
 * Linux detaches a mount in every namespace when the host renames over its mount point or removes it: an editor
 * saving `.env` by writing a temporary file and renaming it into place (vim, JetBrains' safe write, `sed -i`) made
 * the new content readable to a bash call already running. Was a hole (red team, issue 19): a bash loop of
 * `cat .env` printed the new secret the moment the host saved it. The kernel cannot be told to keep the mask, so
 * the shell asks this guard before it lets any output out (`SandboxedShell`): once a masked path is not the one
 * masked (another inode, or gone), the guard says so for the rest of the call, and the output is withheld. Only the
 * host can do that (inside, a mount point cannot be renamed over or removed). A file written in place keeps its
 * inode, and its mask: no break. Left: a protected file the host creates while the call runs (a new `.env.local`):
 * the call itself may create one too (a setup script), and which of them made it cannot be told.
 */
import * as fs from "node:fs"
import * as path from "node:path"

/** The path's inode; "gone" when nothing is there; undefined when it cannot be told (a folder on the way made unsearchable). */
const inodeOf = (p: string): number | "gone" | undefined => {
  try {
    return fs.lstatSync(p, { throwIfNoEntry: false })?.ino ?? "gone"
  } catch {
    return undefined
  }
}

export interface MaskGuard {
  /** Undefined while every mask holds; once one does not, why (the same answer for the rest of the call). */
  readonly broken: () => string | undefined
  /** When the guard was made (`Date.now()`), just before the command starts. */
  readonly startedMs: number
}

export const none: MaskGuard = { broken: () => undefined, startedMs: 0 }

/** The guard over `masked` (the paths the sandbox masks, files and folders), taken before the command starts. */
export const make = (workspace: string, masked: ReadonlyArray<string>): MaskGuard => {
  const startedMs = Date.now()
  const marks = masked.flatMap((p) => {
    const ino = inodeOf(p)
    return typeof ino === "number" ? [{ path: p, ino }] : []
  })
  let why: string | undefined
  const shown = (p: string) => path.relative(workspace, p) || "."
  const check = (): string | undefined => {
    for (const m of marks) {
      // A folder on the way the call made unsearchable (`chmod 000 conf`): the host cannot replace anything there either.
      const ino = inodeOf(m.path)
      if (ino !== undefined && ino !== m.ino) return `${shown(m.path)} was replaced or removed on the host while the command ran`
    }
    return undefined
  }
  return {
    startedMs,
    broken: () => {
      why ??= check()
      return why
    }
  }
}
