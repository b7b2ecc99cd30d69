/**
 * The walk for host files other users may not read (domain/sandbox/HostSecrets.ts says where and what), shared by
 * every sandbox of the process: one walk per folder per process, on the first sandbox (or earlier: `mcp serve`
 * starts it on its first idle moment, BwrapSandbox.prewarm), breadth-first, bounded, symlinks not followed, a
 * private folder masked as a whole and never entered.
 *
 * Synchronous: on this machine (2 cores, Debian with postgresql and mariadb) the walk of `/etc` + `/opt` +
 * `/usr/local` (6,200 entries) cost about 35 ms of CPU synchronous, and 75–190 ms as promises or in a worker
 * thread (bench/hostwalk.bench.ts).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import * as HostSecrets from "../../domain/sandbox/HostSecrets.js"

/** Entries a walk looks at in one folder tree before it stops (then `truncated`: deeper entries stay shown). */
export const defaultLimit = 20_000

const kindOf = (st: fs.Stats): "file" | "directory" | "other" => (st.isDirectory() ? "directory" : st.isFile() ? "file" : "other")

/** One walk of `top` (see the module's comment), `keep` passed by (`HostSecrets.judge`). */
export const walk = (top: string, limit = defaultLimit, keep: ReadonlyArray<string> = []): HostSecrets.Entries => {
  const files: Array<string> = []
  const dirs: Array<string> = []
  const topStat = fs.lstatSync(top, { throwIfNoEntry: false })
  if (topStat === undefined || !topStat.isDirectory()) return HostSecrets.none
  // A folder entered though private (it holds a kept path): all it holds is private.
  let level: Array<{ readonly dir: string; readonly closed: boolean }> = [{ dir: top, closed: HostSecrets.isPrivate("directory", topStat.mode) }]
  let seen = 0
  while (level.length > 0) {
    const next: typeof level = []
    for (const { dir, closed } of level) {
      let names: Array<string> = []
      try {
        names = fs.readdirSync(dir)
      } catch {
        continue
      }
      for (const name of names) {
        if (++seen > limit) return { files, dirs, truncated: true }
        const p = path.join(dir, name)
        const st = fs.lstatSync(p, { throwIfNoEntry: false })
        if (st === undefined) continue
        const verdict = HostSecrets.judge(p, kindOf(st), st.mode, keep, closed)
        if (verdict === "enter") next.push({ dir: p, closed: closed || HostSecrets.isPrivate("directory", st.mode) })
        else if (verdict === "mask") (st.isDirectory() ? dirs : files).push(p)
      }
    }
    level = next
  }
  return { files, dirs, truncated: false }
}

const walks = new Map<string, HostSecrets.Entries>()

/** `walk`, once per process for the same folder and kept paths. */
export const walkOnce = (top: string, keep: ReadonlyArray<string> = []): HostSecrets.Entries => {
  const key = [top, ...keep].join("\0")
  const known = walks.get(key) ?? walk(top, defaultLimit, keep)
  walks.set(key, known)
  return known
}

/** The private entries of every folder in `roots`, each walked once per process. */
export const entriesOf = (roots: ReadonlyArray<string>): HostSecrets.Entries => HostSecrets.merge(roots.map((r) => walkOnce(r)))

/**
 * The masks for one sandbox that shows `visible` whatever it holds (its workspace, home, extra folders): the
 * process's entries around them, and the private folders that hold one of them walked with them kept out (those
 * walks pass `visible` by, so what they find needs no second look).
 */
export const masksAround = (entries: HostSecrets.Entries, visible: ReadonlyArray<string>): HostSecrets.Entries => {
  const kept = HostSecrets.around(entries, visible)
  return kept.descend.length === 0 ? kept : HostSecrets.merge([kept, ...kept.descend.map((d) => walkOnce(d, visible))])
}
