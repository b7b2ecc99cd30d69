/**
 * The kernel's own costs (issue 2): a warm chain's read_file against a plain read of the same file in the same
 * process, and the CLI's start-up (wall time, peak memory) against `node -e 0`.
 * Run: npm run build && npx tsx bench/kernel.bench.ts
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { createKernel } from "../src/index.js"

const root = path.resolve(".")
const file = "src/domain/jail/Jail.ts"
const rounds = Number(process.env["BENCH_ROUNDS"] ?? 8)
const perRound = Number(process.env["BENCH_CALLS"] ?? 400)

const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0

const time = async (n: number, f: () => Promise<unknown> | unknown) => {
  const t = performance.now()
  for (let i = 0; i < n; i++) await f()
  return ((performance.now() - t) / n) * 1000
}

const kernel = createKernel({ workspace: root, sandbox: "none" })
await time(300, () => kernel.run("read_file", { path: file }))
const ours: Array<number> = []
const promises: Array<number> = []
const sync: Array<number> = []
for (let r = 0; r < rounds; r++) {
  ours.push(await time(perRound, () => kernel.run("read_file", { path: file })))
  promises.push(await time(perRound, () => fs.promises.readFile(path.join(root, file), "utf8")))
  sync.push(await time(perRound, () => fs.readFileSync(path.join(root, file), "utf8")))
}
await kernel.close()
const [o, p, s] = [median(ours), median(promises), median(sync)]
console.log(`read_file through the chain: ${o.toFixed(1)} µs/call; fs.promises.readFile ${p.toFixed(1)} µs (ratio ${(o / p).toFixed(2)}×); fs.readFileSync ${s.toFixed(1)} µs (chain overhead over it ${(o - s).toFixed(1)} µs)`)

/** Wall time and peak RSS of a command, median of runs (GNU time when present, else wall time only). */
const measure = (argv: ReadonlyArray<string>, runs = 7) => {
  const gnuTime = fs.existsSync("/usr/bin/time")
  const walls: Array<number> = []
  const rss: Array<number> = []
  for (let i = 0; i < runs; i++) {
    const t = performance.now()
    const r = gnuTime
      ? spawnSync("/usr/bin/time", ["-f", "%M", ...argv], { encoding: "utf8" })
      : spawnSync(argv[0] ?? "", argv.slice(1), { encoding: "utf8" })
    walls.push(performance.now() - t)
    if (gnuTime) rss.push(Number(r.stderr.trim().split("\n").pop()) / 1024)
  }
  return { wallMs: median(walls), rssMb: rss.length > 0 ? median(rss) : NaN }
}

const node = process.execPath
const baseline = measure([node, "-e", "0"])
const version = measure([node, "dist/bin.js", "--version"])
const explain = measure([node, "dist/bin.js", "policy", "explain", "read_file", '{"path":"README.md"}', "--json"])
const line = (label: string, m: { wallMs: number; rssMb: number }) =>
  `${label}: ${(m.wallMs / 1000).toFixed(3)} s, ${m.rssMb.toFixed(0)} MB (over node -e 0: +${((m.wallMs - baseline.wallMs) / 1000).toFixed(3)} s, +${(m.rssMb - baseline.rssMb).toFixed(0)} MB)`
console.log(line("node -e 0", baseline))
console.log(line("minicode --version", version))
console.log(line("minicode policy explain", explain))

// The journal's cost (issue 4): write_file through the whole chain, journaled in SQLite, against the same chain
// without its journal stage, same process, same files.
{
  const { ManagedRuntime } = await import("effect")
  const Kernel = await import("../src/kernel/Kernel.js")
  const NodeAdapters = await import("../src/app/NodeLayers.js")
  const Runner = await import("../src/kernel/Runner.js")
  const os = await import("node:os")
  const ws = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "minicode-journal-bench-")))
  const options = { workspace: ws, workMode: "BUILD" as const }
  const adapters = NodeAdapters.adapters({ unrestricted: false, sandbox: { mode: "none" } })
  const Chain = await import("../src/kernel/Chain.js")
  const { Layer } = await import("effect")
  const journaled = ManagedRuntime.make(Kernel.layer(options, adapters))
  // The variant is built from the shipped list, minus its journal stage.
  const unjournaled = Chain.compose(Chain.stages.filter((s) => s.name !== "journal"), Kernel.executorOf(adapters))
  const bare = ManagedRuntime.make(unjournaled.pipe(Layer.provide(Kernel.services(options, adapters))))
  const content = "x".repeat(1024)
  let n = 0
  const write = (rt: typeof journaled) => () => rt.runPromise(Runner.invoke({ tool: "write_file", args: { path: `f${n++ % 20}.txt`, content: content + n } }))
  await time(100, write(journaled))
  await time(100, write(bare))
  const withJournal: Array<number> = []
  const without: Array<number> = []
  for (let r = 0; r < rounds; r++) {
    withJournal.push(await time(150, write(journaled)))
    without.push(await time(150, write(bare)))
  }
  await journaled.dispose()
  await bare.dispose()
  const [j, b] = [median(withJournal), median(without)]
  console.log(`write_file 1 KiB through the chain: journaled ${j.toFixed(0)} µs, unjournaled ${b.toFixed(0)} µs (ratio ${(j / b).toFixed(2)}×)`)
  fs.rmSync(ws, { recursive: true, force: true })
}
