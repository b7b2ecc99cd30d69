/**
 * A one-shot CLI call of sandboxed bash on the big tree of issue 22 (a copy of bench/tree's cached tree, a git
 * repository of ~25,000 folders): `dist/bin.js tool bash '{"command":"true"}'` sandboxed (the scan from the cache
 * kept in `.minicode/`, validated per folder; the history check from its store; no watchers) against the same call
 * with `--sandbox none` and against raw `bwrap --ro-bind / / true`, interleaved, under the machine's load. Wall time
 * and user+system CPU (median) and peak RSS (max) per kind, from GNU time. Needs a build (`npm run build`).
 *
 *   npx tsx bench/oneshot.bench.ts [runs=5]        (BENCH_TREE_FILES=60000 by default)
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { cached } from "./tree/generate.js"

const runs = Number(process.argv[2] ?? 5)
const files = Number(process.env["BENCH_TREE_FILES"] ?? 60_000)
const repo = fileURLToPath(new URL("../", import.meta.url))
const bin = path.join(repo, "dist/bin.js")
const timeBin = "/usr/bin/time"
if (!fs.existsSync(bin) || !fs.existsSync(timeBin)) {
  console.log(`skipped: needs ${bin} (npm run build) and GNU time at ${timeBin}`)
  process.exit(0)
}
const source = cached(files, files >= 20_000 ? path.join(repo, "node_modules") : undefined)
const ws = fs.mkdtempSync(path.join(os.tmpdir(), "minicode-oneshot-bench-"))
fs.cpSync(source, ws, { recursive: true, verbatimSymlinks: true })
process.once("exit", () => fs.rmSync(ws, { recursive: true, force: true }))

const cli = (extra: ReadonlyArray<string>) => [process.execPath, bin, "tool", "bash", '{"command":"true"}', "--work-mode", "BUILD", "--policy", "allow-all", "--cwd", ws, ...extra]
const kinds: Record<string, ReadonlyArray<string>> = {
  sandboxed: cli([]),
  "sandbox none": cli(["--sandbox", "none"]),
  "raw bwrap": ["bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "true"]
}
const measure = (argv: ReadonlyArray<string>) => {
  const r = spawnSync(timeBin, ["-f", "@@ %e %U %S %M", ...argv], { encoding: "utf8", cwd: ws })
  const m = /@@ ([\d.]+) ([\d.]+) ([\d.]+) (\d+)/.exec(r.stderr)
  if (r.status !== 0 || m === null) throw new Error(`${argv.join(" ")} failed: ${r.stderr.slice(-500)}`)
  return { wall: Number(m[1]) * 1000, cpu: (Number(m[2]) + Number(m[3])) * 1000, rssKB: Number(m[4]) }
}
const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN

// The first sandboxed call scans in full and walks the history, filling the stores; it is reported on its own.
const first = measure(kinds["sandboxed"] ?? [])
const samples = Object.fromEntries(Object.keys(kinds).map((k) => [k, [] as Array<ReturnType<typeof measure>>]))
for (let i = 0; i < runs; i++) for (const [k, argv] of Object.entries(kinds)) samples[k]?.push(measure(argv))
const row = (k: string, s: ReadonlyArray<ReturnType<typeof measure>>) =>
  `${k.padEnd(14)} wall ${median(s.map((x) => x.wall)).toFixed(0).padStart(6)} ms  cpu ${median(s.map((x) => x.cpu)).toFixed(0).padStart(6)} ms  rss ${(Math.max(...s.map((x) => x.rssKB)) / 1024).toFixed(0).padStart(4)} MB`
console.log(`one-shot CLI bash on ${files} files (${runs} runs each, medians; first call not included)`)
console.log(row("first call", [first]))
for (const [k, s] of Object.entries(samples)) console.log(row(k, s ?? []))
const sb = median((samples["sandboxed"] ?? []).map((x) => x.wall))
const none = median((samples["sandbox none"] ?? []).map((x) => x.wall))
const raw = median((samples["raw bwrap"] ?? []).map((x) => x.wall))
console.log(`sandbox cost over --sandbox none: ${(sb - none).toFixed(0)} ms; over none + raw bwrap: ${(sb - none - raw).toFixed(0)} ms (goal: 30)`)
