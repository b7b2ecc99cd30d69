/**
 * Check-then-use races against a real second process: a Python loop swaps `ws/rdir` (a real directory) with
 * `ws/rdir_evil` (a symlink to a folder outside the workspace) by `renameat2(RENAME_EXCHANGE)`, as fast as it can,
 * while this process resolves paths, judges them with the jail and acts on them through the real NodeFileSystem
 * (the chain's own steps), and then through the whole kernel with calls in parallel (as `mcp serve` runs them).
 * Afterwards the outside folder must be exactly as it was (no file created, moved, changed, removed or re-moded, no
 * temp file), and nothing read may carry its canary.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as os from "node:os"
import * as path from "node:path"
import { Context, Effect, Either, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as NodeFileSystem from "../../../src/adapters/fs/NodeFileSystem.js"
import * as SqliteEngine from "../../../src/adapters/sql/SqliteEngine.js"
import * as Jail from "../../../src/domain/jail/Jail.js"
import { createKernel } from "../../../src/index.js"
import type { FileSystemShape } from "../../../src/ports/FileSystem.js"
import { SqlEngine, type SqlRequest, type SqlResult } from "../../../src/ports/SqlEngine.js"
import { resolveWith } from "../../../src/kernel/PathResolver.js"

const python = spawnSync("python3", ["-c", "import ctypes; ctypes.CDLL(None).renameat2"]).status === 0
const linux = process.platform === "linux"

/** Swaps argv[1] and argv[2] until killed; prints "ready" after the first swap and the count on SIGTERM. */
const swapper = `
import ctypes, os, signal, sys
libc = ctypes.CDLL(None, use_errno=True)
a, b = sys.argv[1].encode(), sys.argv[2].encode()
n = 0
def stop(*_):
    sys.stdout.write("swaps %d\\n" % n); sys.stdout.flush(); os._exit(0)
signal.signal(signal.SIGTERM, stop)
while True:
    if libc.renameat2(-100, a, -100, b, 2) != 0:
        sys.stderr.write("renameat2: %s\\n" % os.strerror(ctypes.get_errno())); sys.exit(1)
    n += 1
    if n == 1:
        sys.stdout.write("ready\\n"); sys.stdout.flush()
`

const canary = "CANARY-OUTSIDE-"

/** Every entry below `dir` with its kind, mode and content: what "unchanged" means. */
const snapshot = (dir: string): Record<string, string> => {
  const out: Record<string, string> = {}
  const visit = (rel: string) => {
    for (const name of fs.readdirSync(path.join(dir, rel))) {
      const r = path.join(rel, name)
      const st = fs.lstatSync(path.join(dir, r))
      if (st.isDirectory()) {
        out[r] = `dir ${(st.mode & 0o7777).toString(8)}`
        visit(r)
      } else out[r] = `file ${(st.mode & 0o7777).toString(8)} ${fs.readFileSync(path.join(dir, r), "utf8")}`
    }
  }
  visit("")
  return out
}

let base: string
let ws: string
let outside: string
let swap: ChildProcess | undefined
let swapOutput = ""

const startSwapper = async () => {
  swapOutput = ""
  const child = spawn("python3", ["-c", swapper, path.join(ws, "rdir"), path.join(ws, "rdir_evil")], { stdio: ["ignore", "pipe", "pipe"] })
  child.stdout.on("data", (d: Buffer) => (swapOutput += d.toString()))
  child.stderr.on("data", (d: Buffer) => (swapOutput += d.toString()))
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`swapper did not start: ${swapOutput}`)), 10_000)
    child.stdout.on("data", () => {
      if (swapOutput.includes("ready")) {
        clearTimeout(timer)
        resolve()
      }
    })
    child.on("exit", () => reject(new Error(`swapper exited: ${swapOutput}`)))
  })
  swap = child
}

const stopSwapper = async (): Promise<number> => {
  const child = swap
  if (child === undefined) return 0
  swap = undefined
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()))
  child.kill("SIGTERM")
  await exited
  return Number(/swaps (\d+)/.exec(swapOutput)?.[1] ?? "0")
}

