// The environment every test run shares (the full run's globalSetup and `npm run test:fast`'s), set in the main
// process before the workers start, so they inherit it.
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

/** Sets the run's environment; the function that removes what it made. */
export const testEnvironment = (): (() => void) => {
  // LSP brokers started by end-to-end tests stop soon after their last call (the default is 10 minutes).
  process.env["MINICODE_LSP_IDLE_MS"] ??= "30000"
  // minicode's state folders (StateHome: one per workspace, outside it) for this run's thousands of temporary
  // workspaces, in one folder removed at the end instead of the user's ~/.local/state/minicode.
  const made = process.env["XDG_STATE_HOME"] === undefined ? fs.mkdtempSync(path.join(os.tmpdir(), "minicode-test-state-")) : undefined
  if (made !== undefined) process.env["XDG_STATE_HOME"] = made
  return () => {
    if (made !== undefined) fs.rmSync(made, { recursive: true, force: true })
  }
}
