// Builds dist/ once per test run, so end-to-end tests always exercise the current sources as users get them.
import { execFileSync } from "node:child_process"
import { testEnvironment } from "./testEnvironment.js"

export default function setup() {
  const teardown = testEnvironment()
  execFileSync(process.execPath, ["scripts/build.mjs"], { stdio: "inherit" })
  // The test files' ensureBuilt (McpServeHarness) trusts this build: a second build in a worker would delete dist/
  // under the CLIs and servers other workers are running (when a source file changed during the run).
  process.env["MINICODE_TEST_BUILT"] = "1"
  return teardown
}
