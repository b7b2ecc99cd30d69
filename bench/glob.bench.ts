/**
 * glob `**\/*.ts` on the big tree of issue 22 (bench/tree's cached 60,000-file tree), one-shot and through
 * `minicode mcp serve`, against `rg --files` and `fdfind` in the same run: each round runs every kind once, in an
 * order that alternates, under the machine's load; medians over the rounds, each ratio ours / peer. The one-shot
 * is `dist/bin.js tool glob …` (start-up, the call, exit), after a first call that wrote the code cache. With
 * BENCH_BASE=<another dist/bin.js>, that build takes its turns too (the one-shot and its own server), so a change is
 * measured against the build before it in the same rounds. Beside the wall time, each kind's CPU time (user + sys,
 * from /proc: a one-shot's or a peer's as its reaped child, a server's as its own), which the load of other work on
 * the machine stretches far less; ratios of both.
 *
 *   npm run build && npx tsx bench/glob.bench.ts [rounds=7]      (BENCH_TREE_FILES=6000 for a quick run)
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { bin, warmed, type Served } from "./support/Serve.js"
import { cached } from "./tree/generate.js"

const repo = fileURLToPath(new URL("../", import.meta.url))
const rounds = Number(process.argv[2] ?? 7)
const files = Number(process.env["BENCH_TREE_FILES"] ?? 60_000)
const root = cached(files, files >= 20_000 ? path.join(repo, "node_modules") : undefined)
const builds: Record<string, string> = { ours: bin(repo), ...(process.env["BENCH_BASE"] === undefined ? {} : { base: process.env["BENCH_BASE"] }) }
const args = { pattern: "**/*.ts" }

const have = (cmd: string) => spawnSync(cmd, ["--version"], { stdio: "ignore" }).status === 0
const peers: Record<string, ReadonlyArray<string>> = {
  "rg --files": ["rg", "--files", "--hidden", "-g", "!.git", "--no-config", "-g", "*.ts"],
  fdfind: ["fdfind", "--hidden", "--exclude", ".git", "-t", "f", "-e", "ts"]
}
for (const [k, argv] of Object.entries(peers)) if (!have(argv[0] ?? "")) delete peers[k]

/** CPU ms (user + sys) of a process from /proc (10 ms ticks): its own, or that of its reaped children. NaN without /proc. */
const cpuOf = (pid: number | "self", children: boolean) => {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? []
    const [u, s] = children ? [fields[13], fields[14]] : [fields[11], fields[12]]
    return (Number(u) + Number(s)) * 10
  } catch {
    return NaN
  }
}

const run = (argv: ReadonlyArray<string>) => {
  const c = cpuOf("self", true)
  const t = performance.now()
  const r = spawnSync(argv[0] ?? "", argv.slice(1), { cwd: root, stdio: ["ignore", "pipe", "pipe"], maxBuffer: 1 << 30 })
  const ms = performance.now() - t
  const cpu = cpuOf("self", true) - c
  if (r.status !== 0) throw new Error(`${argv.join(" ")}: ${r.stderr.toString().slice(-400)}`)
  return { ms, cpu, lines: r.stdout.toString().split("\n").filter((l) => l !== "").length }
}
const oneShot = (b: string) => [process.execPath, b, "tool", "glob", JSON.stringify(args), "--cwd", root]
const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN

const main = async () => {
  const servers: Record<string, Served> = {}
  for (const [k, b] of Object.entries(builds)) servers[k] = await warmed(b, root)
  const serveCall = async (k: string) => {
    const pid = servers[k]?.pid ?? 0
    const c = cpuOf(pid, false)
    const t = performance.now()
    const r = await servers[k]?.client.callTool({ name: "glob", arguments: args })
    const ms = performance.now() - t
    const cpu = cpuOf(pid, false) - c
    const content: unknown = Array.isArray(r?.content) ? r.content[0] : undefined
    const text = typeof content === "object" && content !== null && "text" in content ? String(content.text) : ""
    if (r?.isError === true) throw new Error(text.slice(0, 300))
    return { ms, cpu, lines: text.split("\n").length }
  }
  const kinds: Array<{ readonly name: string; readonly go: () => Promise<{ ms: number; cpu: number; lines: number }> }> = [
    ...Object.entries(builds).map(([k, b]) => ({ name: `${k} one-shot`, go: async () => run(oneShot(b)) })),
    ...Object.keys(builds).map((k) => ({ name: `${k} mcp serve`, go: () => serveCall(k) })),
    ...Object.entries(peers).map(([k, argv]) => ({ name: k, go: async () => run(argv) }))
  ]
  // Warm-up: the code caches, the JIT of the servers, the page cache for everyone.
  for (const k of kinds) await k.go()
  const samples = new Map<string, Array<number>>()
  const cpus = new Map<string, Array<number>>()
  const lines = new Map<string, number>()
  const load = () => fs.readFileSync("/proc/loadavg", "utf8").split(" ")[0] ?? "?"
  const loadBefore = load()
  for (let i = 0; i < rounds; i++) {
    const order = i % 2 === 0 ? kinds : [...kinds].reverse()
    for (const k of order) {
      const r = await k.go()
      samples.set(k.name, [...(samples.get(k.name) ?? []), r.ms])
      cpus.set(k.name, [...(cpus.get(k.name) ?? []), r.cpu])
      lines.set(k.name, r.lines)
    }
  }
  for (const s of Object.values(servers)) await s.client.close()
  const rg = median(samples.get("rg --files") ?? [])
  const fd = median(samples.get("fdfind") ?? [])
  const rgCpu = median(cpus.get("rg --files") ?? [])
  console.log(`glob ${args.pattern} on ${root}: ${rounds} interleaved rounds, medians (load average ${loadBefore} → ${load()})`)
  for (const k of kinds) {
    const m = median(samples.get(k.name) ?? [])
    const c = median(cpus.get(k.name) ?? [])
    const base = k.name.startsWith("ours ") ? k.name.replace("ours ", "base ") : undefined
    const vsBase =
      base !== undefined && samples.has(base)
        ? `  vs base: wall ${(m / median(samples.get(base) ?? [])).toFixed(2)}× cpu ${(c / median(cpus.get(base) ?? [])).toFixed(2)}×`
        : ""
    console.log(
      `${k.name.padEnd(16)} ${m.toFixed(0).padStart(6)} ms  cpu ${c.toFixed(0).padStart(5)} ms  (${lines.get(k.name)} lines)  ${(m / rg).toFixed(2)}× rg --files  ${(c / rgCpu).toFixed(2)}× its cpu  ${(m / fd).toFixed(2)}× fdfind${vsBase}`
    )
  }
}

await main()
