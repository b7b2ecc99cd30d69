/**
 * The sandbox's per-command cost: `true` through the plain Node shell against the same through the sandboxed
 * shell (bwrap profile, workspace scan, prlimit, pids cgroup when available), and the parts of that cost.
 * Goal: under 15 ms of overhead for `true`.
 *
 *   npx tsx bench/sandbox.bench.ts [runs=60]
 */
import { execFileSync } from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { Effect, Layer } from "effect"
import * as BwrapSandbox from "../src/adapters/shell/BwrapSandbox.js"
import * as NodeShell from "../src/adapters/shell/NodeShell.js"
import * as SandboxedShell from "../src/adapters/shell/SandboxedShell.js"
import { Session } from "../src/ports/Session.js"
import { Shell } from "../src/ports/Shell.js"

const runs = Number(process.argv[2] ?? 60)

const root = NodeFs.realpathSync(NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "minicode-sbx-bench-")))
// A small project: a few hundred files, a git repository, a .env to mask.
for (let d = 0; d < 20; d++) {
  NodeFs.mkdirSync(NodePath.join(root, "src", `m${d}`), { recursive: true })
  for (let f = 0; f < 10; f++) NodeFs.writeFileSync(NodePath.join(root, "src", `m${d}`, `f${f}.ts`), "export {}\n")
}
NodeFs.writeFileSync(NodePath.join(root, ".env"), "X=1\n")
execFileSync("git", ["init", "-q"], { cwd: root })

const session = Layer.succeed(Session, Session.of({ id: "bench", turn: 1, root, workMode: "BUILD", permissionMode: "AUTO", maxOutputBytes: 1 << 16 }))
const spec = { command: ["true"], cwd: root, env: {}, timeoutMs: 10_000, maxOutputBytes: 1 << 16 }

const stats = (samples: Array<number>) => {
  const s = [...samples].sort((a, b) => a - b)
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? NaN
  return { median: at(0.5), p90: at(0.9), mean: s.reduce((a, b) => a + b, 0) / s.length }
}

const time = <E, R>(run: Effect.Effect<unknown, E, R>) =>
  Effect.gen(function* () {
    for (let i = 0; i < 5; i++) yield* run
    const samples: Array<number> = []
    for (let i = 0; i < runs; i++) {
      const start = performance.now()
      yield* run
      samples.push(performance.now() - start)
    }
    return stats(samples)
  })

const shellLayer = (options: { readonly limits: boolean; readonly cgroups: boolean }) =>
  SandboxedShell.layer({ mode: "bwrap", unrestricted: false, limits: options.limits ? { processes: 512, cpuSeconds: 600, fileSizeBytes: 4 * 1024 ** 3, memoryBytes: 16 * 1024 ** 3 } : {} }).pipe(
    Layer.provide(BwrapSandbox.layer({ cgroups: options.cgroups })),
    Layer.provide(session)
  )

const viaShell = (layer: Layer.Layer<Shell>) => time(Effect.flatMap(Shell, (sh) => sh.run(spec))).pipe(Effect.provide(layer))

const program = Effect.gen(function* () {
  const plain = yield* viaShell(NodeShell.layer({ unrestricted: false }))
  const scan = yield* time(Effect.sync(() => BwrapSandbox.scan(root, 6, 20_000)))
  const bare = yield* time(NodeShell.spawnExact({ ...spec, argv: ["bwrap", "--ro-bind", "/", "/", "true"], env: {} }))
  const noLimits = yield* viaShell(shellLayer({ limits: false, cgroups: false }))
  const prlimit = yield* viaShell(shellLayer({ limits: true, cgroups: false }))
  const full = yield* viaShell(shellLayer({ limits: true, cgroups: true }))
  const row = (name: string, s: ReturnType<typeof stats>, base?: ReturnType<typeof stats>) =>
    `${name.padEnd(44)} median ${s.median.toFixed(2).padStart(6)} ms  p90 ${s.p90.toFixed(2).padStart(6)} ms` +
    (base === undefined ? "" : `  overhead (median) ${(s.median - base.median).toFixed(2).padStart(6)} ms`)
  console.log(`sandbox bench: ${runs} runs of \`true\`, ${NodeOs.cpus().length} cores, workspace of ~200 files`)
  console.log(row("plain NodeShell", plain))
  console.log(row("workspace scan alone", scan))
  console.log(row("bare bwrap (--ro-bind / /, no namespaces)", bare, plain))
  console.log(row("sandboxed: profile, no limits", noLimits, plain))
  console.log(row("sandboxed: profile + prlimit", prlimit, plain))
  console.log(row("sandboxed: profile + prlimit + pids cgroup", full, plain))
})

Effect.runPromise(program).finally(() => NodeFs.rmSync(root, { recursive: true, force: true }))
