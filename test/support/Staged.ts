/**
 * Tests and staged bash (issue 41): a staged call writes into its staging layer, not the workspace, until it ends.
 * A test that waits for a marker a running call makes (`touch started`) looks for it in the workspace (the live
 * sandbox) or in the upper layer of a staged call of that workspace (`staged/<call>/upper` in its state folder).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import * as StateHome from "../../src/adapters/fs/StateHome.js"

/** Whether `name` (workspace-relative) was made in `root`, or by a running staged call of `root`. */
export const madeByCall = (root: string, name: string): boolean => {
  if (fs.existsSync(path.join(root, name))) return true
  const state = StateHome.locate(root)
  if (state === undefined) return false
  const staged = path.join(state, "staged")
  try {
    return fs.readdirSync(staged).some((c) => fs.existsSync(path.join(staged, c, "upper", name)))
  } catch {
    return false
  }
}

/** The live sandbox's repair machinery (the default this stop, and the fallback where no overlay can be made) is what these tests attack. */
export const liveSandbox = (): void => {
  process.env["MINICODE_BASH_STAGED"] = "0"
}
