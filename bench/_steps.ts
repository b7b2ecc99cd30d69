import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as StoreSecrets from "../src/adapters/shell/StoreSecrets.js"
const ws = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "minicode-prof-")))
execFileSync("cp", ["-r", "/root/.cache/minicode-bench/tree-v1-60000/.git", path.join(ws, ".git")])
;(globalThis as any).gc?.()
const m0 = process.memoryUsage()
const steps = StoreSecrets.checkSteps(ws, path.join(ws, ".git"), [path.join(ws, ".git/objects")], [])
let n = 0
const c0 = process.cpuUsage()
for (;;) {
  const t = performance.now()
  const r = steps.next()
  const d = performance.now() - t
  if (d > 15) console.log("step", n, d.toFixed(0))
  n++
  if (r.done) break
}
const c1 = process.cpuUsage(c0)
console.log("steps", n, "cpu", (c1.user + c1.system) / 1000)
;(globalThis as any).gc?.()
const m1 = process.memoryUsage()
console.log("rss", ((m1.rss - m0.rss) / 1e6).toFixed(0), "heap", ((m1.heapUsed - m0.heapUsed) / 1e6).toFixed(0), "ext", ((m1.external - m0.external) / 1e6).toFixed(0), "ab", ((m1.arrayBuffers - m0.arrayBuffers) / 1e6).toFixed(0))
fs.rmSync(ws, { recursive: true, force: true })
