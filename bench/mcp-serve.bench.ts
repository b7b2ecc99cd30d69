/**
 * The same workload through `minicode mcp serve` (the built dist/bin.js) and through
 * @modelcontextprotocol/server-filesystem, in one run, both driven by the SDK's Client over stdio:
 * start-up to the first `tools/list` answer, sequential and 32-way concurrent `read_file`, sequential
 * `write_file` (ours journaled), and resident memory. Prints the figures and ratios (ours / peer).
 * After a warm-up, the phases run in rounds with the servers taking turns; each throughput is the median over the
 * rounds, and each ratio the median of the rounds' ratios (ours and the peer's measured back to back), since this
 * 2-core VM's speed drifts by ±15 % within a minute. BENCH_ROUNDS, BENCH_READS, BENCH_WRITES,
 * BENCH_WARMUP_READS and BENCH_STARTUPS change the sizes. The reads cycle over BENCH_FILES files (50): a server
 * that keeps what it made for a file it read before (ours keeps 256 listings) meets them again; with 1000 it never does.
 * BENCH_TREE_FILES=25000 puts them at the top of a copy of bench/tree's 25,000-file tree (issue 45: per-call cost
 * must not grow with the tree).
 *
 *   npm run build && npx tsx bench/mcp-serve.bench.ts
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { cached } from "./tree/generate.js"

const repo = fileURLToPath(new URL("../", import.meta.url))
const ours = process.env["BENCH_BIN"] ?? path.join(repo, "dist/bin.js")
const peer = path.join(repo, "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js")

const startups = Number(process.env["BENCH_STARTUPS"] ?? 7)
const reads = Number(process.env["BENCH_READS"] ?? 1000)
const writes = Number(process.env["BENCH_WRITES"] ?? 500)
const rounds = Number(process.env["BENCH_ROUNDS"] ?? 7)
const warmReads = Number(process.env["BENCH_WARMUP_READS"] ?? 300)
const fileCount = Number(process.env["BENCH_FILES"] ?? 50)

interface Server {
  readonly name: string
  /** How a user's MCP client starts it: the package's bin (its shebang decides the node flags). */
  readonly command: string
  readonly args: (root: string) => ReadonlyArray<string>
  /** Tool names and argument shapes for this server. */
  readonly read: (file: string) => { name: string; arguments: Record<string, unknown> }
  readonly write: (file: string, content: string) => { name: string; arguments: Record<string, unknown> }
}

const servers: ReadonlyArray<Server> = [
  {
    name: "minicode",
    command: ours,
    args: (root) => ["mcp", "serve", "--cwd", root],
    read: (file) => ({ name: "read_file", arguments: { path: file } }),
    write: (file, content) => ({ name: "write_file", arguments: { path: file, content } })
  },
  {
    name: "server-filesystem",
    // Its bin's shebang is a plain `#!/usr/bin/env node`.
    command: process.execPath,
    args: (root) => [peer, root],
    // The peer wants absolute paths (or paths relative to its process cwd, which we set to the root).
    read: (file) => ({ name: "read_text_file", arguments: { path: file } }),
    write: (file, content) => ({ name: "write_file", arguments: { path: file, content } })
  }
]

/** BENCH_TREE_FILES=N: the workspace is a copy of bench/tree's N-file tree (a git repository; from 20,000 files with a vendored node_modules) with the bench's files at its top. */
const treeFiles = Number(process.env["BENCH_TREE_FILES"] ?? 0)

const workspace = () => {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "minicode-bench-")))
  if (treeFiles > 0) fs.cpSync(cached(treeFiles, treeFiles >= 20_000 ? path.join(repo, "node_modules") : undefined), root, { recursive: true, verbatimSymlinks: true })
  const line = "const value = computeSomething(input, options) // a typical line of source code\n"
  for (let i = 0; i < fileCount; i++) {
    // Every line of every file differs (as in a real tree), 200 lines of ~85 bytes.
    const text = Array.from({ length: 200 }, (_, j) => `${line.slice(0, -1)} ${i}:${j}\n`).join("")
    fs.writeFileSync(path.join(root, `file${i}.ts`), text)
  }
  fs.mkdirSync(path.join(root, "out"), { recursive: true })
  return root
}