beforeAll(() => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "minicode-race-")))
  ws = path.join(base, "ws")
  outside = path.join(base, "outside")
  fs.mkdirSync(path.join(ws, "rdir"), { recursive: true })
  fs.mkdirSync(path.join(ws, "loot"))
  fs.mkdirSync(outside)
  // The same names on both sides: an escape would hit the outside one.
  for (const name of ["secret.txt", "del.txt", "keep.txt"]) {
    fs.writeFileSync(path.join(outside, name), canary + name)
    fs.writeFileSync(path.join(ws, "rdir", name), `inside ${name}`)
  }
  fs.chmodSync(path.join(outside, "keep.txt"), 0o640)
  // A database on each side, the outside one holding the canary.
  const Database: new (file: string) => { exec(sql: string): void; close(): void } = createRequire(import.meta.url)("better-sqlite3")
  for (const [file, value] of [[path.join(outside, "out.db"), canary + "db"], [path.join(ws, "rdir", "out.db"), "inside db"]] as const) {
    const db = new Database(file)
    db.exec(`CREATE TABLE t (v TEXT); INSERT INTO t VALUES ('${value}')`)
    db.close()
  }
  // A WAL database inside; outside, a log under its name (an escape would write or truncate it, or make a -shm).
  const wal = new Database(path.join(ws, "rdir", "wal.db"))
  wal.exec("PRAGMA journal_mode = WAL; CREATE TABLE t (v TEXT); INSERT INTO t VALUES ('inside wal')")
  wal.close()
  fs.writeFileSync(path.join(outside, "wal.db-wal"), canary + "wal")
  fs.symlinkSync(outside, path.join(ws, "rdir_evil"))
})

afterAll(async () => {
  await stopSwapper()
  fs.rmSync(base, { recursive: true, force: true })
})

const enc = new TextEncoder()
const dec = new TextDecoder()

