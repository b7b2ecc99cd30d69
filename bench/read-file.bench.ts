/**
 * read_file on big files through a running `minicode mcp serve`, against `sed -n` (and `head`) on the same file in
 * the same run, with the server's peak RSS during each call (VmHWM, reset before it where the kernel lets us).
 * Issue 45 item 3's goal: a 100-line window deep in a 300 MB file within 3× `sed -n 'A,Bp;Bq'`, memory flat.
 * The files are generated here (distinct numbered lines), in a temp folder removed at the end.
 *
 *   npm run build && npx tsx bench/read-file.bench.ts     (BENCH_ROUNDS=5; BENCH_MB=300; BENCH_BIN=another dist/bin.js)
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { bin, warmed } from "./support/Serve.js"

const repo = fileURLToPath(new URL("../", import.meta.url))
const rounds = Number(process.env["BENCH_ROUNDS"] ?? 5)
const bigMb = Number(process.env["BENCH_MB"] ?? 300)
const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "minicode-read-bench-")))

/** `mb` MB of numbered 75-byte lines; returns the line count. */
const generate = (file: string, mb: number): number => {
  const fd = fs.openSync(file, "w")
  let n = 0
  try {
    const block = 16 * 1024 * 1024
    for (let written = 0; written < mb * 1_000_000; ) {
      const parts: Array<string> = []
      let size = 0
      while (size < block) {
        n++
        const line = `line ${String(n).padStart(8, "0")} lorem ipsum dolor sit amet, consectetur adipiscing elit\n`
        parts.push(line)
        size += line.length
      }
      written += fs.writeSync(fd, parts.join(""))
    }
  } finally {
    fs.closeSync(fd)
  }
  return n
}

const mb = (pid: number, field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? "0") / 1024
const resetPeak = (pid: number) => {
  try {
    fs.writeFileSync(`/proc/${pid}/clear_refs`, "5")
  } catch {
    // Not permitted: the peak is then the peak since start.
  }
}
const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0
const timed = (command: string, args: ReadonlyArray<string>) => {
  const t = performance.now()
  const r = spawnSync(command, args, { cwd: root, maxBuffer: 1 << 26 })
  if (r.status !== 0) throw new Error(`${command} failed: ${String(r.stderr)}`)
  return performance.now() - t
}

const main = async () => {
  const big = path.join(root, "big.log")
  const mid = path.join(root, "mid.log")
  const bigLines = generate(big, bigMb)
  const midLines = generate(mid, 50)
  const deep = Math.floor(bigLines * 0.75)
  console.log(`big.log: ${(fs.statSync(big).size / 1e6).toFixed(0)} MB, ${bigLines} lines; mid.log: ${(fs.statSync(mid).size / 1e6).toFixed(0)} MB, ${midLines} lines`)
  const { client, pid } = await warmed(bin(repo), root, { ...(process.env as Record<string, string>) })
  await new Promise((r) => setTimeout(r, 2000))
  console.log(`mcp serve idle RSS ${mb(pid, "VmRSS").toFixed(0)} MB`)
  const cases = [
    { name: `100 lines at line ${deep} of big.log`, args: { path: "big.log", offset: deep, limit: 100 }, peer: ["sed", ["-n", `${deep},${deep + 99}p;${deep + 99}q`, "big.log"]] as const, expect: `line ${String(deep).padStart(8, "0")}` },
    { name: "default window (2000 lines) of big.log", args: { path: "big.log" }, peer: ["head", ["-n", "2000", "big.log"]] as const, expect: "line 00002000" },
    { name: "default window (2000 lines) of mid.log (50 MB)", args: { path: "mid.log" }, peer: ["head", ["-n", "2000", "mid.log"]] as const, expect: "line 00002000" }
  ]
  for (const c of cases) {
    const ours: Array<number> = []
    const theirs: Array<number> = []
    const peaks: Array<number> = []
    for (let round = 0; round < rounds; round++) {
      theirs.push(timed(c.peer[0], c.peer[1]))
      resetPeak(pid)
      const t = performance.now()
      const r = await client.callTool({ name: "read_file", arguments: c.args }, undefined, { timeout: 600_000 })
      ours.push(performance.now() - t)
      peaks.push(mb(pid, "VmHWM"))
      const text = JSON.stringify(r.content)
      if (r.isError === true || !text.includes(c.expect)) throw new Error(`read_file ${JSON.stringify(c.args)} answered: ${text.slice(0, 300)}`)
    }
    console.log(
      `${c.name}: read_file ${median(ours).toFixed(0)} ms, ${c.peer[0]} ${median(theirs).toFixed(0)} ms (ratio ${(median(ours) / median(theirs)).toFixed(2)}×; goal ≤ 3×), server peak RSS ${median(peaks).toFixed(0)} MB (max ${Math.max(...peaks).toFixed(0)})`
    )
  }
  await client.close()
}

main()
  .catch((e: unknown) => {
    console.error(e)
    process.exitCode = 1
  })
  .finally(() => fs.rmSync(root, { recursive: true, force: true }))
