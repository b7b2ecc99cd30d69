/**
 * grep, glob and list_dir on the big tree of issue 22 (bench/tree/generate.ts: ~60,000 files, ~400 MB, a vendored
 * node_modules, big files, .gitignore rules at several depths, secrets, symlinks out), through `minicode mcp serve`
 * (the built dist/bin.js, driven by the SDK client over stdio as an assistant drives it), against `rg`, `rg -j1`,
 * `git grep`, `rg --files` and `fdfind` in the same run. Each figure is the median over BENCH_ROUNDS interleaved
 * rounds (the peers and ours take turns), each ratio ours / peer. Also: the server's peak RSS during the greps
 * (VmHWM, reset before each call) against rg's, and its RSS at rest before and after (issue 22: within 50 MB). The
 * server measured is a second start, which found the code cache the first wrote (bench/support/Serve.ts).
 *
 *   npm run build && npx tsx bench/grep.bench.ts          (BENCH_TREE_FILES=6000 for a quick run; BENCH_BIN=another dist/bin.js)
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { bin, warmed } from "./support/Serve.js"
import { cached, markers } from "./tree/generate.js"

const repo = fileURLToPath(new URL("../", import.meta.url))
const files = Number(process.env["BENCH_TREE_FILES"] ?? 60_000)
const rounds = Number(process.env["BENCH_ROUNDS"] ?? 5)
const root = cached(files, files >= 20_000 ? path.join(repo, "node_modules") : undefined)

const have = (cmd: string) => spawnSync(cmd, ["--version"], { stdio: "ignore" }).status === 0

interface Case {
  readonly name: string
  readonly ours: { readonly tool: string; readonly args: Record<string, unknown> }
  readonly peers: ReadonlyArray<{ readonly name: string; readonly cmd: string; readonly args: ReadonlyArray<string> }>
}

// The peers asked for what ours does: hidden files searched, .git left out, .gitignore honoured.
const rgBase = ["--hidden", "-g", "!.git", "--no-config", "-n", "--no-heading", "--color", "never"]
const cases: ReadonlyArray<Case> = [
  {
    name: `grep literal, whole tree (${markers.bigC})`,
    ours: { tool: "grep", args: { pattern: markers.bigC } },
    peers: [
      { name: "rg", cmd: "rg", args: [...rgBase, "-F", markers.bigC] },
      { name: "rg -j1", cmd: "rg", args: [...rgBase, "-j1", "-F", markers.bigC] },
      { name: "git grep", cmd: "git", args: ["grep", "-n", "-F", markers.bigC] }
    ]
  },
  {
    name: "grep regex, glob *.ts",
    ours: { tool: "grep", args: { pattern: "function createHandler\\d+_1\\d\\(", glob: "*.ts" } },
    peers: [
      { name: "rg", cmd: "rg", args: [...rgBase, "-g", "*.ts", "function createHandler\\d+_1\\d\\("] },
      { name: "rg -j1", cmd: "rg", args: [...rgBase, "-j1", "-g", "*.ts", "function createHandler\\d+_1\\d\\("] },
      { name: "git grep", cmd: "git", args: ["grep", "-n", "-P", "function createHandler\\d+_1\\d\\(", "--", "*.ts"] }
    ]
  },
  {
    name: "glob **/*.ts",
    ours: { tool: "glob", args: { pattern: "**/*.ts" } },
    peers: [
      { name: "rg --files", cmd: "rg", args: ["--files", "--hidden", "-g", "!.git", "--no-config", "-g", "*.ts"] },
      { name: "fdfind", cmd: "fdfind", args: ["--hidden", "--exclude", ".git", "-t", "f", "-e", "ts"] }
    ]
  },
  {
    name: "list_dir node_modules",
    ours: { tool: "list_dir", args: { path: "node_modules" } },
    peers: [{ name: "ls -A", cmd: "ls", args: ["-A", "node_modules"] }]
  }
]

/** BENCH_ONLY=grep (a prefix of the case names) runs only those cases. */
const only = process.env["BENCH_ONLY"]
const chosen = only === undefined ? cases : cases.filter((c) => c.name.startsWith(only))

const median = (xs: ReadonlyArray<number>) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)] ?? NaN
}
const status = (pid: number, field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? "0") / 1024
const resetPeak = (pid: number) => {
  try {
    fs.writeFileSync(`/proc/${pid}/clear_refs`, "5")
  } catch {
    // Not permitted here: the peak is then the peak since start.
  }
}

const timePeer = (cmd: string, args: ReadonlyArray<string>) => {
  const t = performance.now()
  const r = spawnSync(cmd, [...args], { cwd: root, stdio: ["ignore", "pipe", "ignore"], maxBuffer: 1 << 30 })
  const ms = performance.now() - t
  return { ms, lines: r.stdout.toString().split("\n").filter((l) => l !== "").length }
}

const peerPeakMb = (cmd: string, args: ReadonlyArray<string>) => {
  if (!fs.existsSync("/usr/bin/time")) return NaN
  const r = spawnSync("/usr/bin/time", ["-f", "%M", cmd, ...args], { cwd: root, stdio: ["ignore", "ignore", "pipe"] })
  return Number(r.stderr.toString().trim().split("\n").pop() ?? "NaN") / 1024
}

