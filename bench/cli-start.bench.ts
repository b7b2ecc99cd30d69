/**
 * The CLI's fixed cost (issue 45, item 5): what a one-shot call pays before and around its work, against its peers
 * in the same run, interleaved, medians of wall time (and user+system CPU):
 *
 * - `minicode --version` against `node -e 0` (goal ≤ 2×);
 * - `minicode tool grep` (one-shot, default sandbox) on a 1,000-file tree against `rg` with the same pattern
 *   (goal ≤ 5×);
 * - `minicode tool read_file` of one small file against `cat`.
 *
 * The first call of each kind (it writes the V8 code cache and the sandbox probe's record) runs before the samples.
 * Needs a build (`npm run build`).
 *
 *   npx tsx bench/cli-start.bench.ts [runs=9]        (BENCH_TREE_FILES=1000 by default)
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { cached, markers } from "./tree/generate.js"

const runs = Number(process.argv[2] ?? 9)
const files = Number(process.env["BENCH_TREE_FILES"] ?? 1000)
const repo = fileURLToPath(new URL("../", import.meta.url))
const bin = process.env["BENCH_BIN"] ?? path.join(repo, "dist/bin.js")
if (!fs.existsSync(bin)) {
  console.log(`skipped: needs ${bin} (npm run build)`)
  process.exit(0)
}
const rg = ["/usr/bin/rg", "/usr/local/bin/rg"].find((p) => fs.existsSync(p))
const ws = cached(files)
const one = "misc/crlf.ts"

const kinds: Record<string, ReadonlyArray<string>> = {
  "node -e 0": [process.execPath, "-e", "0"],
  "minicode --version": [bin, "--version"],
  ...(rg === undefined ? {} : { rg: [rg, "-n", "--hidden", markers.common, "."] }),
  "minicode grep": [bin, "tool", "grep", JSON.stringify({ pattern: markers.common, path: "." }), "--cwd", ws],
  cat: ["cat", one],
  "minicode read_file": [bin, "tool", "read_file", JSON.stringify({ path: one }), "--cwd", ws]
}

const childCpu = (): number => {
  // Children's CPU is not in process.resourceUsage(); /proc/self/stat's cutime + cstime (clock ticks) hold it.
  const fields = fs.readFileSync("/proc/self/stat", "utf8").split(") ")[1]?.split(" ") ?? []
  return (Number(fields[13]) + Number(fields[14])) * 10
}

const measure = (argv: ReadonlyArray<string>) => {
  const cpu0 = childCpu()
  const t0 = process.hrtime.bigint()
  const r = spawnSync(argv[0] ?? "", argv.slice(1), { cwd: ws, encoding: "utf8", maxBuffer: 64 << 20 })
  const wall = Number(process.hrtime.bigint() - t0) / 1e6
  if (r.status !== 0) throw new Error(`${argv.join(" ")} failed (${r.status}): ${r.stderr.slice(-500)}`)
  return { wall, cpu: childCpu() - cpu0 }
}
const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN

for (const argv of Object.values(kinds)) measure(argv)
const samples = Object.fromEntries(Object.keys(kinds).map((k) => [k, [] as Array<ReturnType<typeof measure>>]))
for (let i = 0; i < runs; i++) for (const [k, argv] of Object.entries(kinds)) samples[k]?.push(measure(argv))
const wall = (k: string) => median((samples[k] ?? []).map((s) => s.wall))
console.log(`CLI fixed cost on a ${files}-file tree (${runs} runs each, interleaved, medians; first call not included)`)
for (const [k, s] of Object.entries(samples)) {
  console.log(`${k.padEnd(20)} wall ${wall(k).toFixed(0).padStart(6)} ms  cpu ${median(s.map((x) => x.cpu)).toFixed(0).padStart(6)} ms`)
}
const ratio = (a: string, b: string, goal?: number) =>
  console.log(`${a} / ${b}: ${(wall(a) / wall(b)).toFixed(2)}×${goal === undefined ? "" : ` (goal ≤ ${goal}×)`}`)
ratio("minicode --version", "node -e 0", 2)
if (rg !== undefined) ratio("minicode grep", "rg", 5)
ratio("minicode read_file", "cat")
