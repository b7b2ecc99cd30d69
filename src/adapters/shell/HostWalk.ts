/**
 * The walk for host files other users may not read (domain/sandbox/HostSecrets.ts says where and what), shared by
 * every sandbox of the process: one walk per folder per process, breadth-first, bounded, symlinks not followed, a
 * private folder masked as a whole and never entered. Asynchronous, so it can start with the process (`prewarm`)
 * and run while start-up goes on; the first sandbox waits for it, never for a second one.
 *
 * Measured on a stock Debian image with postgresql and mariadb (2 cores, warm caches): `/etc` (1,200 entries)
 * 6–17 ms, `/etc` + `/opt` + `/usr/local` (6,200 entries) 33–47 ms synchronous, 60–90 ms asynchronous off the event loop.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect } from "effect"
import * as HostSecrets from "../../domain/sandbox/HostSecrets.js"

/** Entries a walk looks at in one folder tree before it stops (then `truncated`: deeper entries stay shown). */
export const defaultLimit = 20_000

const kindOf = (st: fs.Stats): "file" | "directory" | "other" => (st.isDirectory() ? "directory" : st.isFile() ? "file" : "other")

/** One walk of `top` (see the module's comment), `keep` passed by (`HostSecrets.judge`). */
export const walk = async (top: string, limit = defaultLimit, keep: ReadonlyArray<string> = []): Promise<HostSecrets.Entries> => {
  const files: Array<string> = []
  const dirs: Array<string> = []
  const topStat = await fs.promises.lstat(top).catch(() => undefined)
  if (topStat === undefined || !topStat.isDirectory()) return HostSecrets.none
  // A folder entered though private (it holds a kept path): all it holds is private.
  let level: Array<{ readonly dir: string; readonly closed: boolean }> = [{ dir: top, closed: HostSecrets.isPrivate("directory", topStat.mode) }]
  let seen = 0
  while (level.length > 0) {
    const next: typeof level = []
    const listed = await Promise.all(
      level.map(({ dir, closed }) => fs.promises.readdir(dir).then((names) => names.map((n) => ({ path: path.join(dir, n), closed })), () => []))
    )
    const entries = listed.flat()
    const looked = entries.slice(0, Math.max(0, limit - seen))
    seen += looked.length
    const stats = await Promise.all(looked.map((e) => fs.promises.lstat(e.path).catch(() => undefined)))
    looked.forEach((e, i) => {
      const st = stats[i]
      if (st === undefined) return
      const verdict = HostSecrets.judge(e.path, kindOf(st), st.mode, keep, e.closed)
      if (verdict === "enter") next.push({ dir: e.path, closed: e.closed || HostSecrets.isPrivate("directory", st.mode) })
      else if (verdict === "mask") (st.isDirectory() ? dirs : files).push(e.path)
    })
    if (entries.length > looked.length || (seen >= limit && next.length > 0)) return { files, dirs, truncated: true }
    level = next
  }
  return { files, dirs, truncated: false }
}

const walks = new Map<string, Promise<HostSecrets.Entries>>()

/** `walk`, once per process for the same folder and kept paths. */
export const walkOnce = (top: string, keep: ReadonlyArray<string> = []): Promise<HostSecrets.Entries> => {
  const key = [top, ...keep].join("\0")
  const known = walks.get(key)
  if (known !== undefined) return known
  const started = walk(top, defaultLimit, keep)
  walks.set(key, started)
  return started
}

/** The private entries of every folder in `roots`, each walked once per process. */
export const entriesOf = (roots: ReadonlyArray<string>): Effect.Effect<HostSecrets.Entries> =>
  Effect.map(Effect.promise(() => Promise.all(roots.map((r) => walkOnce(r)))), HostSecrets.merge)

/**
 * The masks for one sandbox that shows `visible` whatever it holds (its workspace, home, extra folders): the
 * process's entries around them, and the private folders that hold one of them walked with them kept out.
 */
export const masksAround = (entries: HostSecrets.Entries, visible: ReadonlyArray<string>): Effect.Effect<HostSecrets.Entries> => {
  const kept = HostSecrets.around(entries, visible)
  if (kept.descend.length === 0) return Effect.succeed(kept)
  // Those walks pass `visible` by, so what they find needs no second look.
  return Effect.map(Effect.promise(() => Promise.all(kept.descend.map((d) => walkOnce(d, visible)))), (inner) => HostSecrets.merge([kept, ...inner]))
}