const connect = async (server: Server, root: string) => {
  const transport = new StdioClientTransport({ command: server.command, args: [...server.args(root)], cwd: root, stderr: "ignore" })
  const client = new Client({ name: "bench", version: "1" })
  const t0 = performance.now()
  await client.connect(transport)
  await client.listTools()
  const startupMs = performance.now() - t0
  return { client, startupMs, pid: transport.pid ?? 0 }
}

const rssMb = (pid: number): number => {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8")
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? "0")
  return kb / 1024
}
const hwmMb = (pid: number): number => {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8")
  return Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? "0") / 1024
}

const median = (xs: ReadonlyArray<number>) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)] ?? 0
}

const ensureOk = (result: unknown, what: string) => {
  if (typeof result === "object" && result !== null && "isError" in result && result.isError === true) {
    throw new Error(`${what} failed: ${JSON.stringify(result).slice(0, 300)}`)
  }
}

type Phase = "seq" | "conc" | "write"
const phases: ReadonlyArray<Phase> = ["seq", "conc", "write"]

type Connected = Awaited<ReturnType<typeof connect>>

const files = Array.from({ length: fileCount }, (_, i) => `file${i}.ts`)
const content = "export const x = 1\n".repeat(100)

/** Warm-up, as a long-running server is: both JITs and our SQLite journal (opened by the first write) are ready. */
const warmUp = async (server: Server, { client }: Connected) => {
  for (let i = 0; i < warmReads; i++) ensureOk(await client.callTool(server.read(files[i % fileCount] ?? "")), "warm-up read")
  for (let i = 0; i < 20; i++) ensureOk(await client.callTool(server.write(`out/warm${i}.ts`, content)), "warm-up write")
}

/** The server process's user+system CPU so far (ms), from /proc: steadier than throughput on a loaded machine. */
const cpuMs = (pid: number): number => {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? []
  return (Number(fields[11]) + Number(fields[12])) * 10
}
/** Per server and phase: CPU ms per call, one figure per round. */
const cpuPerCall = new Map<string, Array<number>>()

/** One phase against one server: calls per second (and its CPU per call, in `cpuPerCall`). */
const run = async (server: Server, connected: Connected, phase: Phase, round: number): Promise<number> => {
  const cpu0 = cpuMs(connected.pid)
  const rate = await runPhase(server, connected, phase, round)
  const key = `${server.name}:${phase}`
  cpuPerCall.set(key, [...(cpuPerCall.get(key) ?? []), (cpuMs(connected.pid) - cpu0) / (phase === "write" ? writes : reads)])
  return rate
}

const runPhase = async (server: Server, { client }: Connected, phase: Phase, round: number): Promise<number> => {
  const t = performance.now()
  switch (phase) {
    case "seq":
      for (let i = 0; i < reads; i++) ensureOk(await client.callTool(server.read(files[i % fileCount] ?? "")), "read")
      return reads / ((performance.now() - t) / 1000)
    case "conc": {
      let next = 0
      await Promise.all(
        Array.from({ length: 32 }, async () => {
          while (next < reads) {
            const i = next++
            ensureOk(await client.callTool(server.read(files[i % fileCount] ?? "")), "concurrent read")
          }
        })
      )
      return reads / ((performance.now() - t) / 1000)
    }
    case "write":
      for (let i = 0; i < writes; i++) ensureOk(await client.callTool(server.write(`out/w${i % 100}.ts`, `${content}${round}:${i}`)), "write")
      return writes / ((performance.now() - t) / 1000)
  }
}

