// vitest's worker answers the runner's RPC on its event loop, and the runner gives up after 60 s ("Timeout calling
// onTaskUpdate", reported without a test name). A test that blocks the loop that long (say, a loop of spawnSync
// calls) is named here instead: a one-second timer that fires late says by how much, and in which tests.
import { afterEach, beforeEach, expect } from "vitest"

let since: Array<string> = []
beforeEach(() => {
  since.push(`${expect.getState().testPath ?? ""} > ${expect.getState().currentTestName ?? ""}`)
})
// vitest goes from one test to the next without a turn of the event loop, so synchronous tests in a row add up to
// one long block: two nested immediates let a whole turn (timers, then I/O: the runner's answers) run between tests.
afterEach(() => new Promise<void>((resolve) => setImmediate(() => setImmediate(resolve))))

let last = Date.now()
setInterval(() => {
  const now = Date.now()
  if (now - last > 20_000) process.stderr.write(`[event loop] blocked ${Math.round((now - last) / 1000)} s in ${since.join(" | ")}\n`)
  since = since.slice(-1)
  last = now
}, 1_000).unref()
