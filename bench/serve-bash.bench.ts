/**
 * Sandboxed `bash true` through `minicode mcp serve` (the built dist/bin.js, the SDK client over stdio, the journal
 * written as in a real session) on the 60k bench tree, against raw `bwrap --ro-bind / / true` in the same run: the
 * per-call cost a user waits for (issues 19, 22). With BENCH_BASE=another dist/bin.js (e.g. main's build) the two
 * servers take turns, each in its own copy of the tree (state files are per build), a round each.
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
  fs.cpSync(source, ws, { recursive: true, verbatimSymlinks: true })
  servers[k] = await serve(bin, ws)
}
const call = async (s: Served) => {
  const t = performance.now()
  const r = await s.client.callTool({ name: "bash", arguments: { command: "true" } })
  if (r.isError === true) throw new Error(JSON.stringify(r.content))
  return performance.now() - t
}
// Warm-up: the first calls scan and read the store in full.
for (const s of Object.values(servers)) for (let i = 0; i < 5; i++) await call(s)
const samples: Record<string, Array<number>> = Object.fromEntries([...Object.keys(servers), "raw bwrap"].map((k) => [k, []]))
for (let r = 0; r < rounds; r++) {
  for (const [k, s] of Object.entries(servers)) for (let i = 0; i < calls; i++) samples[k]?.push(await call(s))
  for (let i = 0; i < calls; i++) {
    const t = performance.now()
    spawnSync("bwrap", ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "true"])
    samples["raw bwrap"]?.push(performance.now() - t)
  }
}
const raw = median(samples["raw bwrap"] ?? [])
console.log(`mcp serve sandboxed bash true on the 60k tree: ${rounds} rounds of ${calls} calls, medians`)
for (const [k, s] of Object.entries(samples)) console.log(`  ${k.padEnd(10)} ${median(s).toFixed(1).padStart(7)} ms${k === "raw bwrap" ? "" : `  over raw bwrap ${(median(s) - raw).toFixed(1)} ms (${(median(s) / raw).toFixed(2)}x)`}`)
for (const s of Object.values(servers)) await s.client.close()