const main = async () => {
  if (!fs.existsSync(ours)) throw new Error("dist/bin.js is missing: run npm run build first")
  const root = workspace()
  const connected: Array<Connected> = []
  try {
    // Start-up, interleaved so both servers see the same machine load.
    const samples = new Map<string, Array<number>>(servers.map((s) => [s.name, []]))
    for (let i = 0; i < startups; i++) {
      for (const s of servers) {
        const { client, startupMs } = await connect(s, root)
        samples.get(s.name)?.push(startupMs)
        await client.close()
      }
    }
    for (const s of servers) connected.push(await connect(s, root))
    for (const [i, s] of servers.entries()) await warmUp(s, connected[i] as Connected)
    // Rounds of every phase, the two servers taking turns (first one, then the other), so a slow spell of this
    // machine falls on both: each figure is the median over the rounds.
    const figures = new Map<string, Array<number>>()
    for (let round = 0; round < rounds; round++) {
      for (const phase of phases) {
        const order = round % 2 === 0 ? [0, 1] : [1, 0]
        for (const i of order) {
          const s = servers[i] as Server
          const key = `${s.name}:${phase}`
          figures.set(key, [...(figures.get(key) ?? []), await run(s, connected[i] as Connected, phase, round)])
        }
      }
    }
    const [a, b] = servers.map((s, i) => {
      const pid = (connected[i] as Connected).pid
      return {
        startupMs: median(samples.get(s.name) ?? []),
        seq: median(figures.get(`${s.name}:seq`) ?? []),
        conc: median(figures.get(`${s.name}:conc`) ?? []),
        write: median(figures.get(`${s.name}:write`) ?? []),
        rssMb: rssMb(pid),
        peakRssMb: hwmMb(pid)
      }
    })
    if (a === undefined || b === undefined) throw new Error("missing results")
    const roundRatios = (phase: Phase) => {
      const x = figures.get(`minicode:${phase}`) ?? []
      const y = figures.get(`server-filesystem:${phase}`) ?? []
      return x.map((v, i) => v / (y[i] ?? 1))
    }
    const perRound = (phase: Phase) => roundRatios(phase).map((r) => r.toFixed(2)).join(" ")
    const paired = (phase: Phase) => median(roundRatios(phase))
    const row = (label: string, x: number, y: number, unit: string, ratio: number, goal: string) =>
      `${label.padEnd(28)} ${x.toFixed(1).padStart(9)} ${y.toFixed(1).padStart(9)} ${unit.padEnd(8)} ${ratio.toFixed(2).padStart(6)}  ${goal}`
    console.log(
      `${treeFiles > 0 ? `${treeFiles}-file tree + ` : ""}${fileCount} files; node ${process.version}, ${os.cpus().length} cpus, ${warmReads} warm-up reads, ${rounds} rounds of ${reads} reads (sequential, then 32-way) and ${writes} writes, ${startups} start-ups; medians`
    )
    console.log(`${"".padEnd(28)} ${"minicode".padStart(9)} ${"peer".padStart(9)} ${"".padEnd(8)} ${"ratio".padStart(6)}`)
    console.log(row("start-up to tools/list", a.startupMs, b.startupMs, "ms", a.startupMs / b.startupMs, "goal ≤ 1.00 (time)"))
    console.log(row("read_file sequential", a.seq, b.seq, "calls/s", paired("seq"), "goal ≥ 1.20"))
    console.log(row("read_file 32-way", a.conc, b.conc, "calls/s", paired("conc"), "goal ≥ 1.20"))
    console.log(row("write_file sequential", a.write, b.write, "calls/s", paired("write"), "goal ≥ 0.80 (ours journaled)"))
    console.log(row("resident memory (end)", a.rssMb, b.rssMb, "MB", a.rssMb / b.rssMb, "goal: ours < 120 MB"))
    console.log(row("resident memory (peak)", a.peakRssMb, b.peakRssMb, "MB", a.peakRssMb / b.peakRssMb, ""))
    const cpu = (name: string, phase: Phase) => median(cpuPerCall.get(`${name}:${phase}`) ?? [])
    for (const phase of phases) {
      const x = cpu("minicode", phase)
      const y = cpu("server-filesystem", phase)
      console.log(row(`server CPU per call, ${phase}`, x * 1000, y * 1000, "µs", y / x, "(peer / ours: ≥ 1 is cheaper)"))
    }
    console.log(`throughput: medians over the rounds; their ratio: the median of the rounds' ratios, which are`)
    console.log(`ratios per round: sequential ${perRound("seq")}; 32-way ${perRound("conc")}; writes ${perRound("write")}`)
    console.log(`start-up samples (ms): minicode ${samples.get("minicode")?.map((x) => x.toFixed(0)).join(" ")}; peer ${samples.get("server-filesystem")?.map((x) => x.toFixed(0)).join(" ")}`)
  } finally {
    for (const c of connected) await c.client.close()
    fs.rmSync(root, { recursive: true, force: true })
  }
}

await main()