describe.skipIf(!linux || !python)("file operations against a concurrent RENAME_EXCHANGE swapper", () => {
  it("10,000 resolve-judge-act steps through NodeFileSystem: nothing outside is created, read, moved, removed or changed", async () => {
    const before = snapshot(outside)
    const fsys: FileSystemShape = Effect.runSync(NodeFileSystem.make)
    const resolve = resolveWith(fsys)
    const ctx: Jail.JailContext = { root: ws, unrestricted: false }
    const judged = (input: string, access: Jail.Access) =>
      Effect.runSync(
        Effect.map(Effect.either(resolve(ws, input, ws)), (r) =>
          Either.isRight(r) && Jail.check(ctx, r.right, access).ok ? r.right : undefined
        )
      )
    const attempt = <A>(effect: Effect.Effect<A, unknown>) => Effect.runSync(Effect.either(effect))
    const reads: Array<string> = []
    const counts = { attempts: 0, allowed: 0, done: 0 }
    await startSwapper()
    const deadline = Date.now() + 20_000
    for (let i = 0; i < 2_000 && Date.now() < deadline; i++) {
      const ops: ReadonlyArray<() => boolean> = [
        () => {
          const f = judged(`rdir/w${i}.txt`, "write")
          if (f === undefined) return false
          if (!f.exists) attempt(fsys.makeDirectory(path.dirname(f.real)))
          return Either.isRight(attempt(fsys.writeFile(f.real, enc.encode(`w${i}`), { expect: f.exists ? { dev: f.dev, ino: f.ino } : "absent" })))
        },
        () => {
          const f = judged("rdir/secret.txt", "read")
          if (f === undefined || f.kind !== "file") return false
          const r = attempt(fsys.readFile(f.real, { dev: f.dev, ino: f.ino }))
          if (Either.isRight(r)) reads.push(dec.decode(r.right))
          // Unchecked too, as grep reads the files a walk found.
          const u = attempt(fsys.readFile(path.join(ws, "rdir/keep.txt")))
          if (Either.isRight(u)) reads.push(dec.decode(u.right))
          return Either.isRight(r)
        },
        () => {
          const from = judged("rdir/secret.txt", "write")
          const to = judged(`loot/m${i}.txt`, "write")
          if (from === undefined || to === undefined || !from.exists) return false
          const moved = attempt(fsys.rename(from.entry, to.entry))
          if (Either.isLeft(moved)) return false
          reads.push(fs.readFileSync(path.join(ws, `loot/m${i}.txt`), "utf8"))
          // Put it back for the next round (itself a racing move).
          const back = judged("rdir/secret.txt", "write")
          const src = judged(`loot/m${i}.txt`, "write")
          if (back !== undefined && src !== undefined) attempt(fsys.rename(src.entry, back.entry))
          return true
        },
        () => {
          const f = judged("rdir/del.txt", "write")
          if (f === undefined || !f.exists) {
            const w = judged("rdir/del.txt", "write")
            if (w !== undefined && !w.exists) attempt(fsys.writeFile(w.real, enc.encode("inside del.txt"), { expect: "absent" }))
            return false
          }
          return Either.isRight(attempt(fsys.remove(f.entry)))
        },
        () => {
          const f = judged(`rdir/sub${i % 7}/deeper`, "write")
          return f !== undefined && Either.isRight(attempt(fsys.makeDirectory(f.real)))
        },
        () => {
          const f = judged("rdir/keep.txt", "write")
          return f !== undefined && f.exists && Either.isRight(attempt(fsys.chmod(f.entry, 0o600 | (i % 2 === 0 ? 0o044 : 0))))
        }
      ]
      for (const op of ops) {
        counts.attempts++
        if (op()) counts.done++
      }
    }
    const swaps = await stopSwapper()
    console.log(`race (adapter): ${counts.attempts} attempts, ${counts.done} completed, ${swaps} swaps`)
    expect(swaps).toBeGreaterThan(1000)
    expect(counts.attempts).toBeGreaterThanOrEqual(10_000)
    // The attack ran both ways: some operations got through (inside), some were stopped.
    expect(counts.done).toBeGreaterThan(0)
    expect(counts.done).toBeLessThan(counts.attempts)
    expect(reads.filter((r) => r.includes(canary))).toEqual([])
    expect(snapshot(outside)).toEqual(before)
  }, 60_000)

  it("parallel write_file, move_file, read_file and delete_file calls through the kernel leave the outside alone", async () => {
    const before = snapshot(outside)
    const kernel = createKernel({ workspace: ws, workMode: "BUILD", sandbox: "none" })
    await startSwapper()
    const texts: Array<string> = []
    let calls = 0
    let ok = 0
    const deadline = Date.now() + 15_000
    try {
      for (let round = 0; round < 150 && Date.now() < deadline; round++) {
        const batch = [
          kernel.run("write_file", { path: `rdir/k${round}.txt`, content: "k" }),
          kernel.run("read_file", { path: "rdir/secret.txt" }),
          kernel.run("move_file", { from: "rdir/secret.txt", to: `loot/k${round}.txt` }),
          kernel.run("read_file", { path: `loot/k${round}.txt` }),
          kernel.run("move_file", { from: `loot/k${round}.txt`, to: "rdir/secret.txt" }),
          kernel.run("write_file", { path: `rdir/n${round}/x.txt`, content: "x" }),
          kernel.run("delete_file", { path: `rdir/k${round}.txt` }),
          kernel.run("list_dir", { path: "rdir" })
        ]
        for (const r of await Promise.all(batch)) {
          calls++
          if (r.ok) {
            ok++
            texts.push(r.text)
          } else texts.push(r.error.message)
        }
      }
    } finally {
      await kernel.close()
    }
    const swaps = await stopSwapper()
    const reasons = new Map<string, number>()
    for (const t of texts) reasons.set(t.replace(/\d+/g, "N").slice(0, 90), (reasons.get(t.replace(/\d+/g, "N").slice(0, 90)) ?? 0) + 1)
    console.log(`race (kernel): ${calls} calls, ${ok} succeeded, ${swaps} swaps`, [...reasons].sort((a, b) => b[1] - a[1]).slice(0, 12))
    expect(calls).toBeGreaterThan(100)
    expect(ok).toBeGreaterThan(0)
    expect(texts.filter((t) => t.includes(canary))).toEqual([])
    expect(snapshot(outside)).toEqual(before)
  }, 60_000)

  /**
   * sql_query on `file` while the swapper runs, as SqlTool does it: resolve, judge, then hand the engine the real
   * path and the identity the jail saw. Each attempt's outcome is counted by `key` (a refusal by its reason).
   */
  const sqlRace = async (file: string, access: Jail.Access, max: number, request: (attempt: number) => SqlRequest, key: (attempt: number, result: SqlResult) => string) => {
    const fsys: FileSystemShape = Effect.runSync(NodeFileSystem.make)
    const resolve = resolveWith(fsys)
    const ctx: Jail.JailContext = { root: ws, unrestricted: false }
    const seen = new Map<string, number>()
    await startSwapper()
    let attempts = 0
    const deadline = Date.now() + 20_000
    // The engine runs each statement in a query process of its own (kept warm), so each attempt is an async exchange.
    await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const engine = Context.get(yield* Layer.build(SqliteEngine.layer), SqlEngine)
          for (; attempts < max && Date.now() < deadline; attempts++) {
            const r = yield* Effect.either(resolve(ws, file, ws))
            if (Either.isLeft(r) || !Jail.check(ctx, r.right, access).ok || r.right.kind !== "file") continue
            const result = yield* Effect.either(engine.run({ dialect: "sqlite", file: r.right.real, expect: { dev: r.right.dev, ino: r.right.ino } }, request(attempts)))
            const k = Either.isRight(result) ? key(attempts, result.right) : result.left.reason.replace(/\/[^ ]*/g, "PATH").slice(0, 80)
            seen.set(k, (seen.get(k) ?? 0) + 1)
          }
        })
      )
    )
    const swaps = await stopSwapper()
    console.log(`race (sqlite ${file}): ${attempts} attempts, ${swaps} swaps`, [...seen])
    return { attempts, seen }
  }

  it("sql_query on rdir/out.db opens the workspace database or nothing, never the one outside", async () => {
    const before = snapshot(outside)
    const request = { statements: ["SELECT v FROM t"], params: [], maxRows: 10, write: false, timeoutMs: 5_000 }
    const { attempts, seen } = await sqlRace("rdir/out.db", "read", 5_000, () => request, (_, r) => String(r.results[0]?.rows[0]?.[0]))
    expect(attempts).toBeGreaterThanOrEqual(500)
    expect(seen.get("inside db") ?? 0).toBeGreaterThan(0)
    expect([...seen.keys()].filter((k) => k.includes(canary))).toEqual([])
    expect(snapshot(outside)).toEqual(before)
  }, 60_000)

  // SQLite opens a WAL database's -wal and -shm after the file itself, by a name: the folder on the way, swapped
  // meanwhile, sent them outside (a write made and wrote out.db-wal there). The query process has the folder
  // pinned by a mount (SqliteFolderPin), so every name it makes stays in the folder the jail judged.
  it("sql_query writes and reads on rdir/wal.db (WAL): its -wal and -shm are made in rdir or nowhere, never outside", async () => {
    const before = snapshot(outside)
    const write = { statements: ["INSERT INTO t VALUES ('w')"], params: [], maxRows: 10, write: true, timeoutMs: 5_000 }
    const read = { statements: ["SELECT count(*) FROM t"], params: [], maxRows: 10, write: false, timeoutMs: 5_000 }
    const { attempts, seen } = await sqlRace("rdir/wal.db", "write", 3_000, (n) => (n % 2 === 0 ? write : read), (n) => (n % 2 === 0 ? "written" : "read"))
    expect(attempts).toBeGreaterThanOrEqual(300)
    expect(seen.get("written") ?? 0).toBeGreaterThan(0)
    expect(snapshot(outside)).toEqual(before)
  }, 60_000)
})
