/**
 * A path beneath a folder opened without following a symlink, once that folder is known to be where its path says.
 */
import * as fs from "node:fs"
import * as path from "node:path"

/**
 * Runs `use` on a path to `file` through its folder opened without following a symlink, once that folder is known
 * to be `dirname(file)` itself (no symlink on the way): a concurrent sandbox that swaps a folder it made (`git init
 * sub`, then `sub/.git` → outside) never has a file made or read outside the workspace. Throws when it is not.
 */
export const beneath = <A>(file: string, use: (file: string) => A): A => {
  const fd = fs.openSync(path.dirname(file), fs.constants.O_RDONLY | fs.constants.O_DIRECTORY | fs.constants.O_NOFOLLOW)
  try {
    // The kernel's walk (`.native`), as `realFolder`: a read or made control file asks it each time.
    if (fs.realpathSync.native(`/proc/self/fd/${fd}`) !== path.dirname(file)) throw new Error(`${path.dirname(file)} moved`)
    return use(`/proc/self/fd/${fd}/${path.basename(file)}`)
  } finally {
    fs.closeSync(fd)
  }
}
