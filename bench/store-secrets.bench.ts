/**
 * What hiding a store that holds protected content costs per sandboxed call (SecretObjects.toHide, with
 * StoreSecrets.check reading the store without git), on a copy of the big tree's repository (bench/tree/generate.ts:
 * one pack of ~82,000 objects, ~25,000 trees, a 60,000-entry index), against raw `bwrap --ro-bind / / true` in the
 * same run:
 *
 * - cold: the first call in a workspace (no `.minicode/secret-objects.json`): every tree of the pack is read, in a
 *   fresh process, through toHideEffect as the sandbox runs it: its wall and CPU time, the longest the event loop
 *   stood still meanwhile (what another call of `mcp serve` waits), the RSS it keeps and its peak;
 * - a CLI call: a fresh process, the state file read back, nothing new in the store;
 * - a call in a long-lived process (`mcp serve`), nothing new;
 * - after `git write-tree` and `git add` on the host (a new loose tree, a new index).
 *
 *   npx tsx bench/store-secrets.bench.ts [runs=30]        (BENCH_TREE_FILES=60000 by default)
 */
import { execFileSync, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { Effect } from "effect"
import * as SecretObjects from "../src/adapters/shell/SecretObjects.js"
import * as WorkspaceScan from "../src/adapters/shell/WorkspaceScan.js"
import { cached } from "./tree/generate.js"

const runs = Number(process.argv[2] ?? 30)
const files = Number(process.env["BENCH_TREE_FILES"] ?? 60_000)
const repo = fileURLToPath(new URL("../", import.meta.url))
const tree = cached(files, files >= 20_000 ? path.join(repo, "node_modules") : undefined)

const median = (samples: Array<number>) => [...samples].sort((a, b) => a - b)[Math.floor(samples.length / 2)] ?? NaN
const time = (f: () => unknown, n = runs) => {
  const samples: Array<number> = []
  for (let i = 0; i < n; i++) {
    const start = performance.now()
    f()
    samples.push(performance.now() - start)
  }
  return median(samples)
}

/** One toHide as the sandbox runs it (the call awaited while the event loop keeps turning). */
const hideOnce = (ws: string, hits: ReturnType<typeof WorkspaceScan.scan>) => Effect.runPromise(SecretObjects.toHideEffect(ws, hits))

const mb = (n: number) => n / 1024 / 1024
const gc = () => (globalThis as { gc?: () => void }).gc?.()

if (process.argv[2] === "--cold") {
  // A fresh process's first check: its time, the longest the event loop stood still meanwhile (a 2 ms ticker),
  // and the RSS it keeps once done (after a GC) over the RSS before.
  const ws = process.argv[3] ?? ""
  const hits = WorkspaceScan.scan(ws)
  gc()
  const before = process.memoryUsage().rss
  let last = performance.now()
  let stall = 0
  const ticker = setInterval(() => {
    const now = performance.now()
    stall = Math.max(stall, now - last)
    last = now
  }, 2)
  const cpu0 = process.cpuUsage()
  const start = performance.now()
  last = start
  let peak = 0
  const peaks = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10)
  await hideOnce(ws, hits)
  const took = performance.now() - start
  const cpuUsed = process.cpuUsage(cpu0)
  stall = Math.max(stall, performance.now() - last)
  clearInterval(ticker)
  clearInterval(peaks)
  peak = Math.max(peak, process.memoryUsage().rss)
  gc()
  await new Promise((r) => setTimeout(r, 50))
  gc()
  const after = process.memoryUsage().rss
  process.stdout.write(JSON.stringify({ took, cpu: (cpuUsed.user + cpuUsed.system) / 1000, stall, kept: mb(after - before), peak: mb(peak - before) }))
} else if (process.argv[2] === "--child") {
  const ws = process.argv[3] ?? ""
  const hits = WorkspaceScan.scan(ws)
  const start = performance.now()
  SecretObjects.toHide(ws, hits)
  process.stdout.write(String(performance.now() - start))
} else {
  const ws = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "minicode-bench-store-")))
  try {
    execFileSync("cp", ["-r", path.join(tree, ".git"), path.join(ws, ".git")])
    fs.writeFileSync(path.join(ws, ".env"), "TOKEN=bench\n")
    const hits = WorkspaceScan.scan(ws)
    // The first check in a fresh process, three times (the state file removed each time).
    const colds: Array<{ took: number; cpu: number; stall: number; kept: number; peak: number }> = []
    for (let i = 0; i < 3; i++) {
      fs.rmSync(path.join(ws, ".minicode"), { recursive: true, force: true })
      const r = spawnSync(process.execPath, ["--expose-gc", "--import", "tsx", fileURLToPath(import.meta.url), "--cold", ws], { encoding: "utf8" })
      colds.push(JSON.parse(r.stdout))
    }
    const cold = median(colds.map((c) => c.took))
    const coldCpu = median(colds.map((c) => c.cpu))
    const coldStall = median(colds.map((c) => c.stall))
    const coldKept = median(colds.map((c) => c.kept))
    const coldPeak = median(colds.map((c) => c.peak))
    const warm = time(() => SecretObjects.toHide(ws, hits))
    const fresh: Array<number> = []
    for (let i = 0; i < Math.min(runs, 10); i++) {
      const r = spawnSync(process.execPath, ["--import", "tsx", fileURLToPath(import.meta.url), "--child", ws], { encoding: "utf8" })
      fresh.push(Number(r.stdout))
    }
    const git = (...args: Array<string>) => execFileSync("git", args, { cwd: ws, env: { ...process.env, GIT_DIR: path.join(ws, ".git"), GIT_WORK_TREE: ws } })
    const changed = time(() => {
      fs.writeFileSync(path.join(ws, `n${Math.random()}.txt`), `${Math.random()}\n`)
      git("add", "-A", "--", ".")
      git("write-tree")
    }, 5)
    const afterChange: Array<number> = []
    for (let i = 0; i < 5; i++) {
      fs.writeFileSync(path.join(ws, `m${i}.txt`), `${i} ${Math.random()}\n`)
      git("add", "--", `m${i}.txt`)
      git("write-tree")
      afterChange.push(time(() => SecretObjects.toHide(ws, hits), 1))
    }
    const bwrap = time(() => spawnSync("bwrap", ["--ro-bind", "/", "/", "true"]))
    const ms = (v: number) => `${v.toFixed(1)} ms`
    console.log(`raw bwrap true (peer):                    ${ms(bwrap)}`)
    console.log(`cold, first call (all trees of the pack):  ${ms(cold)}  (${(cold / bwrap).toFixed(1)}x bwrap)`)
    console.log(`  CPU time of it (user + system):          ${ms(coldCpu)}`)
    console.log(`  longest event-loop stall meanwhile:      ${ms(coldStall)}`)
    console.log(`  RSS kept after it (GC'd) / peak over:    ${coldKept.toFixed(0)} MB / ${coldPeak.toFixed(0)} MB`)
    console.log(`CLI call, fresh process, nothing new:     ${ms(median(fresh))}  (${(median(fresh) / bwrap).toFixed(2)}x bwrap)`)
    console.log(`long-lived process, nothing new:          ${ms(warm)}  (${(warm / bwrap).toFixed(2)}x bwrap)`)
    console.log(`after git add + write-tree on the host:   ${ms(median(afterChange))}  (${(median(afterChange) / bwrap).toFixed(2)}x bwrap; the git commands took ${ms(changed)})`)
  } finally {
    fs.rmSync(ws, { recursive: true, force: true })
  }
}
