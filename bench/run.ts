/**
 * `npm run bench`: every benchmark, one after the other, each against its peer in the same run.
 * Some: `npm run bench -- NAME…` (the files whose name starts with one of them: `npm run bench -- journal`).
 * A single one without the build: `npx tsx bench/NAME.bench.ts` (journal: `npx tsx bench/journal.bench.ts 1000
 * connections` runs only the one-against-two-connections comparison).
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"

const only = process.argv.slice(2)
const benches = fs
  .readdirSync(path.resolve("bench"))
  .filter((f) => f.endsWith(".bench.ts") && (only.length === 0 || only.some((o) => f.startsWith(o))))
  .sort()
let failed = 0
for (const bench of benches) {
  console.log(`\n=== ${bench}`)
  const r = spawnSync(process.execPath, ["--import", "tsx", path.join("bench", bench)], { stdio: "inherit" })
  if (r.status !== 0) failed++
}
if (failed > 0) {
  console.error(`${failed} benchmark(s) failed`)
  process.exitCode = 1
}