const main = async () => {
  // The bench's environment, MINICODE_GREP among it: without one, the SDK's stdio client starts the server with a
  // default few variables only, and `MINICODE_GREP=node` measured rg's path for the server (the one-shot CLI, started
  // with the whole environment, took the own walk).
  const { client, pid } = await warmed(bin(repo), root, { ...(process.env as Record<string, string>) })
  await new Promise((r) => setTimeout(r, 500))
  const idleRss = status(pid, "VmRSS")
  const call = async (c: Case) => {
    const t = performance.now()
    const result = await client.callTool({ name: c.ours.tool, arguments: c.ours.args })
    const ms = performance.now() - t
    const content = Array.isArray(result.content) ? result.content : []
    const first: unknown = content[0]
    const text = typeof first === "object" && first !== null && "text" in first && typeof first.text === "string" ? first.text : ""
    if (result.isError === true) throw new Error(`${c.name}: ${text.slice(0, 300)}`)
    return { ms, lines: text.split("\n").length }
  }
  // Warm-up: the JIT, and the page cache for everyone.
  for (const c of chosen) {
    await call(c)
    for (const p of c.peers) if (have(p.cmd)) timePeer(p.cmd, p.args)
  }
  const samples = new Map<string, Array<number>>()
  const add = (key: string, ms: number) => samples.set(key, [...(samples.get(key) ?? []), ms])
  const peaks: Array<number> = []
  const counts = new Map<string, number>()
  for (let round = 0; round < rounds; round++) {
    for (const c of chosen) {
      // The one-shot CLI too (`minicode tool grep …`: start-up, the call, exit), for the grep cases.
      const cli = c.ours.tool === "grep" ? ["cli"] : []
      const order = round % 2 === 0 ? ["ours", ...cli, ...c.peers.map((p) => p.name)] : [...c.peers.map((p) => p.name), ...cli, "ours"]
      for (const who of order) {
        if (who === "cli") {
          const r = timePeer(bin(repo), ["tool", c.ours.tool, JSON.stringify(c.ours.args), "--cwd", root])
          add(`${c.name}|cli`, r.ms)
        } else if (who === "ours") {
          resetPeak(pid)
          const r = await call(c)
          if (c.ours.tool === "grep") peaks.push(status(pid, "VmHWM"))
          add(`${c.name}|ours`, r.ms)
          counts.set(`${c.name}|ours`, r.lines)
        } else {
          const p = c.peers.find((x) => x.name === who)
          if (p === undefined || !have(p.cmd)) continue
          const r = timePeer(p.cmd, p.args)
          add(`${c.name}|${who}`, r.ms)
          counts.set(`${c.name}|${who}`, r.lines)
        }
      }
    }
  }
  await new Promise((r) => setTimeout(r, 2000))
  const afterRss = status(pid, "VmRSS")
  console.log(`tree: ${root} (${files} files requested), ${rounds} rounds, medians in ms`)
  for (const c of chosen) {
    const ours = median(samples.get(`${c.name}|ours`) ?? [])
    const parts = c.peers
      .filter((p) => samples.has(`${c.name}|${p.name}`))
      .map((p) => {
        const peer = median(samples.get(`${c.name}|${p.name}`) ?? [])
        return `${p.name} ${peer.toFixed(0)} ms (${counts.get(`${c.name}|${p.name}`)} lines) → ${(ours / peer).toFixed(2)}×`
      })
    console.log(`${c.name}: minicode ${ours.toFixed(0)} ms (${counts.get(`${c.name}|ours`)} lines) | ${parts.join(" | ")}`)
    const cli = samples.get(`${c.name}|cli`)
    const rg = samples.get(`${c.name}|rg`)
    if (cli !== undefined && rg !== undefined) console.log(`  one-shot CLI (minicode tool ${c.ours.tool}): ${median(cli).toFixed(0)} ms → ${(median(cli) / median(rg)).toFixed(2)}× rg`)
  }
  const rgPeak = peerPeakMb("rg", [...rgBase, "-F", markers.bigC])
  console.log(`grep peak RSS: minicode ${median(peaks).toFixed(0)} MB (max ${Math.max(...peaks).toFixed(0)}) | rg ${rgPeak.toFixed(0)} MB`)
  // The one-shot CLI's peak (its whole process: start-up, the scan, the search, exit), per grep case.
  for (const c of chosen.filter((x) => x.ours.tool === "grep")) {
    const cliPeaks = Array.from({ length: rounds }, () => peerPeakMb(bin(repo), ["tool", c.ours.tool, JSON.stringify(c.ours.args), "--cwd", root]))
    console.log(`  one-shot CLI peak RSS (${c.name}): ${median(cliPeaks).toFixed(0)} MB (max ${Math.max(...cliPeaks).toFixed(0)}) → ${(median(cliPeaks) / rgPeak).toFixed(2)}× rg`)
  }
  console.log(`mcp serve RSS at rest: idle ${idleRss.toFixed(0)} MB, after the greps ${afterRss.toFixed(0)} MB (+${(afterRss - idleRss).toFixed(0)} MB; goal ≤ +50)`)
  await client.close()
}

await main()
