/**
 * The sandbox's per-command cost on the big tree of issue 22 (bench/tree/generate.ts: ~65,000 files, ~30,000
 * folders with the vendored node_modules, secrets at several depths, a git repository): `true` through the
 * sandboxed shell (the whole-workspace scan for secrets kept fresh by inotify and a barrier, `WatchedScan`; the
 * sanitized git config, cached by content; the profile; the limits, set by bash's ulimit) against raw `bwrap --ro-bind / / true`, in the
 * same run, interleaved (a run of each per round) under the machine's load. Goal: at most 30 ms of overhead (median) over raw bwrap.
 *
 *   npx tsx bench/sandbox.bench.ts [runs=60]        (BENCH_TREE_FILES=65000 by default)
 */
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { fileURLToPath } from "node:url"
import { Context, Effect, Layer } from "effect"
import * as BwrapSandbox from "../src/adapters/shell/BwrapSandbox.js"
import * as NodeShell from "../src/adapters/shell/NodeShell.js"
import * as SandboxedShell from "../src/adapters/shell/SandboxedShell.js"
import * as WatchedScan from "../src/adapters/shell/WatchedScan.js"
import * as WorkspaceScan from "../src/adapters/shell/WorkspaceScan.js"
import { defaultLimits } from "../src/domain/sandbox/SandboxProfile.js"
import { Session } from "../src/ports/Session.js"
import { Shell } from "../src/ports/Shell.js"
import { cached } from "./tree/generate.js"

const runs = Number(process.argv[2] ?? 60)
const files = Number(process.env["BENCH_TREE_FILES"] ?? 65_000)
const repo = fileURLToPath(new URL("../", import.meta.url))
const root = cached(files, files >= 20_000 ? NodePath.join(repo, "node_modules") : undefined)

const stats = (samples: Array<number>) => {
  const s = [...samples].sort((a, b) => a - b)
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? NaN
  return { median: at(0.5), p90: at(0.9), mean: s.reduce((a, b) => a + b, 0) / s.length }
}
type Stats = ReturnType<typeof stats>

const time = <E, R>(run: Effect.Effect<unknown, E, R>, n = runs) =>
  Effect.gen(function* () {
    for (let i = 0; i < 5; i++) yield* run
    const samples: Array<number> = []
    for (let i = 0; i < n; i++) {
      const start = performance.now()
      yield* run
      samples.push(performance.now() - start)
    }
    return stats(samples)
  })

/** The runs interleaved, a round each (one run of every entry per round), so the machine's load drifts alike for all. */
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

