// Builds dist/ once per test run, so end-to-end tests always exercise the current sources as users get them.
import { execFileSync } from "node:child_process"

export default function setup() {
  execFileSync(process.execPath, ["scripts/build.mjs"], { stdio: "inherit" })
}
