/**
 * The walk for host files private to their owner (adapters/shell/HostWalk.ts), once per process: the secret
 * places the sandbox shows on this host against `/etc` alone (what was walked before), in the same run; and the
 * per-sandbox part (the process's entries around what a sandbox shows), which every wrap pays.
 *
 *   npx tsx bench/hostwalk.bench.ts [runs=20]
 */
import * as fs from "node:fs"
import * as NodeOs from "node:os"
import * as HostWalk from "../src/adapters/shell/HostWalk.js"
import * as HostSecrets from "../src/domain/sandbox/HostSecrets.js"
import { systemCandidates } from "../src/domain/sandbox/SandboxProfile.js"

const runs = Number(process.argv[2] ?? 20)
const shown = systemCandidates.filter((p) => fs.lstatSync(p, { throwIfNoEntry: false })?.isDirectory() === true)
const roots = HostSecrets.walkRoots(shown)

const median = (f: () => unknown) => {
  f()
  const samples: Array<number> = []
  for (let i = 0; i < runs; i++) {
    const start = performance.now()
    f()
    samples.push(performance.now() - start)
  }
  return [...samples].sort((a, b) => a - b)[Math.floor(runs / 2)] ?? NaN
}

const entries = HostWalk.entriesOf(roots)
const etc = median(() => HostWalk.walk("/etc"))
const all = median(() => roots.map((r) => HostWalk.walk(r)))
const around = median(() => HostWalk.masksAround(HostWalk.entriesOf(roots), ["/tmp/ws", "/root", "/usr/local/lib/node_modules"]))
const count = roots.reduce((n, r) => n + Number(fs.readdirSync(r, { recursive: true }).length), 0)
console.log(`host walk bench: ${runs} runs, ${NodeOs.cpus().length} cores, roots ${roots.join(" ")} (${count} entries): ${entries.files.length} files, ${entries.dirs.length} folders masked${entries.truncated ? " (truncated)" : ""}`)
console.log(`walk of /etc alone (before)         median ${etc.toFixed(2).padStart(7)} ms`)
console.log(`walk of every secret place shown    median ${all.toFixed(2).padStart(7)} ms  ratio ${(all / etc).toFixed(2)}x  (once per process)`)
console.log(`per sandbox: cached entries around  median ${around.toFixed(3).padStart(7)} ms`)
