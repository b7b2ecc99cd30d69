/**
 * Sandboxed `bash true` through `minicode mcp serve` (the built dist/bin.js, the SDK client over stdio, the journal
 * written as in a real session) on the 60k bench tree, against raw bwrap in the same run: `bwrap --ro-bind / / true`,
 * and bwrap with the profile's own argv (the same mounts, the same `bash -c` with its limits, as a writable call on
 * the tree makes it: what bwrap itself costs for that mount set, ~60 ms more than the bare one here), so the figure
 * that is minicode's is the one over the latter. The per-call cost a user waits for (issues 19, 22). With
 * BENCH_BASE=another dist/bin.js (e.g. main's build) the two servers take turns, each in its own copy of the tree
 * (state files are per build), a round each.
 *
 * As root (RLIMIT_NPROC does not bind host uid 0) each call also runs in a fresh pids cgroup, entered by a `/bin/sh`
 * in front of bwrap (BwrapSandbox.pidsCgroup): where one can be made, a third peer runs the profile's argv that way
 * too, so the kernel's share of that protection (on the 2-core bench machine, ~10 ms for bwrap's start in a
 * non-root pids cgroup, fresh or reused) is told apart from minicode's own.
 *
 *   npm run build && npx tsx bench/serve-bash.bench.ts [calls=30] [rounds=3]
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { Effect } from "effect"
import * as BwrapSandbox from "../src/adapters/shell/BwrapSandbox.js"
import { defaultLimits } from "../src/domain/sandbox/SandboxProfile.js"
import { cached } from "./tree/generate.js"

const calls = Number(process.argv[2] ?? 30)
const rounds = Number(process.argv[3] ?? 3)
const repo = fileURLToPath(new URL("../", import.meta.url))
const source = cached(60_000, path.join(repo, "node_modules"))
const bins: Record<string, string> = { ours: path.join(repo, "dist/bin.js"), ...(process.env["BENCH_BASE"] ? { base: process.env["BENCH_BASE"] } : {}) }
const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN

const copies: Array<string> = []
process.once("exit", () => copies.forEach((c) => fs.rmSync(c, { recursive: true, force: true })))
interface Served {
  readonly client: Client
}
const serve = async (bin: string, ws: string): Promise<Served> => {
  const transport = new StdioClientTransport({ command: process.execPath, args: [bin, "mcp", "serve", "--cwd", ws, "--allow-all"], cwd: ws, stderr: "ignore" })
  const client = new Client({ name: "bench", version: "1" })
  await client.connect(transport)
  await client.listTools()
  return { client }
}
const servers: Record<string, Served> = {}
for (const [k, bin] of Object.entries(bins)) {
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), `minicode-serve-bash-${k}-`))
  copies.push(ws)
  // cp -a: fs.cpSync took minutes for the tree's 65,000 files.
  if (spawnSync("cp", ["-a", `${source}/.`, ws]).status !== 0) fs.cpSync(source, ws, { recursive: true, verbatimSymlinks: true })
  servers[k] = await serve(bin, ws)
}
// The argv a writable bash call on the (first) copy gets, made by this process's own sandbox (its private copies of
// the git control files live until it exits): bwrap's work for the same mount set, nothing of minicode's.
const profileArgv = await Effect.runPromise(
  Effect.scoped(
    Effect.gen(function* () {
      const ws = fs.realpathSync(copies[0] ?? "")
      const sandbox = yield* BwrapSandbox.make({ cgroups: false })
      return (yield* sandbox.wrap({ command: ["bash", "-c", "true"], workspace: ws, cwd: ws, writable: true, network: false, limits: defaultLimits, env: {} })).argv
    })
  )
)
// The cgroup peer: the same argv, entered into a fresh pids cgroup as the sandbox does for root (mkdir, pids.max, the
// shell in front, rmdir after), timed whole.
const cgroupBase = process.getuid?.() === 0 ? BwrapSandbox.pidsCgroupBase() : undefined
let cgroups = 0
const inCgroup = (argv: ReadonlyArray<string>) => () => {
  const t = performance.now()
  const dir = path.join(cgroupBase ?? "", `minicode-bench-${process.pid}-${++cgroups}`)
  fs.mkdirSync(dir)
  fs.writeFileSync(path.join(dir, "pids.max"), String(defaultLimits.processes ?? 512))
  const r = spawnSync("/bin/sh", ["-c", 'echo $$ > "$0" && exec "$@"', path.join(dir, "cgroup.procs"), ...argv])
  let removed = false
  try {
    fs.rmdirSync(dir)
    removed = true
  } catch {
    // Exiting tasks hold it a moment: removed below, off the clock (the sandbox does it in the background).
  }
  const took = performance.now() - t
  for (let i = 0; !removed && i < 200; i++) {
    try {
      fs.rmdirSync(dir)
      removed = true
    } catch {
      spawnSync("sleep", ["0.01"])
    }
  }
  if (r.status !== 0) throw new Error(`${argv[0]}: exit ${r.status}: ${String(r.stderr)}`)
  return Promise.resolve(took)
}
const call = async (s: Served) => {
  const t = performance.now()
  const r = await s.client.callTool({ name: "bash", arguments: { command: "true" } })
  if (r.isError === true) throw new Error(JSON.stringify(r.content))
  return performance.now() - t
}
// Warm-up: the first calls scan and read the store in full.
for (const s of Object.values(servers)) for (let i = 0; i < 5; i++) await call(s)
const bare = "raw bwrap"
const same = "raw bwrap, the profile's argv"
const sameCg = "  the same in a pids cgroup"
const spawned = (argv: ReadonlyArray<string>) => () => {
  const t = performance.now()
  const r = spawnSync(argv[0] ?? "bwrap", argv.slice(1))
  if (r.status !== 0) throw new Error(`${argv[0]}: exit ${r.status}: ${String(r.stderr)}`)
  return Promise.resolve(performance.now() - t)
}
const runs: Record<string, () => Promise<number>> = {
  ...Object.fromEntries(Object.entries(servers).map(([k, s]) => [k, () => call(s)])),
  [bare]: spawned(["bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "true"]),
  [same]: spawned(profileArgv),
  ...(cgroupBase === undefined ? {} : { [sameCg]: inCgroup(profileArgv) })
}
const samples: Record<string, Array<number>> = Object.fromEntries(Object.keys(runs).map((k) => [k, []]))
// Interleaved call by call, so the machine's load drifts alike for all.
for (let r = 0; r < rounds; r++) for (let i = 0; i < calls; i++) for (const [k, run] of Object.entries(runs)) samples[k]?.push(await run())
const raw = median(samples[bare] ?? [])
const profile = median(samples[same] ?? [])
const profileCg = samples[sameCg] === undefined ? undefined : median(samples[sameCg])
console.log(`mcp serve sandboxed bash true on the 60k tree: ${rounds} rounds of ${calls} calls, interleaved, medians`)
for (const [k, s] of Object.entries(samples)) {
  const m = median(s)
  const over = k === bare ? "" : `  over raw bwrap ${(m - raw).toFixed(1)} ms (${(m / raw).toFixed(2)}x)`
  const cg = profileCg === undefined ? "" : `, over it in a pids cgroup ${(m - profileCg).toFixed(1)} ms`
  console.log(`  ${k.padEnd(30)} ${m.toFixed(1).padStart(7)} ms${over}${k in servers ? `, over the same argv ${(m - profile).toFixed(1)} ms${cg}` : ""}`)
}
for (const s of Object.values(servers)) await s.client.close()
