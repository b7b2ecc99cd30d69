// vitest's worker answers the runner's RPC on its event loop, and the runner gives up after 60 s ("Timeout calling
// onTaskUpdate", reported without a test name). A test that blocks the loop that long (say, a loop of spawnSync
// calls) is named here instead: a one-second timer that fires late says by how much, and in which test.
import { beforeEach, expect } from "vitest"

let current = ""
beforeEach(() => {
  current = `${expect.getState().testPath ?? ""} > ${expect.getState().currentTestName ?? ""}`
})

let last = Date.now()
setInterval(() => {
  const now = Date.now()
  if (now - last > 20_000) process.stderr.write(`[event loop] blocked ${Math.round((now - last) / 1000)} s in ${current}\n`)
  last = now
}, 1_000).unref()
