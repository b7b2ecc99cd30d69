// Builds dist/ once per test run, so end-to-end tests always exercise the current sources as users get them.
import { execFileSync } from "node:child_process"

export default function setup() {
  // LSP brokers started by end-to-end tests stop soon after their last call (the default is 10 minutes).
  process.env["MINICODE_LSP_IDLE_MS"] ??= "30000"
  execFileSync(process.execPath, ["scripts/build.mjs"], { stdio: "inherit" })
}
