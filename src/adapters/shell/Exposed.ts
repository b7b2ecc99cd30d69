/**
 * Files a sandboxed call wrote while one of its masks was broken (`MaskGuard`: the host replaced `.env` mid-call),
 * protected from then on. Such a call may have read the secret's new content and written it anywhere it can write:
 * its output is withheld, and this keeps what it wrote as unreadable as the secret, whatever the name or encoding.
 * Was a hole (red team, issue 19): a bash loop `cp .env copied.txt` caught the host's save, and a later read_file of
 * `copied.txt` showed it. Every file (but minicode's state and git's objects, which `SecretObjects.noteMade` keeps)
 * whose change time is past the call's start is listed in `exposed.json` of the workspace's state folder (`StateHome`:
 * outside the workspace, never in a sandbox), and whose paths the protected-alias answer holds (read_file, grep, repo_map, the git tools, the sandbox). Removing a path from the
 * list (or the list) is the user's decision, once they have looked.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import * as Aliases from "../../domain/jail/Aliases.js"
import * as Jail from "../../domain/jail/Jail.js"
import * as StateHome from "../fs/StateHome.js"

export const fileName = "exposed.json"
const fileOf = (workspace: string) => StateHome.fileIn(workspace, fileName)

/** Where the list is (or would be) kept, for the user to edit: the state folder outside the workspace (`StateHome`). */
export const where = (workspace: string): string => path.join(StateHome.locate(workspace) ?? "<minicode's state folder>", fileName)

const lstat = (p: string | undefined) => {
  if (p === undefined) return undefined
  try {
    return fs.lstatSync(p, { throwIfNoEntry: false })
  } catch {
    return undefined
  }
}

interface Listed {
  readonly paths: ReadonlySet<string>
  /** `dev:ino` of each listed file when it was listed: its content under any name it is moved to. */
  readonly inodes: ReadonlySet<string>
}

const empty: Listed = { paths: new Set(), inodes: new Set() }
const memory = new Map<string, { readonly key: string; readonly listed: Listed }>()

const strings = (o: unknown, field: string): Array<string> => {
  const v = typeof o === "object" && o !== null ? (o as Record<string, unknown>)[field] : undefined
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []
}

/** The list, read again only when it changed. */
const listed = (workspace: string): Listed => {
  const st = lstat(fileOf(workspace))
  if (st?.isFile() !== true) return empty
  const key = `${st.ino}:${st.size}:${st.mtimeMs}`
  const known = memory.get(workspace)
  if (known?.key === key) return known.listed
  let list = empty
  try {
    const raw: unknown = JSON.parse(fs.readFileSync(fileOf(workspace) ?? "", "utf8"))
    list = { paths: new Set(strings(raw, "paths").filter((p) => p.startsWith(`${workspace}/`))), inodes: new Set(strings(raw, "inodes")) }
  } catch {
    // A torn list: nothing is lifted, the next record writes it whole again.
  }
  memory.set(workspace, { key, listed: list })
  return list
}

/** The listed paths (absolute). */
export const paths = (workspace: string): ReadonlySet<string> => listed(workspace).paths

/** `p` with the listed paths and files among its protected ones (a listed file renamed since is still one). */
export const protect = (workspace: string, p: Aliases.Protected): Aliases.Protected => {
  const l = listed(workspace)
  return l.paths.size === 0 ? p : { ...p, paths: new Set([...p.paths, ...l.paths]), inodes: new Set([...p.inodes, ...l.inodes]) }
}

/**
 * Few enough paths for the sandbox to mask one by one: a folder with more than 20 of them is listed instead of its
 * files, and past 500 entries the workspace's top-level entries that hold them are (a mask each). A call exposed
 * while it ran `npm install` wrote thousands of files.
 */
const collapsed = (workspace: string, files: ReadonlyArray<string>): ReadonlyArray<string> => {
  const byFolder = new Map<string, Array<string>>()
  for (const f of files) (byFolder.get(path.dirname(f)) ?? byFolder.set(path.dirname(f), []).get(path.dirname(f)))?.push(f)
  const listed = [...byFolder].flatMap(([dir, fs]) => (fs.length > 20 && dir !== workspace ? [dir] : fs))
  if (listed.length <= 500) return listed
  return [...new Set(listed.map((p) => path.join(workspace, path.relative(workspace, p).split(path.sep)[0] ?? "")))]
}

/** Lists every file changed since `sinceMs` (margin included) and not already protected by its name; what it added. */
export const record = (workspace: string, sinceMs: number): ReadonlyArray<string> => {
  const since = sinceMs - 20
  const found: Array<string> = []
  const walk = (dir: string, inGit: boolean) => {
    let entries: Array<fs.Dirent> = []
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true })
    } catch {
      return
    }
    for (const e of entries) {
      const abs = path.join(dir, e.name)
      // A git folder's objects are protected as content (`SecretObjects.noteMade`); its other files are listed: a
      // copy in `.git/stolen`, a ref or a reflog message written by the call (was a hole, red team 9: `cp .env
      // .git/stolen` or `sub/.git/stolen` while exposed, then `cat` in a later call).
      if ((inGit && dir.endsWith(`${path.sep}.git`) && e.name === "objects") || (dir === workspace && e.name === ".minicode")) continue
      const st = lstat(abs)
      if (st === undefined) continue
      if (st.isDirectory()) walk(abs, inGit || e.name === ".git")
      else if ((st.ctimeMs >= since || st.mtimeMs >= since) && Jail.sensitiveReason(abs, workspace) === undefined) found.push(abs)
    }
  }
  walk(workspace, false)
  const before = listed(workspace)
  const added = collapsed(workspace, found).filter((p) => !before.paths.has(p))
  if (added.length === 0) return []
  const inodes = found.flatMap((f) => {
    const st = lstat(f)
    return st?.isFile() === true ? [Aliases.key(st.dev, st.ino)] : []
  })
  const dir = StateHome.folder(workspace)
  const tmp = path.join(dir, `${fileName}.${process.pid}-${Math.random().toString(36).slice(2)}.tmp`)
  fs.writeFileSync(tmp, JSON.stringify({ paths: [...before.paths, ...added], inodes: [...new Set([...before.inodes, ...inodes])] }), { mode: 0o600, flag: "wx" })
  fs.renameSync(tmp, path.join(dir, fileName))
  return added
}
