/**
 * The bash tool end to end (guard, chain, journal, process group, capture) against a plain child_process.spawn
 * of the same command, unsandboxed and sandboxed. Run: npx tsx bench/bash.bench.ts
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { createKernel } from "../src/index.js"

const runs = Number(process.env["BENCH_RUNS"] ?? 60)
const ws = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "minicode-bash-bench-")))
const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0

const plain = (command: string) =>
  new Promise<void>((resolve, reject) => {
    const child = spawn("bash", ["-c", command], { cwd: ws, stdio: ["ignore", "pipe", "pipe"] })
    child.stdout.resume()
    child.stderr.resume()
    child.once("error", reject)
    child.once("close", () => resolve())
  })

const sample = async (f: () => Promise<unknown>) => {
  const out: Array<number> = []
  for (let i = 0; i < runs; i++) {
    const t = performance.now()
    await f()
    out.push(performance.now() - t)
  }
  return median(out)
}

for (const command of ["true", "echo hello && ls -la"]) {
  const base = await sample(() => plain(command))
  for (const sandbox of ["none", "auto"] as const) {
    const kernel = createKernel({ workspace: ws, workMode: "BUILD", sandbox })
    await kernel.run("bash", { command })
    const ours = await sample(async () => {
      const r = await kernel.run("bash", { command })
      if (!r.ok) throw new Error(JSON.stringify(r))
    })
    await kernel.close()
    console.log(`bash ${JSON.stringify(command)} sandbox=${sandbox}: ${ours.toFixed(2)} ms vs plain spawn ${base.toFixed(2)} ms (+${(ours - base).toFixed(2)} ms, ${(ours / base).toFixed(2)}×)`)
  }
}
fs.rmSync(ws, { recursive: true, force: true })
