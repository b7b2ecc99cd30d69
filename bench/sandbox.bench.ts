/**
 * The sandbox's per-command cost on a ~65,000-file workspace (issue 19): `true` through the sandboxed shell (the
 * whole-workspace scan for secrets, validated from its cache; the sanitized git config; the profile; prlimit)
 * against raw `bwrap --ro-bind / / true`. Goal: at most 30 ms of overhead (median) over raw bwrap.
 *
 * The tree is generated once, outside any workspace, in $XDG_CACHE_HOME/minicode-bench (or ~/.cache, or /tmp) and
 * kept for later runs: a node_modules-like spread of folders of ~10 files, a git repository with a token in its
 * remote URL, and secrets at every depth.
 *
 *   npx tsx bench/sandbox.bench.ts [runs=60] [files=65000]
 */
import { execFileSync } from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { Effect, Layer } from "effect"
import * as BwrapSandbox from "../src/adapters/shell/BwrapSandbox.js"
import * as NodeShell from "../src/adapters/shell/NodeShell.js"
import * as SandboxedShell from "../src/adapters/shell/SandboxedShell.js"
import * as WorkspaceScan from "../src/adapters/shell/WorkspaceScan.js"
import { defaultLimits } from "../src/domain/sandbox/SandboxProfile.js"
import { Session } from "../src/ports/Session.js"
import { Shell } from "../src/ports/Shell.js"

const runs = Number(process.argv[2] ?? 60)
const files = Number(process.argv[3] ?? 65_000)

const cacheHome = process.env["XDG_CACHE_HOME"] ?? (process.env["HOME"] === undefined ? "/tmp" : NodePath.join(process.env["HOME"], ".cache"))
const root = NodePath.join(cacheHome, "minicode-bench", `sandbox-tree-${files}`)

/** ~`files` files in folders of 10, three levels of fan-out 20, plus secrets at depths 1..9 and a repository. */
const generate = () => {
  if (NodeFs.existsSync(NodePath.join(root, ".complete"))) return
  NodeFs.rmSync(root, { recursive: true, force: true })
  const folders = Math.ceil(files / 10)
  for (let i = 0; i < folders; i++) {
    const dir = NodePath.join(root, "node_modules", `p${i % 20}`, `q${Math.floor(i / 20) % 20}`, `r${Math.floor(i / 400)}`)
    NodeFs.mkdirSync(dir, { recursive: true })
    for (let f = 0; f < 10; f++) NodeFs.writeFileSync(NodePath.join(dir, `f${f}.js`), "module.exports = 1\n")
  }
  for (let d = 1; d <= 9; d++) {
    const dir = NodePath.join(root, "src", ...Array.from({ length: d - 1 }, (_, i) => `d${i}`))
    NodeFs.mkdirSync(dir, { recursive: true })
    NodeFs.writeFileSync(NodePath.join(dir, ".env"), "TOKEN=bench-secret\n")
  }
  NodeFs.mkdirSync(NodePath.join(root, "dist"), { recursive: true })
  NodeFs.writeFileSync(NodePath.join(root, "dist", ".env"), "X=1\n")
  NodeFs.writeFileSync(NodePath.join(root, "node_modules", ".npmrc"), "//registry/:_authToken=bench\n")
  execFileSync("git", ["init", "-q"], { cwd: root })
  execFileSync("git", ["remote", "add", "origin", "https://x-access-token:bench-token@github.com/acme/app.git"], { cwd: root })
  NodeFs.writeFileSync(NodePath.join(root, ".complete"), "")
}

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

const program = Effect.gen(function* () {
  const real = NodeFs.realpathSync(root)
  const session = Layer.succeed(Session, Session.of({ id: "bench", turn: 1, root: real, workMode: "BUILD", permissionMode: "AUTO", maxOutputBytes: 1 << 16 }))
  const spec = { command: "true", cwd: real, env: {}, timeoutMs: 10_000, maxOutputBytes: 1 << 16 }
  const shell = (limits: boolean) =>
    SandboxedShell.layer({ mode: "bwrap", unrestricted: false, limits: limits ? defaultLimits : {} }).pipe(
      Layer.provide(BwrapSandbox.layer({ cgroups: false })),
      Layer.provide(session)
    )
  const viaShell = (layer: Layer.Layer<Shell>) => time(Effect.flatMap(Shell, (sh) => sh.run(spec))).pipe(Effect.provide(layer))

  const coldStart = performance.now()
  const hits = WorkspaceScan.scan(real)
  const cold = performance.now() - coldStart
  const cache = WorkspaceScan.makeCache()
  WorkspaceScan.scan(real, cache)
  const warm = yield* time(Effect.sync(() => WorkspaceScan.scan(real, cache)))
  const raw = yield* time(NodeShell.spawnExact({ ...spec, argv: ["bwrap", "--ro-bind", "/", "/", "true"], env: {} }))
  const plain = yield* viaShell(NodeShell.layer({ unrestricted: false }))
  const sandboxed = yield* viaShell(shell(true))
  const noLimits = yield* viaShell(shell(false))

  const row = (name: string, s: Stats, base?: Stats) =>
    `${name.padEnd(52)} median ${s.median.toFixed(2).padStart(7)} ms  p90 ${s.p90.toFixed(2).padStart(7)} ms` +
    (base === undefined ? "" : `  overhead (median) ${(s.median - base.median).toFixed(2).padStart(6)} ms`)
  console.log(`sandbox bench: ${runs} runs of \`true\`, ${NodeOs.cpus().length} cores, workspace of ${files} files (${root}), ${hits.length} masked/pinned/sanitized paths`)
  console.log(`${"workspace scan, cold (no cache)".padEnd(52)} ${cold.toFixed(2).padStart(7)} ms`)
  console.log(row("workspace scan, validated from its cache", warm))
  console.log(row("plain NodeShell (no sandbox)", plain))
  console.log(row("raw bwrap --ro-bind / / true", raw))
  console.log(row("sandboxed bash `true`: full profile + prlimit", sandboxed, raw))
  console.log(row("sandboxed bash `true`: full profile, no limits", noLimits, raw))
  const overhead = sandboxed.median - raw.median
  console.log(`goal: overhead over raw bwrap <= 30 ms (median): ${overhead <= 30 ? "met" : "NOT met"} (${overhead.toFixed(2)} ms)`)
})

generate()
Effect.runPromise(program)
