/**
 * Staged bash's costs (issue 41): `true` on the big tree of issue 22 (~65,000 files) through the staged shell (the
 * sandbox's wrap, the mask layer, the overlay mounted in a user namespace, the listing after the command, an empty
 * merge) against today's sandboxed shell and raw bwrap running `bash -c true`, interleaved a run of each per round;
 * then the merge of 10,000 new files (upper layer made by hand) into a fresh workspace through the FileSystem port
 * and the SQLite journal, against writing the same files with writeFileSync.
 *
 *   npx tsx bench/staged.bench.ts [runs=30]        (BENCH_TREE_FILES=65000 by default)
 */
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { fileURLToPath } from "node:url"
import { Context, Effect, Layer } from "effect"
import * as NodeFileSystem from "../src/adapters/fs/NodeFileSystem.js"
import * as MemoryJournal from "../src/adapters/journal/MemoryJournal.js"
import * as SqliteJournal from "../src/adapters/journal/SqliteJournal.js"
import * as BwrapSandbox from "../src/adapters/shell/BwrapSandbox.js"
import * as NodeShell from "../src/adapters/shell/NodeShell.js"
import * as SandboxedShell from "../src/adapters/shell/SandboxedShell.js"
import * as StagedMerge from "../src/adapters/staged/StagedMerge.js"
import * as StagedShell from "../src/adapters/staged/StagedShell.js"
import { defaultLimits } from "../src/domain/sandbox/SandboxProfile.js"
import { ProtectedAliases, nothing } from "../src/ports/ProtectedAliases.js"
import { Session } from "../src/ports/Session.js"
import { Shell } from "../src/ports/Shell.js"
import { cached } from "./tree/generate.js"

const runs = Number(process.argv[2] ?? 30)
const files = Number(process.env["BENCH_TREE_FILES"] ?? 65_000)
const repo = fileURLToPath(new URL("../", import.meta.url))
const root = cached(files, files >= 20_000 ? NodePath.join(repo, "node_modules") : undefined)

const stats = (samples: Array<number>) => {
  const s = [...samples].sort((a, b) => a - b)
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? NaN
  return { median: at(0.5), p90: at(0.9) }
}
type Stats = ReturnType<typeof stats>

const interleaved = <K extends string, R>(runsOf: Record<K, Effect.Effect<unknown, unknown, R>>, n = runs) =>
  Effect.gen(function* () {
    const names = Object.keys(runsOf) as Array<K>
    const samples = Object.fromEntries(names.map((k) => [k, [] as Array<number>])) as Record<K, Array<number>>
    for (let round = -3; round < n; round++) {
      for (const k of names) {
        const start = performance.now()
        yield* runsOf[k]
        if (round >= 0) samples[k].push(performance.now() - start)
      }
    }
    return Object.fromEntries(names.map((k) => [k, stats(samples[k])])) as Record<K, Stats>
  })

const row = (name: string, s: Stats, base?: Stats) =>
  `${name.padEnd(48)} median ${s.median.toFixed(2).padStart(8)} ms  p90 ${s.p90.toFixed(2).padStart(8)} ms` +
  (base === undefined ? "" : `  over raw bwrap ${(s.median - base.median).toFixed(2).padStart(7)} ms (${(s.median / base.median).toFixed(2)}x)`)

