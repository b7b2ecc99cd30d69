/**
 * The workspace's `.minicode/` folder (journal, local config): made private (700), with a `.gitignore` holding `*`
 * so neither it nor anything in it ever shows in `git status` or lands in a commit. An existing `.gitignore` is
 * left as it is (the user may have changed it on purpose). The records and caches that decide what minicode does
 * are not kept here but outside the workspace (`StateHome`); one found here (an older minicode's, a clone's, a
 * workspace script's) is data, never read.
 */
import * as fs from "node:fs"
import * as path from "node:path"

export const gitignore = "*\n"

/** The journal's database in a workspace: `.minicode/state.db`. */
export const journalFile = (root: string): string => path.join(root, ".minicode", "state.db")

/** Whether the workspace's journal was ever made (a read of one never made answers empty instead of making it). */
export const hasJournal = (root: string): boolean => fs.lstatSync(journalFile(root), { throwIfNoEntry: false }) !== undefined

/** Makes `dir` (and its parents) if missing, and gives it its `.gitignore` when it has none. Throws as `fs` does. */
export const prepare = (dir: string): void => {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
  // A checkout can ship `.minicode` as a symlink: state would then be written where the repository chose (outside
  // the workspace, or into a folder the tools read and write). Only a real folder is used.
  if (!fs.lstatSync(dir).isDirectory()) throw new Error(`${dir} is not a real folder (a symlink?): minicode keeps its state only in one; remove it`)
  try {
    fs.writeFileSync(path.join(dir, ".gitignore"), gitignore, { flag: "wx", mode: 0o600 })
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e
  }
}

/**
 * Whether `name`, in the workspace's `.minicode/`, is a file minicode itself writes there: the journal (with SQLite's
 * side files) and its `.gitignore`. Their content changes on nearly every call and only minicode ever reads it (the jail
 * refuses `.minicode/` to every tool, the sandbox masks it), so it never reaches a git store through a tool: the
 * store check does not hash and remember it as protected content (each call added about two ids to remember, for
 * ever). Any other file there (the user's `config.json`, a file the user put there) is still protected content.
 */
const ownNames = new Set([".gitignore", "state.db", "state.db-wal", "state.db-shm", "state.db-journal", "state.db-reserve"])

export const isOwnState = (name: string): boolean => ownNames.has(name)
