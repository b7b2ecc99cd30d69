/** Where minicode keeps a workspace's records and caches (outside it: src/adapters/fs/StateHome), as this test process's environment says. */
import * as StateHome from "../../src/adapters/fs/StateHome.js"

export const stateOf = (root: string): string => {
  const dir = StateHome.locate(root)
  if (dir === undefined) throw new Error(`no state folder for ${root}`)
  return dir
}