const program = Effect.gen(function* () {
  const real = NodeFs.realpathSync(root)
  const state = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "minicode-staged-bench-"))
  const session = Layer.succeed(Session, Session.of({ id: "bench", turn: 1, root: real, workMode: "BUILD", permissionMode: "AUTO", maxOutputBytes: 1 << 16 }))
  const spec = { command: "true", cwd: real, env: {}, timeoutMs: 30_000, maxOutputBytes: 1 << 16 }
  const shellOf = (layer: Layer.Layer<Shell>) => Effect.map(Layer.build(layer), (ctx) => Context.get(ctx, Shell))
  const today = yield* shellOf(
    SandboxedShell.layer({ mode: "bwrap", unrestricted: false, limits: defaultLimits }).pipe(Layer.provide(BwrapSandbox.layer({ cgroups: false })), Layer.provide(session))
  )
  const staged = yield* shellOf(
    StagedShell.layer({ mode: "bwrap", unrestricted: false, limits: defaultLimits, base: state }).pipe(
      Layer.provide(BwrapSandbox.layer({ cgroups: false })),
      Layer.provide(Layer.mergeAll(session, NodeFileSystem.layer, MemoryJournal.layer(), Layer.succeed(ProtectedAliases, nothing)))
    )
  )
  const spawn = (argv: ReadonlyArray<string>) => NodeShell.spawnExact({ ...spec, argv, env: {} })
  const m = yield* interleaved({
    rawBash: spawn(["bwrap", "--ro-bind", "/", "/", "bash", "-c", "true"]),
    today: today.run(spec),
    staged: staged.run(spec)
  })
  console.log(`staged bench: ${runs} rounds of \`true\`, ${NodeOs.cpus().length} cores, load ${NodeOs.loadavg()[0]?.toFixed(1)}, tree of ${files} files (${root})`)
  console.log(row("raw bwrap --ro-bind / / bash -c true", m.rawBash))
  console.log(row("today's sandboxed bash `true`", m.today, m.rawBash))
  console.log(row("staged bash `true` (overlay view + empty merge)", m.staged, m.rawBash))
  console.log(`staged over today's path: ${(m.staged.median - m.today.median).toFixed(2)} ms (${(m.staged.median / m.today.median).toFixed(2)}x)`)

  // The merge of 10,000 new files.
  const n = 10_000
  const ws = NodeFs.realpathSync(NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "minicode-merge-bench-")))
  const upper = NodePath.join(state, "upper10k")
  NodeFs.mkdirSync(NodePath.join(upper, "build"), { recursive: true })
  for (let i = 0; i < n; i++) NodeFs.writeFileSync(NodePath.join(upper, "build", `f${i}.js`), `export const x${i} = ${i}\n`)
  const listing = NodePath.join(state, "listing10k")
  NodeFs.writeFileSync(listing, "/.\0")
  const mergeSession = Layer.succeed(Session, Session.of({ id: "bench", turn: 1, root: ws, workMode: "BUILD", permissionMode: "AUTO", maxOutputBytes: 1 << 16 }))
  const journal = SqliteJournal.layer({ dbPath: NodePath.join(state, "state.db") })
  const started = performance.now()
  const report = yield* StagedMerge.merge({ upper, listing, startedCtimeMs: Date.now() + 60_000, writable: { files: true, git: true }, summary: "bench" }).pipe(
    Effect.provide(Layer.mergeAll(mergeSession, NodeFileSystem.layer, journal, Layer.succeed(ProtectedAliases, nothing)))
  )
  const merged = performance.now() - started
  const plainDir = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "minicode-plain-bench-"))
  const plainStart = performance.now()
  NodeFs.mkdirSync(NodePath.join(plainDir, "build"))
  for (let i = 0; i < n; i++) NodeFs.writeFileSync(NodePath.join(plainDir, "build", `f${i}.js`), `export const x${i} = ${i}\n`)
  const plain = performance.now() - plainStart
  console.log(`merge of ${n} new files (walk, judge, journal with snapshots, write through the port): ${merged.toFixed(0)} ms for ${report.merged.length} changes (${(merged / n).toFixed(3)} ms a file); writeFileSync of the same files: ${plain.toFixed(0)} ms (${(merged / plain).toFixed(1)}x)`)
  for (const d of [state, ws, plainDir]) NodeFs.rmSync(d, { recursive: true, force: true })
})

Effect.runPromise(Effect.scoped(program)).catch((e) => {
  console.error(e)
  process.exitCode = 1
})
