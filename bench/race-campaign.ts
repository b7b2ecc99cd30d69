/**
 * Issue 19's acceptance campaign (not part of `npm test`, not a `*.bench.ts`): every file operation against a real
 * second process that swaps, with `renameat2(RENAME_EXCHANGE)` in a tight loop, the name the operation goes
 * through for a symlink to a place outside the workspace holding canaries of the same names.
 *
 *   npx tsx bench/race-campaign.ts [attemptsPerOp] [inFlight] [variants,…] [ops,…]
 *
 * attemptsPerOp defaults to 10000 (undo/redo: a fiftieth of it, each is three CLI processes), inFlight to 12. The
 * variants: `dir` (the folder `rdir` ⇄ `rlink` → outside folder), `file` (each target file ⇄ a symlink to the
 * outside file of the same name), `parent` (`top` ⇄ `toplink`, two levels above the folder the calls name).
 * One `minicode mcp serve --allow-all --no-ask` (the built dist/bin.js, run `node scripts/build.mjs` first) takes
 * every call over stdio through the MCP SDK's client; the swapper is a C program compiled with `cc` at start.
 *
 * Per batch the swapper is started (it reports once its first exchange is done; even batches it swaps in a tight
 * loop, odd ones in bursts of 400 µs with the real names held for 400 µs between, so more calls get through and the
 * race sits at both edges of a call), the attempts run `inFlight` at a
 * time, the swapper is stopped (it leaves every real name real) and the invariants are checked: no canary (outside
 * content, an outside file's name, an outside table's row) in any output, the outside tree exactly as it was
 * (names, kinds, modes, content, no new file, no `.minicode-tmp*` litter). Fixtures are laid out again with no
 * swapper running. The table says, per operation and variant, how many attempts succeeded (did what an honest
 * call does), were refused or failed (an error result), and escaped. Exit status 1 when anything escaped.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"

const repo = fileURLToPath(new URL("../", import.meta.url))
const bin = process.env["BENCH_BIN"] ?? path.join(repo, "dist/bin.js")
const attemptsPerOp = Number(process.argv[2] ?? 10_000)
const inFlight = Number(process.argv[3] ?? 12)
const onlyVariants = process.argv[4]?.split(",") ?? ["dir", "file", "parent"]
const onlyOps = process.argv[5]?.split(",")
const batchSize = Math.min(500, attemptsPerOp)

const CANARY = "CANARY-zq7x-outside"
const CANARY_NAME = "zz-canary-name-q9"

// ---------------------------------------------------------------- the swapper
const swapperC = String.raw`
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE 2
#endif
static volatile sig_atomic_t stop = 0;
static void on_term(int s) { (void)s; stop = 1; }
static int xchg(const char *a, const char *b) { return syscall(SYS_renameat2, AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE); }
/* Every first name of a pair real again (a link there is exchanged back). */
static void real(int argc, char **argv) {
  for (int i = 1; i + 1 < argc; i += 2) {
    struct stat st;
    if (lstat(argv[i], &st) == 0 && S_ISLNK(st.st_mode)) xchg(argv[i], argv[i + 1]);
  }
}
/* argv[1]: 0 swaps in a tight loop; N > 0 swaps for N microseconds, then holds every real name real for N. */
int main(int argc, char **argv) {
  long burst = atol(argv[1]);
  argv++; argc--;
  signal(SIGTERM, on_term);
  signal(SIGINT, on_term);
  unsigned long n = 0, failed = 0;
  for (int i = 1; i + 1 < argc; i += 2) if (xchg(argv[i], argv[i + 1]) != 0) failed++;
  printf("ready\n");
  fflush(stdout);
  struct timespec t0, t;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  while (!stop) {
    for (int i = 1; i + 1 < argc; i += 2) { if (xchg(argv[i], argv[i + 1]) != 0) failed++; n++; }
    if (burst > 0) {
      clock_gettime(CLOCK_MONOTONIC, &t);
      if ((t.tv_sec - t0.tv_sec) * 1000000L + (t.tv_nsec - t0.tv_nsec) / 1000 >= burst) {
        real(argc, argv);
        usleep(burst);
        clock_gettime(CLOCK_MONOTONIC, &t0);
      }
    }
  }
  real(argc, argv);
  printf("swaps %lu failed %lu\n", n, failed);
  return 0;
}
`

const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "minicode-race-")))
const swapperBin = path.join(tmp, "swapper")
fs.writeFileSync(path.join(tmp, "swapper.c"), swapperC)
execFileSync("cc", ["-O2", "-o", swapperBin, path.join(tmp, "swapper.c")])

interface Swapper {
  readonly stop: () => Promise<string>
}
/** Starts the swapper over `pairs` (paths relative to `cwd`) once its first exchange is done. */
const startSwapper = (cwd: string, pairs: ReadonlyArray<readonly [string, string]>, burstMicros: number): Promise<Swapper> =>
  new Promise((resolve, reject) => {
    const child: ChildProcess = spawn("nice", ["-n", "5", swapperBin, String(burstMicros), ...pairs.flat()], { cwd, stdio: ["ignore", "pipe", "inherit"] })
    let out = ""
    const exited = new Promise<string>((r) => child.on("exit", () => r(out)))
    child.stdout?.on("data", (d: Buffer) => {
      const first = out === ""
      out += d.toString()
      if (first && out.startsWith("ready")) resolve({ stop: () => (child.kill("SIGTERM"), exited) })
    })
    child.on("error", reject)
  })

// ---------------------------------------------------------------- the workspace and the outside
const parent = path.join(tmp, "p")
const root = path.join(parent, "ws")
const outside = path.join(parent, "outside")
fs.mkdirSync(root, { recursive: true })
fs.mkdirSync(outside)
const git = (...args: Array<string>) => execFileSync("git", args, { cwd: root, encoding: "utf8" })
git("init", "-q", "-b", "main")
git("config", "user.email", "dev@example.com")
git("config", "user.name", "Dev")
fs.writeFileSync(path.join(root, "a.txt"), "a\n")
git("add", "a.txt")
git("commit", "-q", "-m", "first")

const makeDb = (file: string, value: string) =>
  execFileSync("python3", ["-c", `import sqlite3,sys\nc=sqlite3.connect(sys.argv[1])\nc.execute("create table t(v text)")\nc.execute("insert into t values (?)", (sys.argv[2],))\nc.commit()`, file, value])
const insideDb = path.join(tmp, "inside.sqlite")
const outsideDb = path.join(tmp, "outside.sqlite")
makeDb(insideDb, "inside-row")
makeDb(outsideDb, CANARY)

/** The names the operations target in one folder, laid out inside (`honest`) or as outside canaries. */
const layFolder = (dir: string, honest: boolean) => {
  fs.mkdirSync(dir, { recursive: true })
  const body = (n: string) => (honest ? `inside ${n}\n` : `${CANARY} ${n}\n`)
  fs.writeFileSync(path.join(dir, "notes.txt"), honest ? "inside notes\n" : `${CANARY} notes\n`)
  for (let k = 0; k < inFlight; k++) {
    fs.writeFileSync(path.join(dir, `e${k}.txt`), honest ? "tick\n" : `tick\n${CANARY}\n`)
    if (honest || k % 2 === 0) fs.writeFileSync(path.join(dir, `m${k}.txt`), body(`m${k}`))
  }
  for (let n = 0; n < batchSize; n++) {
    if (honest || n % 2 === 0) fs.writeFileSync(path.join(dir, `d${n}.txt`), body(`d${n}`))
    // Writes: inside, even names exist (an overwrite) and odd ones do not (a create); outside, every fourth differs.
    if (honest ? n % 2 === 0 : n % 4 < 2) fs.writeFileSync(path.join(dir, `w${n}.txt`), body(`w${n}`))
  }
  if (!honest) for (let k = 0; k < 8; k++) fs.writeFileSync(path.join(dir, `u${k}.txt`), body(`u${k}`))
  fs.copyFileSync(honest ? insideDb : outsideDb, path.join(dir, "db.sqlite"))
  if (!honest) {
    fs.writeFileSync(path.join(dir, CANARY_NAME), `${CANARY}\n`)
    fs.chmodSync(path.join(dir, "notes.txt"), 0o640)
  }
}

// The outside: one folder per variant, each with every name the attacks target.
const outDir = path.join(outside, "dir")
const outFile = path.join(outside, "file")
const outParent = path.join(outside, "parent")
/** Every variant's outside folder, with the names the attacks target. */
const layOutside = () => {
  layFolder(outDir, false)
  layFolder(outFile, false)
  layFolder(path.join(outParent, "mid/rdir"), false)
  fs.writeFileSync(path.join(outParent, "mid", CANARY_NAME), `${CANARY}\n`)
}
layOutside()

interface Entry {
  readonly kind: string
  readonly mode: number
  readonly content: string
}
const snapshotOf = (dir: string): Map<string, Entry> => {
  const out = new Map<string, Entry>()
  const walk = (d: string) => {
    for (const name of fs.readdirSync(d).sort()) {
      const p = path.join(d, name)
      const st = fs.lstatSync(p)
      const rel = path.relative(dir, p)
      if (st.isDirectory()) {
        out.set(rel, { kind: "dir", mode: st.mode, content: "" })
        walk(p)
      } else if (st.isSymbolicLink()) out.set(rel, { kind: "link", mode: st.mode, content: fs.readlinkSync(p) })
      else out.set(rel, { kind: st.isFile() ? "file" : "other", mode: st.mode, content: st.isFile() ? fs.readFileSync(p).toString("base64") : "" })
    }
  }
  walk(dir)
  return out
}
const outsideBefore = snapshotOf(outside)
/** What differs outside from before: each a line naming the path. */
const outsideChanges = (): Array<string> => {
  const now = snapshotOf(outside)
  const changes: Array<string> = []
  for (const [rel, e] of now) {
    const was = outsideBefore.get(rel)
    if (was === undefined) changes.push(`new ${rel}`)
    else if (was.kind !== e.kind || was.mode !== e.mode || was.content !== e.content) changes.push(`changed ${rel}`)
  }
  for (const rel of outsideBefore.keys()) if (!now.has(rel)) changes.push(`removed ${rel}`)
  return changes
}
/** Puts the outside back as it was (after an escape, so the next batches are judged afresh). */
const restoreOutside = () => {
  fs.rmSync(outside, { recursive: true, force: true })
  fs.mkdirSync(outside)
  layOutside()
}

// ---------------------------------------------------------------- variants
interface Variant {
  readonly name: string
  /** The folder the calls name (workspace-relative). */
  readonly dir: string
  /** Lays out the inside, with no swapper running. */
  readonly seed: () => void
  /** The swapper's pairs (real name, symlink to the outside) for the files operation `op` targets. */
  readonly pairs: (op: string) => ReadonlyArray<readonly [string, string]>
}

const rm = (p: string) => fs.rmSync(path.join(root, p), { recursive: true, force: true })
const dirVariant: Variant = {
  name: "dir",
  dir: "rdir",
  seed: () => {
    rm("rdir")
    rm("rlink")
    layFolder(path.join(root, "rdir"), true)
    fs.symlinkSync(outDir, path.join(root, "rlink"))
  },
  pairs: () => [["rdir", "rlink"]]
}
const parentVariant: Variant = {
  name: "parent",
  dir: "top/mid/rdir",
  seed: () => {
    rm("top")
    rm("toplink")
    layFolder(path.join(root, "top/mid/rdir"), true)
    fs.symlinkSync(outParent, path.join(root, "toplink"))
  },
  pairs: () => [["top", "toplink"]]
}
/** The names each operation targets (the file variant swaps only those, each as often as the tight loop allows). */
const targetPrefix: Record<string, string> = {
  write_file: "w",
  edit_file: "e",
  read_file: "notes",
  move_file: "m",
  delete_file: "d",
  grep: "notes",
  sql_query: "db.sqlite",
  "undo/redo": "u"
}
/** Every file of `fv` paired with a symlink `.NAME.lnk` to the outside file of the same name (the folder stays real). */
const fileVariant: Variant = {
  name: "file",
  dir: "fv",
  seed: () => {
    rm("fv")
    layFolder(path.join(root, "fv"), true)
    for (const name of fs.readdirSync(path.join(root, "fv"))) {
      fs.symlinkSync(path.join(outFile, name), path.join(root, "fv", `.${name}.lnk`))
    }
  },
  pairs: (op) =>
    fs
      .readdirSync(path.join(root, "fv"))
      .filter((n) => !n.startsWith(".") && n.startsWith(targetPrefix[op] ?? "-"))
      .map((n) => [`fv/${n}`, `fv/.${n}.lnk`] as const)
}
const variants = [dirVariant, fileVariant, parentVariant].filter((v) => onlyVariants.includes(v.name))

// ---------------------------------------------------------------- the server
const transport = new StdioClientTransport({ command: process.execPath, args: [bin, "mcp", "serve", "--cwd", root, "--allow-all", "--no-ask"], cwd: root, stderr: "ignore" })
const client = new Client({ name: "race-campaign", version: "1" })
await client.connect(transport)
await client.listTools()

interface Result {
  readonly text: string
  readonly error: boolean
}
const call = async (name: string, args: Record<string, unknown>): Promise<Result> => {
  try {
    const r = await client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 })
    const content = Array.isArray(r.content) ? r.content : []
    const text = content.map((c: unknown) => (typeof c === "object" && c !== null && "text" in c && typeof c.text === "string" ? c.text : "")).join("")
    return { text, error: r.isError === true }
  } catch (e) {
    return { text: String(e), error: true }
  }
}
const cli = (args: ReadonlyArray<string>): Promise<Result> =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args, "--cwd", root], { stdio: ["ignore", "pipe", "pipe"] })
    let text = ""
    child.stdout.on("data", (d: Buffer) => (text += d.toString()))
    child.stderr.on("data", (d: Buffer) => (text += d.toString()))
    child.on("exit", (code) => resolve({ text, error: code !== 0 }))
  })

// ---------------------------------------------------------------- operations
type Outcome = "ok" | "refused"
interface Op {
  readonly name: string
  readonly attempts: (v: Variant) => number
  /** Attempts in flight at once (default `inFlight`). */
  readonly inFlight?: number
  /** Slot-sequential attempts: attempt `i` of the batch runs in slot `i % inFlight` after the slot's previous one. */
  readonly attempt: (v: Variant, i: number, slotState: Array<boolean>) => Promise<{ outcome: Outcome; text: string }>
}
const judged = (r: Result, ok: (text: string) => boolean) => ({ outcome: (!r.error && ok(r.text) ? "ok" : "refused") as Outcome, text: r.text })
const same = () => attemptsPerOp

const allOps: Array<Op> = [
  {
    name: "write_file",
    attempts: same,
    attempt: async (v, i) => judged(await call("write_file", { path: `${v.dir}/w${i % batchSize}.txt`, content: `inside ${i}\n` }), () => true)
  },
  {
    name: "edit_file",
    attempts: same,
    attempt: async (v, i, st) => {
      const k = i % inFlight
      const [from, to] = st[k] === true ? ["tock", "tick"] : ["tick", "tock"]
      const r = judged(await call("edit_file", { path: `${v.dir}/e${k}.txt`, old_string: from, new_string: to }), () => true)
      if (r.outcome === "ok") st[k] = !(st[k] === true)
      return r
    }
  },
  {
    name: "read_file",
    attempts: same,
    attempt: async (v) => judged(await call("read_file", { path: `${v.dir}/notes.txt` }), (t) => t.includes("inside notes"))
  },
  {
    name: "move_file",
    attempts: same,
    attempt: async (v, i, st) => {
      const k = i % inFlight
      const out = st[k] === true
      const [from, to] = out ? [`mv${k}.txt`, `${v.dir}/m${k}.txt`] : [`${v.dir}/m${k}.txt`, `mv${k}.txt`]
      const r = judged(await call("move_file", { from, to }), () => true)
      if (r.outcome === "ok") st[k] = !out
      return r
    }
  },
  {
    name: "delete_file",
    attempts: same,
    attempt: async (v, i) => judged(await call("delete_file", { path: `${v.dir}/d${i % batchSize}.txt` }), () => true)
  },
  {
    name: "list_dir",
    attempts: (v) => (v.name === "file" ? 0 : attemptsPerOp),
    attempt: async (v) => judged(await call("list_dir", { path: v.dir }), (t) => t.includes("notes.txt"))
  },
  {
    name: "glob",
    attempts: (v) => (v.name === "file" ? 0 : attemptsPerOp),
    attempt: async (v) => judged(await call("glob", { pattern: "**/*", path: v.dir }), (t) => t.includes("notes.txt"))
  },
  {
    name: "grep",
    attempts: same,
    attempt: async (v) =>
      judged(await call("grep", { pattern: "inside notes|CANARY", path: v.name === "file" ? `${v.dir}/notes.txt` : v.dir }), (t) => t.includes("inside notes"))
  },
  {
    name: "sql_query",
    attempts: same,
    attempt: async (v) => judged(await call("sql_query", { sql: "SELECT v FROM t", connection: `${v.dir}/db.sqlite` }), (t) => t.includes("inside-row"))
  },
  {
    name: "undo/redo",
    attempts: (v) => (v.name === "file" ? 0 : Math.max(4, Math.floor(attemptsPerOp / 50))),
    // One at a time: undo restores the newest turn, which is then this attempt's write.
    inFlight: 1,
    attempt: async (v, i) => {
      const w = await cli(["tool", "write_file", JSON.stringify({ path: `${v.dir}/u${i % 8}.txt`, content: `inside ${i}\n` }), "--work-mode", "BUILD", "--policy", "allow-all"])
      const u = await cli(["undo", "--session", "cli"])
      const r = await cli(["redo", "--session", "cli"])
      // Succeeded: the write, and its undo or its redo, went through.
      return { outcome: (!w.error && (!u.error || !r.error) ? "ok" : "refused") as Outcome, text: w.text + u.text + r.text }
    }
  }
]
const ops = allOps.filter((o) => onlyOps === undefined || onlyOps.includes(o.name))

// ---------------------------------------------------------------- the campaign
interface Row {
  readonly op: string
  readonly variant: string
  attempts: number
  ok: number
  refused: number
  escapes: number
  ms: number
  readonly notes: Set<string>
}
const rows: Array<Row> = []
const loads: Array<number> = []
const started = Date.now()

for (const v of variants) {
  for (const op of ops) {
    const total = op.attempts(v)
    if (total === 0) continue
    const row: Row = { op: op.name, variant: v.name, attempts: 0, ok: 0, refused: 0, escapes: 0, ms: 0, notes: new Set() }
    rows.push(row)
    const size = op.name === "undo/redo" ? Math.min(total, 20) : batchSize
    for (let done = 0; done < total; done += size) {
      const n = Math.min(size, total - done)
      v.seed()
      for (let k = 0; k < inFlight; k++) rm(`mv${k}.txt`)
      const pairs = v.pairs(op.name)
      const slotState: Array<boolean> = Array.from({ length: inFlight }, () => false)
      const swapper = await startSwapper(root, pairs, (done / size) % 2 === 0 ? 0 : 400)
      const t0 = Date.now()
      const escapedText: Array<string> = []
      const width = op.inFlight ?? inFlight
      const slots = Array.from({ length: Math.min(width, n) }, async (_, k) => {
        for (let i = k; i < n; i += width) {
          const { outcome, text } = await op.attempt(v, i, slotState)
          row.attempts++
          if (text.includes(CANARY) || text.includes(CANARY_NAME)) escapedText.push(text.slice(0, 400))
          else if (outcome === "ok") row.ok++
          else {
            row.refused++
            if (row.notes.size < 6) row.notes.add(text.replace(/\s+/g, " ").slice(0, 140))
          }
        }
      })
      await Promise.all(slots)
      row.ms += Date.now() - t0
      await swapper.stop()
      loads.push(os.loadavg()[0] ?? 0)
      const changes = outsideChanges()
      const litter = [...snapshotOf(outside).keys()].filter((k) => k.includes(".minicode-tmp"))
      if (escapedText.length > 0 || changes.length > 0 || litter.length > 0) {
        row.escapes += escapedText.length + (changes.length > 0 ? 1 : 0)
        console.log(`ESCAPE ${op.name} [${v.name}] batch at ${done}:`)
        for (const t of escapedText.slice(0, 3)) console.log(`  output: ${t}`)
        for (const c of changes.slice(0, 10)) console.log(`  outside: ${c}`)
        for (const c of litter.slice(0, 5)) console.log(`  litter: ${c}`)
        restoreOutside()
      }
      const real = fs.lstatSync(path.join(root, pairs[0]?.[0] ?? "."), { throwIfNoEntry: false })
      if (real?.isSymbolicLink() === true) throw new Error(`swapper left ${pairs[0]?.[0]} a link`)
    }
    console.log(
      `${op.name.padEnd(12)} ${v.name.padEnd(7)} attempts ${row.attempts} ok ${row.ok} refused ${row.refused} escapes ${row.escapes} ${(row.ms / 1000).toFixed(1)}s  load ${(os.loadavg()[0] ?? 0).toFixed(2)}`
    )
  }
}
await client.close()

console.log(`\n| operation | variant | attempts | succeeded | refused | escapes | wall s |`)
console.log(`| --- | --- | ---: | ---: | ---: | ---: | ---: |`)
for (const r of rows) console.log(`| ${r.op} | ${r.variant} | ${r.attempts} | ${r.ok} | ${r.refused} | ${r.escapes} | ${(r.ms / 1000).toFixed(1)} |`)
const avg = loads.reduce((a, b) => a + b, 0) / Math.max(1, loads.length)
console.log(`\nload average (1 min) per batch: mean ${avg.toFixed(2)}, max ${Math.max(...loads).toFixed(2)}; total ${((Date.now() - started) / 1000).toFixed(0)}s; ${inFlight} in flight`)
console.log(`\nsample refusals:`)
for (const r of rows) for (const n of r.notes) console.log(`  ${r.op} [${r.variant}]: ${n}`)
fs.rmSync(tmp, { recursive: true, force: true })
if (rows.some((r) => r.escapes > 0)) process.exitCode = 1
