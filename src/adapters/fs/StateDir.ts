/**
 * The workspace's `.minicode/` folder (journal, local config): made private (700), with a `.gitignore` holding `*`
 * so neither it nor anything in it ever shows in `git status` or lands in a commit. An existing `.gitignore` is
 * left as it is (the user may have changed it on purpose).
 */
import * as fs from "node:fs"
import * as path from "node:path"

export const gitignore = "*\n"

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
