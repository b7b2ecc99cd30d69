/**
 * Bash guard throughput: parse + judge on a realistic mix (the honest corpus plus the attacks, weighted 4:1).
 * Prints decisions per second and latency percentiles, then one summary line `guard: N decisions/s, p50 X µs, p99 Y µs`.
 * Run: npx tsx bench/guard.bench.ts
 *
 * The parser keeps the trees of its last 256 commands; the mix cycles through 830 distinct commands, so every
 * parse here is a real one (least-recently-used eviction never hits on a cycle longer than the cache).
 */
import { loadParser } from "../src/adapters/treesitter/TreeSitterBashParser.js"
import { Effect } from "effect"
import * as Judge from "../src/domain/bash/Judge.js"
import { load } from "../test/corpus/corpus.js"

const started = performance.now()
const parse = loadParser()
const loadMs = performance.now() - started
const ctx: Judge.GuardContext = {
  jail: { root: "/work/ws", home: "/home/dev", unrestricted: false },
  cwd: "/work/ws",
  allowlist: [{ tool: "bash", argv: ["npm", "test"] }],
  requireAllowlist: false,
  network: true
}
// the kernel's path: the judge's rounds, each missing text parsed (here synchronously, as the adapter does)
const judgeCommand = (command: string) => Effect.runSync(Judge.judgeWith(command, ctx, (source) => Effect.sync(() => parse(source))))

const honest = load("honest")
const attacks = load("attacks")
const mix = [...honest, ...honest, ...honest, ...honest, ...attacks]

// warm up
for (let i = 0; i < 2; i++) for (const c of mix) judgeCommand(c)

const rounds = 10
const samples: Array<number> = []
const t0 = performance.now()
for (let r = 0; r < rounds; r++) {
  for (const c of mix) {
    const s = performance.now()
    judgeCommand(c)
    samples.push(performance.now() - s)
  }
}
const total = performance.now() - t0
samples.sort((a, b) => a - b)
const pct = (p: number) => samples[Math.min(samples.length - 1, Math.floor(samples.length * p))] ?? 0

console.log(`tree-sitter load: ${loadMs.toFixed(1)} ms`)
console.log(`decisions: ${samples.length} in ${total.toFixed(0)} ms → ${Math.round(samples.length / (total / 1000))} decisions/s`)
console.log(`latency p50 ${(pct(0.5) * 1000).toFixed(0)} µs, p99 ${(pct(0.99) * 1000).toFixed(0)} µs, max ${(pct(1) * 1000).toFixed(0)} µs`)
console.log(
  `guard: ${Math.round(samples.length / (total / 1000))} decisions/s, p50 ${(pct(0.5) * 1000).toFixed(0)} µs, p99 ${(pct(0.99) * 1000).toFixed(0)} µs`
)
