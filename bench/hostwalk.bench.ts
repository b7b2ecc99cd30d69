/**
 * The walk for host files private to their owner (adapters/shell/HostWalk.ts), once per process: the secret
 * places the sandbox shows on this host against `/etc` alone (what was walked before), in the same run; and how
 * much of it a front end's start-up hides (`BwrapSandbox.prewarm`): the first sandbox's wait for a walk started
 * `lead` ms earlier, against its wait with no head start.
 *
 *   npx tsx bench/hostwalk.bench.ts [runs=20]
 */
import * as NodeOs from "node:os"
import * as HostWalk from "../src/adapters/shell/HostWalk.js"
import * as HostSecrets from "../src/domain/sandbox/HostSecrets.js"
import { systemCandidates } from "../src/domain/sandbox/SandboxProfile.js"
import * as fs from "node:fs"

const runs = Number(process.argv[2] ?? 20)
const shown = systemCandidates.filter((p) => fs.lstatSync(p, { throwIfNoEntry: false })?.isDirectory() === true)
const roots = HostSecrets.walkRoots(shown)

const median = (xs: Array<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN
const time = async (f: () => Promise<unknown>) => {
  await f()
  const samples: Array<number> = []
  for (let i = 0; i < runs; i++) {
    const start = performance.now()
    await f()
    samples.push(performance.now() - start)
  }
  return median(samples)
}
const all = () => Promise.all(roots.map((r) => HostWalk.walk(r)))
/** Busy start-up work for `ms` (module loading, parsing: the event loop is not free), then the wait for the walk. */
const waitAfter = (lead: number) => async () => {
  const walking = all()
  const until = performance.now() + lead
  while (performance.now() < until) {
    await new Promise((r) => setImmediate(r))
  }
  const start = performance.now()
  await walking
  return performance.now() - start
}
const waited = async (lead: number) => {
  const samples: Array<number> = []
  for (let i = 0; i < runs; i++) samples.push(await waitAfter(lead)())
  return median(samples)
}

const found = await all()
const entries = HostSecrets.merge(found)
const etc = await time(() => HostWalk.walk("/etc"))
const walked = await time(all)
console.log(`host walk bench: ${runs} runs, ${NodeOs.cpus().length} cores, roots ${roots.join(" ")}: ${entries.files.length} files, ${entries.dirs.length} folders masked${entries.truncated ? " (truncated)" : ""}`)
console.log(`/etc alone                          median ${etc.toFixed(1).padStart(6)} ms`)
console.log(`every secret place shown            median ${walked.toFixed(1).padStart(6)} ms  ratio ${(walked / etc).toFixed(2)}x`)
for (const lead of [0, 25, 50, 100]) console.log(`first sandbox's wait, walk started ${String(lead).padStart(3)} ms before  median ${(await waited(lead)).toFixed(1).padStart(6)} ms`)
