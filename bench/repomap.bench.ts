/**
 * repo_map on a large tree, against `ctags -R` on the same tree in the same run: cold (no cache), warm (every
 * file unchanged), and peak RSS of each, through the built binary (`dist/bin.js tool repo_map`), medians over
 * interleaved rounds.
 *
 * The tree: MINICODE_BENCH_TREE (e.g. the one bench/tree builds), else a modest tree generated once from the
 * source files of node_modules (copied into the user's cache folder, outside the workspace).
 *
 *   npx tsx bench/repomap.bench.ts [rounds=3]
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as RepoMap from "../src/domain/repomap/RepoMap.js"

const rounds = Number(process.argv[2] ?? 3)
const bin = process.env["BENCH_BIN"] ?? path.resolve("dist/bin.js")
const cacheHome = process.env["XDG_CACHE_HOME"] ?? path.join(os.homedir(), ".cache")

/** Source files of node_modules, copied under vendor/ (8,000 of them, at most 1 MB each), built once. */
const generated = () => {
  const root = path.join(cacheHome, "minicode-bench", "repomap-tree-v1")
  if (fs.existsSync(path.join(root, ".complete"))) return root
  fs.rmSync(root, { recursive: true, force: true })
  const files: Array<string> = []
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (files.length >= 8000) return
      const full = path.join(dir, e.name)
      if (e.isDirectory()) walk(full)
      else if (e.isFile() && RepoMap.languageOf(full) !== undefined && fs.statSync(full).size < 1024 * 1024) files.push(full)
    }
  }
  walk(fs.realpathSync("node_modules"))
  const base = fs.realpathSync("node_modules")
  for (const f of files) {
    const to = path.join(root, "vendor", path.relative(base, f).replaceAll("node_modules", "nm"))
    fs.mkdirSync(path.dirname(to), { recursive: true })
    fs.copyFileSync(f, to)
  }
  fs.writeFileSync(path.join(root, ".complete"), "")
  return root
}

const tree = process.env["MINICODE_BENCH_TREE"] ?? generated()
const xdg = fs.mkdtempSync(path.join(os.tmpdir(), "minicode-repomap-bench-"))

/** Wall time and peak RSS of a command, by /usr/bin/time. */
const measure = (cmd: string, args: ReadonlyArray<string>, env: NodeJS.ProcessEnv = process.env) => {
  const t0 = performance.now()
  const r = spawnSync("/usr/bin/time", ["-f", "%M", cmd, ...args], { cwd: tree, env, encoding: "utf8", maxBuffer: 256 * 1024 * 1024 })
  const ms = performance.now() - t0
  const rssKb = Number(/(\d+)\s*$/.exec(r.stderr)?.[1] ?? "NaN")
  if (r.status !== 0) throw new Error(`${cmd} failed: ${r.stderr.slice(-500)}`)
  return { ms, rssMb: rssKb / 1024, out: r.stdout }
}

const repoMap = () => measure(process.execPath, [bin, "tool", "repo_map", "{}"], { ...process.env, XDG_CACHE_HOME: xdg })
const ctags = () => measure("ctags", ["-R", "-f", path.join(xdg, "tags"), "."])
const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN

const cold: Array<number> = []
const warm: Array<number> = []
const peer: Array<number> = []
const coldRss: Array<number> = []
const warmRss: Array<number> = []
const peerRss: Array<number> = []
let head = ""
for (let i = 0; i < rounds; i++) {
  fs.rmSync(path.join(xdg, "minicode"), { recursive: true, force: true })
  const c = repoMap()
  const w = repoMap()
  const p = ctags()
  cold.push(c.ms), warm.push(w.ms), peer.push(p.ms)
  coldRss.push(c.rssMb), warmRss.push(w.rssMb), peerRss.push(p.rssMb)
  head = c.out.split("\n")[0] ?? ""
}
fs.rmSync(xdg, { recursive: true, force: true })
const ms = (x: number) => `${(x / 1000).toFixed(2)} s`
console.log(`tree: ${tree}`)
console.log(`map: ${head}`)
console.log(`repo_map cold ${ms(median(cold))} (peak RSS ${median(coldRss).toFixed(0)} MB) · warm ${ms(median(warm))} (${median(warmRss).toFixed(0)} MB)`)
console.log(`ctags -R      ${ms(median(peer))} (peak RSS ${median(peerRss).toFixed(0)} MB)`)
console.log(`ratio cold/ctags ${(median(cold) / median(peer)).toFixed(2)}× · warm/ctags ${(median(warm) / median(peer)).toFixed(2)}×  (medians of ${rounds} interleaved rounds)`)
