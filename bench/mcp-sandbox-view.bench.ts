/**
 * What the stale-view check costs a sandboxed MCP stdio server's call (issue 19: a server started again when what
 * its sandbox hides changed): the same `--sandbox` server on the 60,000-file bench tree, called through the SDK
 * transport with the check (`sandboxView`, as sessions run it) and without, as a ratio of medians.
 * Run: npx tsx bench/mcp-sandbox-view.bench.ts [iterations]
 */
import * as path from "node:path"
import { Effect } from "effect"
import * as SdkMcpTransport from "../src/adapters/mcp/SdkMcpTransport.js"
import { viewOf } from "../src/app/LspRenewal.js"
import { serverLauncher } from "../src/app/NodeLayers.js"
import { cached } from "./tree/generate.js"

const iterations = Number(process.argv[2] ?? "200")
// The same tree (and the same cache folder) as the other benches: with the vendored copy of node_modules.
const root = cached(60_000, path.resolve(import.meta.dirname, "../node_modules"))
const server = path.resolve(import.meta.dirname, "../test/redteam/support/mcp-file-reader.mjs")
const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN

const run = (withView: boolean) =>
  Effect.gen(function* () {
    const launch = yield* serverLauncher(root)
    const transport = yield* SdkMcpTransport.make({
      servers: { r: { command: process.execPath, args: [server], sandbox: true } },
      cwd: root,
      env: process.env,
      launch,
      ...(withView ? { sandboxView: viewOf(root, Effect.succeed(undefined)) } : {})
    })
    const times: Array<number> = []
    let restarts = new Set<string>()
    for (let i = 0; i < iterations + 20; i++) {
      const t = performance.now()
      const got = yield* transport.call("r", "ping", {})
      if (i >= 20) times.push(performance.now() - t)
      restarts = restarts.add(JSON.stringify(got.blocks))
    }
    return { median: median(times), servers: restarts.size }
  }).pipe(Effect.scoped)

const without = await Effect.runPromise(run(false))
const withCheck = await Effect.runPromise(run(true))
const without2 = await Effect.runPromise(run(false))
const base = Math.min(without.median, without2.median)
console.log(`sandboxed MCP call (ping) on ${root}, ${iterations} calls each (after 20 warm-up)`)
console.log(`  without the view check : median ${base.toFixed(3)} ms`)
console.log(`  with the view check    : median ${withCheck.median.toFixed(3)} ms (${withCheck.servers} server(s) answered: 1 = no restart)`)
console.log(`  ratio (median)         : ${(withCheck.median / base).toFixed(3)}×`)
