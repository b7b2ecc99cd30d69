/**
 * The cost of ScanAliases (issue 19) on the 60k bench tree, one process, warm cache, interleaved rounds:
 * - names: `WorkspaceScan.scan` alone (what the sandbox masked before);
 * - with aliases: the same walk and `ScanAliases.extend` (lstat of each protected file, targets of protected links);
 * - link search: `extend` when a protected file has a second link that is not in the tree (the worst case: every
 *   regular file of every folder `lstat`ed, no early end), the memo cleared each round.
 * Run: npx tsx bench/scan-aliases.bench.ts [rounds]
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as ScanAliases from "../src/adapters/shell/ScanAliases.js"
import * as WorkspaceScan from "../src/adapters/shell/WorkspaceScan.js"

const root = fs.realpathSync(path.join(os.homedir(), ".cache/minicode-bench/tree-v1-60000"))
const rounds = Number(process.argv[2] ?? 7)
const cache = WorkspaceScan.makeCache()
WorkspaceScan.scan(root, cache)
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "scan-aliases-"))
fs.writeFileSync(path.join(tmp, "secret"), "x")
fs.linkSync(path.join(tmp, "secret"), path.join(tmp, "other"))
const median = (xs: Array<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0
const t = { names: [] as Array<number>, aliases: [] as Array<number>, search: [] as Array<number> }
const memo = ScanAliases.makeMemo()
let hitsCount = 0
for (let i = 0; i < rounds; i++) {
  let s = performance.now()
  const hits = WorkspaceScan.scan(root, cache)
  t.names.push(performance.now() - s)
  s = performance.now()
  const again = WorkspaceScan.scan(root, cache)
  ScanAliases.extend(root, again, cache.get(root), memo)
  t.aliases.push(performance.now() - s)
  hitsCount = hits.length
  const planted = [...hits, { path: path.join(tmp, "secret"), kind: "file" as const, verdict: "mask" as const }]
  s = performance.now()
  ScanAliases.extend(root, planted, cache.get(root), ScanAliases.makeMemo())
  t.search.push(performance.now() - s)
}
fs.rmSync(tmp, { recursive: true, force: true })
console.log(`60k tree, ${hitsCount} hits, median of ${rounds}:`)
console.log(`  names only        ${median(t.names).toFixed(1)} ms`)
console.log(`  names + aliases   ${median(t.aliases).toFixed(1)} ms`)
console.log(`  + full link search (extend only) ${median(t.search).toFixed(1)} ms`)
