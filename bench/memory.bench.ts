/**
 * `minicode mcp serve`'s resident memory around big calls on the bench tree (bench/tree/generate.ts): at rest
 * before any call, the peak during each call (VmHWM, reset before it where the kernel lets us), and at rest a few
 * seconds after it. Issue 22's goal: back within 50 MB of the idle figure after a big grep or repo_map. Each call
 * runs `BENCH_ROUNDS` times (a server that keeps what it made grows from round to round; one that does not, not).
 * The server runs with its own empty cache folder (repo_map cold on the first round, warm after), after a first
 * start that wrote its code cache there (bench/support/Serve.ts).
 *
 *   npm run build && npx tsx bench/memory.bench.ts     (BENCH_TREE_FILES=6000 for a quick run; BENCH_BIN=another dist/bin.js)
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { bin, warmed } from "./support/Serve.js"
import { cached, markers } from "./tree/generate.js"

const repo = fileURLToPath(new URL("../", import.meta.url))
const files = Number(process.env["BENCH_TREE_FILES"] ?? 60_000)
const rounds = Number(process.env["BENCH_ROUNDS"] ?? 2)
const root = cached(files, files >= 20_000 ? path.join(repo, "node_modules") : undefined)
const xdg = fs.mkdtempSync(path.join(os.tmpdir(), "minicode-memory-bench-"))

const mb = (pid: number, field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? "0") / 1024
const resetPeak = (pid: number) => {
  try {
    fs.writeFileSync(`/proc/${pid}/clear_refs`, "5")
  } catch {
    // Not permitted: the peak is then the peak since start.
  }
}
const rest = () => new Promise((r) => setTimeout(r, 3000))

const calls: ReadonlyArray<{ readonly name: string; readonly tool: string; readonly args: Record<string, unknown> }> = [
  { name: `grep ${markers.common} (many matches)`, tool: "grep", args: { pattern: markers.common } },
  { name: "grep a regex with no literal", tool: "grep", args: { pattern: "length > 63\\)|length > 17\\)" } },
  { name: "glob **/*.ts", tool: "glob", args: { pattern: "**/*.ts" } },
  { name: "repo_map", tool: "repo_map", args: {} }
]

const main = async () => {
  // The empty cache folder also holds the code cache: the warm-up start writes it, as a user's first start does.
  const { client, pid } = await warmed(bin(repo), root, { ...(process.env as Record<string, string>), XDG_CACHE_HOME: xdg })
  await rest()
  const idle = mb(pid, "VmRSS")
  console.log(`tree: ${root}; mcp serve idle RSS ${idle.toFixed(0)} MB`)
  for (let round = 0; round < rounds; round++) {
    for (const c of calls) {
      resetPeak(pid)
      const t = performance.now()
      const r = await client.callTool({ name: c.tool, arguments: c.args }, undefined, { timeout: 600_000 })
      const ms = performance.now() - t
      const peak = mb(pid, "VmHWM")
      await rest()
      const after = mb(pid, "VmRSS")
      console.log(
        `round ${round + 1} ${c.name}: ${(ms / 1000).toFixed(2)} s${r.isError === true ? " (error)" : ""}, peak ${peak.toFixed(0)} MB, at rest after ${after.toFixed(0)} MB (${after - idle >= 0 ? "+" : ""}${(after - idle).toFixed(0)} MB over idle; goal ≤ +50)`
      )
    }
  }
  await client.close()
  fs.rmSync(xdg, { recursive: true, force: true })
}

await main()