const program = Effect.gen(function* () {
  const real = NodeFs.realpathSync(root)
  const session = Layer.succeed(Session, Session.of({ id: "bench", turn: 1, root: real, workMode: "BUILD", permissionMode: "AUTO", maxOutputBytes: 1 << 16 }))
  const spec = { command: "true", cwd: real, env: {}, timeoutMs: 10_000, maxOutputBytes: 1 << 16 }
  const shell = (limits: boolean) =>
    SandboxedShell.layer({ mode: "bwrap", unrestricted: false, limits: limits ? defaultLimits : {} }).pipe(
      Layer.provide(BwrapSandbox.layer({ cgroups: false })),
      Layer.provide(session)
    )
  const shellOf = (layer: Layer.Layer<Shell>) => Effect.map(Layer.build(layer), (ctx) => Context.get(ctx, Shell))
  const coldStart = performance.now()
  const hits = WorkspaceScan.scan(real)
  const cold = performance.now() - coldStart
  const cache = WorkspaceScan.makeCache()
  WorkspaceScan.scan(real, cache)
  const warm = yield* time(Effect.sync(() => WorkspaceScan.scan(real, cache)))
  const watched = WatchedScan.make()
  const kept = yield* time(watched.scan(real))
  const mode = watched.lastMode(real)
  watched.close()
  // minicode's own work per call (scan, findings, argv), without starting anything.
  const sandbox = yield* BwrapSandbox.make({ cgroups: false })
  const request = { command: ["bash", "-c", "true"], workspace: real, cwd: real, writable: true, network: false, limits: defaultLimits, env: {} }
  // Held open for the whole run: the profile's mount points (a `.git/commondir` made for its read-only bind, say)
  // are put back when the wrap's scope closes. Spawned after that, bwrap made them again as empty files and nothing
  // removed them: an empty `commondir` broke git in the bench tree (`git grep` found nothing in the next benches).
  const profileArgv = (yield* sandbox.wrap(request)).argv
  // The same argv with the limits set by prlimit (what a bash call did before bash's own ulimit set them).
  const sep = profileArgv.lastIndexOf("--")
  const viaPrlimit = [...profileArgv.slice(0, sep + 1), "prlimit", "--cpu=600", `--fsize=${defaultLimits.fileSizeBytes}`, `--nproc=${defaultLimits.processes}`,
    `--as=${defaultLimits.memoryBytes}`, "--core=0", "--", "bash", "-c", "true"]
  const plainShell = yield* shellOf(NodeShell.layer({ unrestricted: false }))
  const limitedShell = yield* shellOf(shell(true))
  const freeShell = yield* shellOf(shell(false))
  const spawn = (argv: ReadonlyArray<string>) => NodeShell.spawnExact({ ...spec, argv, env: {} })
  const m = yield* interleaved({
    raw: spawn(["bwrap", "--ro-bind", "/", "/", "true"]),
    // The same program the sandboxed shell starts (`bash -c true`), under raw bwrap: the fair baseline for a bash call.
    rawBash: spawn(["bwrap", "--ro-bind", "/", "/", "bash", "-c", "true"]),
    wrapOnly: Effect.scoped(sandbox.wrap(request)),
    rawProfile: spawn(profileArgv),
    rawPrlimit: spawn(viaPrlimit),
    plain: plainShell.run(spec),
    sandboxed: limitedShell.run(spec),
    noLimits: freeShell.run(spec)
  })
  const { raw, rawBash, wrapOnly, rawProfile, rawPrlimit, plain, sandboxed, noLimits } = m
  const row = (name: string, s: Stats, base?: Stats) =>
    `${name.padEnd(52)} median ${s.median.toFixed(2).padStart(7)} ms  p90 ${s.p90.toFixed(2).padStart(7)} ms` +
    (base === undefined ? "" : `  overhead (median) ${(s.median - base.median).toFixed(2).padStart(6)} ms`)
  console.log(`sandbox bench: ${runs} runs of \`true\`, ${NodeOs.cpus().length} cores, tree of ${files} files (${root}), ${hits.length} masked/pinned/sanitized paths`)
  console.log(`${"workspace scan, cold (no cache)".padEnd(52)} ${cold.toFixed(2).padStart(7)} ms`)
  console.log(row("workspace scan, validated per folder (lstat each)", warm))
  console.log(row(`workspace scan, kept fresh by inotify (last: ${mode})`, kept))
  console.log(row("plain NodeShell (no sandbox)", plain))
  console.log(row("raw bwrap --ro-bind / / true", raw))
  console.log(row("raw bwrap --ro-bind / / bash -c true", rawBash))
  console.log(row("wrap only (scan, findings, argv; nothing started)", wrapOnly))
  console.log(row("the full profile's argv spawned directly (bwrap's own work)", rawProfile, rawBash))
  console.log(row("the same argv, limits through prlimit instead of ulimit", rawPrlimit, rawBash))
  console.log(row("sandboxed bash `true` (bash -c): full profile + limits (ulimit)", sandboxed, rawBash))
  console.log(row("sandboxed bash `true` (bash -c): full profile, no limits", noLimits, rawBash))
  const overhead = sandboxed.median - rawBash.median
  console.log(`goal: overhead over raw bwrap <= 30 ms (median): ${overhead <= 30 ? "met" : "NOT met"} (${overhead.toFixed(2)} ms, ratio ${(sandboxed.median / rawBash.median).toFixed(2)}x); minicode's own part (wrap) ${wrapOnly.median.toFixed(2)} ms`)
})

Effect.runPromise(Effect.scoped(program))
