// Builds dist/ once per test run, so end-to-end tests always exercise the current sources as users get them.
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

export default function setup() {
  // LSP brokers started by end-to-end tests stop soon after their last call (the default is 10 minutes).
  process.env["MINICODE_LSP_IDLE_MS"] ??= "30000"
  // minicode's state folders (StateHome: one per workspace, outside it) for this run's thousands of temporary
  // workspaces, in one folder removed at the end instead of the user's ~/.local/state/minicode.
  const made = process.env["XDG_STATE_HOME"] === undefined ? fs.mkdtempSync(path.join(os.tmpdir(), "minicode-test-state-")) : undefined
  if (made !== undefined) process.env["XDG_STATE_HOME"] = made
  execFileSync(process.execPath, ["scripts/build.mjs"], { stdio: "inherit" })
  return () => {
    if (made !== undefined) fs.rmSync(made, { recursive: true, force: true })
  }
}
