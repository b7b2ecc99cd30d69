/**
 * Latency of one tool call through minicode's `mcp_call` (whole chain: gates, approval, journal, executor,
 * SDK transport) against the same call made directly with the SDK client, both on the same stdio server.
 * Run: npx tsx bench/mcp-client.bench.ts [iterations]
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { Effect } from "effect"
import * as Approvers from "../src/adapters/approval/Approvers.js"
import * as MemoryAllowlist from "../src/adapters/approval/MemoryAllowlist.js"
import * as MemoryJournal from "../src/adapters/journal/MemoryJournal.js"
import * as NodeFileSystem from "../src/adapters/fs/NodeFileSystem.js"
import * as Unavailable from "../src/adapters/Unavailable.js"
import * as Kernel from "../src/kernel/Kernel.js"
import * as McpLive from "../src/app/McpLive.js"
import * as Runner from "../src/kernel/Runner.js"
import { ToolExecutor } from "../src/ports/ToolExecutor.js"
import * as NodeNetGuard from "../src/adapters/net/NetGuard.js"

const iterations = Number(process.argv[2] ?? "300")
const server = path.resolve(import.meta.dirname, "../test/support/stdio-server.mjs")
const workspace = fs.mkdtempSync(path.join(os.tmpdir(), "mcp-bench-"))

const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN
const p95 = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.95)] ?? NaN

const direct = async () => {
  const client = new Client({ name: "bench", version: "1" }, { capabilities: {} })
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [server], stderr: "pipe" }))
  const times: Array<number> = []
  for (let i = 0; i < iterations + 20; i++) {
    const t = performance.now()
    await client.callTool({ name: "echo", arguments: { text: `hello ${i}` } })
    if (i >= 20) times.push(performance.now() - t)
  }
  await client.close()
  return times
}

const viaMinicode = Effect.gen(function* () {
  const extension = yield* McpLive.live({ servers: { tiny: { command: process.execPath, args: [server] } }, env: process.env })
  const layer = Kernel.layer(
    { workspace, workMode: "BUILD", policy: "allow-all" },
    { fileSystem: NodeFileSystem.layer, allowlist: MemoryAllowlist.layer(), approver: Approvers.constant("no"), bashParser: Unavailable.bashParser, sql: Unavailable.sql, sandboxState: Unavailable.sandboxState, textSearch: Unavailable.textSearch, searchWorkers: Unavailable.searchWorkers, aliases: Unavailable.aliases, netGuard: NodeNetGuard.layer, journal: MemoryJournal.layer(), extensions: Kernel.extensionsOf([extension]) }
  )
  return yield* Effect.gen(function* () {
    const chain = yield* ToolExecutor
    const times: Array<number> = []
    for (let i = 0; i < iterations + 20; i++) {
      const t = performance.now()
      const prepared = Runner.prepare({ tool: "mcp_call", args: { server: "tiny", tool: "echo", arguments: { text: `hello ${i}` } } })
      if (prepared._tag === "Left") throw new Error("bad call")
      yield* chain.run(prepared.right)
      if (i >= 20) times.push(performance.now() - t)
    }
    return times
  }).pipe(Effect.provide(layer))
}).pipe(Effect.scoped)

const sdk = await direct()
const ours = await Effect.runPromise(viaMinicode)
const sdk2 = await direct()
const base = median([...sdk, ...sdk2])
const mine = median(ours)
console.log(`mcp_call echo over stdio, ${iterations} calls each (after 20 warm-up)`)
console.log(`  SDK client direct : median ${base.toFixed(3)} ms, p95 ${p95([...sdk, ...sdk2]).toFixed(3)} ms`)
console.log(`  minicode mcp_call : median ${mine.toFixed(3)} ms, p95 ${p95(ours).toFixed(3)} ms`)
console.log(`  ratio (median)    : ${(mine / base).toFixed(3)}× (goal ≤ 1.15×)`)
fs.rmSync(workspace, { recursive: true, force: true })
