/**
 * Host files the sandbox masks because other users may not read them, pure: where they are looked for, what counts
 * as private, and which masks a profile keeps around what it shows anyway. The sandbox's processes keep the user's
 * uid with every capability dropped, so they read what the owner may; minicode often runs as root (a container),
 * whose sandbox then reads every root-private file it is shown: `/etc/mysql/debian.cnf`, a service's key under
 * `/opt`, an admin's `/usr/local/etc` config.
 *
 * Only what the profile binds can be read at all: the system folders (`SandboxProfile.systemCandidates`) and the
 * configured extra folders. `/var` (database files, backups, cron spools, service keys), `/srv`, `/root`, `/home`
 * (other users' homes), `/run` (`/run/secrets`) and `/boot` are not bound, so they do not exist inside; they are
 * walked only where a bound folder reaches into them. The user's own home is an empty tmpfs inside.
 */
import * as P from "../jail/PosixPath.js"

/** Where hosts keep secrets, walked wherever the sandbox shows them. */
export const places: ReadonlyArray<string> = [
  "/etc", "/opt", "/usr/local", "/srv", "/var", "/root", "/home", "/run/secrets", "/boot", "/mnt", "/media"
]

/** What a walk found: files and folders to mask (a private folder as a whole), and whether it stopped at its bound. */
export interface Entries {
  readonly files: ReadonlyArray<string>
  readonly dirs: ReadonlyArray<string>
  readonly truncated: boolean
}

export const none: Entries = { files: [], dirs: [], truncated: false }

/**
 * The folders to walk, given the host folders the sandbox binds (`shown`): each place inside a shown folder, and each
 * shown folder inside a place; one of two nested ones. `/usr` shown: `/usr/local` is walked, not all of `/usr`.
 */
export const walkRoots = (shown: ReadonlyArray<string>, candidates: ReadonlyArray<string> = places): ReadonlyArray<string> => {
  const found = new Set<string>()
  for (const place of candidates) {
    for (const s of shown) {
      if (P.isInside(s, place)) found.add(place)
      else if (P.isInside(place, s)) found.add(s)
    }
  }
  const all = [...found].sort()
  return all.filter((r) => !all.some((o) => o !== r && P.isInside(o, r)))
}

/**
 * An entry other users may not read: a file without the read bit for others, a folder without read and search
 * for others (its names, or what is below them, are the owner's).
 */
export const isPrivate = (kind: "file" | "directory", mode: number): boolean =>
  kind === "directory" ? (mode & 0o005) !== 0o005 : (mode & 0o004) === 0

/**
 * What a walk does with one entry: mask it, enter it, or pass it by. `keep` are paths the sandbox shows whatever
 * they hold (the workspace, a server's own folder, the home): passed by, and a private folder holding one is
 * entered instead of masked as a whole (their binds could not be made in a read-only tmpfs). Below such a folder
 * (`closed`) everything is private, whatever its own mode says. Symlinks, sockets and devices are passed by (a
 * symlink leads to a path judged on its own).
 */
export const judge = (
  path: string,
  kind: "file" | "directory" | "other",
  mode: number,
  keep: ReadonlyArray<string> = [],
  closed = false
): "mask" | "enter" | "pass" => {
  if (kind === "other" || keep.some((k) => P.isInside(k, path))) return "pass"
  const hidden = closed || isPrivate(kind, mode)
  if (kind === "file") return hidden ? "mask" : "pass"
  return hidden && !keep.some((k) => P.isInside(path, k)) ? "mask" : "enter"
}

/**
 * The masks to keep around paths the sandbox shows whatever they hold (the workspace, a server's own folder): none
 * inside one (its own bind comes later and covers it), and a private folder that holds one is not masked as a
 * whole (the bind could not be made in a read-only tmpfs) but returned in `descend`, to be walked with those paths
 * kept out.
 */
export const around = (entries: Entries, visible: ReadonlyArray<string>): Entries & { readonly descend: ReadonlyArray<string> } => {
  const outside = (p: string) => !visible.some((v) => P.isInside(v, p))
  const holds = (d: string) => visible.some((v) => P.isInside(d, v))
  return {
    files: entries.files.filter(outside),
    dirs: entries.dirs.filter((d) => outside(d) && !holds(d)),
    descend: entries.dirs.filter((d) => outside(d) && holds(d)),
    truncated: entries.truncated
  }
}

/** Several walks as one. */
export const merge = (all: ReadonlyArray<Entries>): Entries => ({
  files: [...new Set(all.flatMap((e) => e.files))],
  dirs: [...new Set(all.flatMap((e) => e.dirs))],
  truncated: all.some((e) => e.truncated)
})
