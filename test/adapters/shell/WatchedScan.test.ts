/**
 * The inotify-kept scan must find exactly what a fresh full scan finds after any change made between two calls:
 * a secret created deep in an ignored folder, a folder renamed or replaced, a subtree created at once, a flood of
 * events (the overflow net). Each case checks it was answered by the watchers (`lastMode`), and against a fresh
 * `WorkspaceScan.scan`. Then end to end: sandboxed `cat` of a secret created between two calls.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect, Layer } from "effect"
import { afterEach, describe, expect, it } from "vitest"
import * as BwrapSandbox from "../../../src/adapters/shell/BwrapSandbox.js"
import * as SandboxedShell from "../../../src/adapters/shell/SandboxedShell.js"
import * as ScanStore from "../../../src/adapters/shell/ScanStore.js"
import * as WatchedScan from "../../../src/adapters/shell/WatchedScan.js"
import * as WorkspaceScan from "../../../src/adapters/shell/WorkspaceScan.js"
import { Session } from "../../../src/ports/Session.js"
import { Shell } from "../../../src/ports/Shell.js"
import { title, unavailable } from "../../support/Sandbox.js"

const cleanups: Array<() => void> = []
afterEach(() => {
  for (const c of cleanups.splice(0)) c()
})

const tree = (files: ReadonlyArray<string>) => {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "minicode-wscan-")))
  for (const f of files) {
    fs.mkdirSync(path.dirname(path.join(root, f)), { recursive: true })
    if (!f.endsWith("/")) fs.writeFileSync(path.join(root, f), "x")
  }
  cleanups.push(() => fs.rmSync(root, { recursive: true, force: true }))
  return root
}

const rel = (root: string, hits: ReadonlyArray<WorkspaceScan.Hit>) => hits.map((h) => `${h.verdict} ${path.relative(root, h.path)}`).sort()

const deep = "node_modules/p/q/r/s/t/u/v/w"

/** A scanner watching from the first folder, warmed up to the watched mode. */
const warmed = async (root: string, options: WatchedScan.Options = {}) => {
  const scanner = WatchedScan.make({ minFolders: 1, ...options })
  cleanups.push(scanner.close)
  const scan = () => Effect.runPromise(scanner.scan(root)).then((hits) => rel(root, hits))
  await scan()
  await scan()
  await scan()
  expect(scanner.lastMode(root)).toBe("watch")
  /** Scans, and checks the answer is the full scan's. */
  const check = async (mode: "watch" | "full" = "watch") => {
    const got = await scan()
    expect(scanner.lastMode(root)).toBe(mode)
    // A fresh scanner's answer: the plain walk with protected content under other names added (ScanAliases).
    expect(got).toEqual(rel(root, await Effect.runPromise(WatchedScan.make({ watch: false }).scan(root))))
    return got
  }
  return { scan, check }
}

describe("WatchedScan", () => {
  it("a secret created in a deep ignored folder between two calls is found by the next one", async () => {
    const root = tree([`${deep}/index.js`, "src/a.ts", ".gitignore"])
    const { check } = await warmed(root)
    expect(await check()).toEqual([])
    fs.writeFileSync(path.join(root, deep, ".env"), "K=1")
    expect(await check()).toEqual([`mask ${deep}/.env`])
    // A hard link under a secret's name, a secret folder, a key made by rename: all entries of a watched folder.
    fs.linkSync(path.join(root, "src/a.ts"), path.join(root, deep, "id_rsa"))
    fs.mkdirSync(path.join(root, "src/.ssh"))
    fs.writeFileSync(path.join(root, "src/tmp"), "x")
    fs.renameSync(path.join(root, "src/tmp"), path.join(root, "src/server.pem"))
    // src/a.ts is the key's very file (the same inode): masked too (issue 19).
    expect(await check()).toEqual([`mask ${deep}/.env`, `mask ${deep}/id_rsa`, "mask src/.ssh", "mask src/a.ts", "mask src/server.pem"])
  })

  it("a folder renamed between calls: its secrets are found where they went, a folder replaced by another is read anew", async () => {
    const root = tree([`${deep}/.env`, "a/b/c/keep.txt", "other/x.txt"])
    const { check } = await warmed(root)
    expect(await check()).toEqual([`mask ${deep}/.env`])
    fs.renameSync(path.join(root, "node_modules/p/q"), path.join(root, "a/b/c/moved"))
    expect(await check()).toEqual(["mask a/b/c/moved/r/s/t/u/v/w/.env"])
    // Same name, another folder (a new inode renamed over it): the old one's content is forgotten.
    fs.mkdirSync(path.join(root, "new/d/e"), { recursive: true })
    fs.writeFileSync(path.join(root, "new/d/e/credentials.json"), "x")
    fs.rmSync(path.join(root, "a/b/c"), { recursive: true })
    fs.renameSync(path.join(root, "new"), path.join(root, "a/b/c"))
    expect(await check()).toEqual(["mask a/b/c/d/e/credentials.json"])
    // A folder swapped for a symlink: never followed.
    fs.renameSync(path.join(root, "a/b/c"), path.join(root, "c2"))
    fs.symlinkSync(path.join(root, "c2"), path.join(root, "a/b/c"))
    expect(await check()).toEqual(["mask c2/d/e/credentials.json"])
  })

  it("a whole subtree made at once (mkdir -p, then a secret at its bottom) is walked", async () => {
    const root = tree(["x.txt"])
    const { check } = await warmed(root)
    fs.mkdirSync(path.join(root, "dist/a/b/c/d/e/f/g/h"), { recursive: true })
    fs.writeFileSync(path.join(root, "dist/a/b/c/d/e/f/g/h/.npmrc"), "x")
    expect(await check()).toEqual(["mask dist/a/b/c/d/e/f/g/h/.npmrc"])
    fs.rmSync(path.join(root, "dist"), { recursive: true })
    expect(await check()).toEqual([])
  })

  it("more events between two calls than the overflow margin: the per-folder validation answers", async () => {
    const root = tree([`${deep}/index.js`])
    const { check } = await warmed(root, { eventLimit: 50 })
    for (let i = 0; i < 100; i++) fs.writeFileSync(path.join(root, `f${i}.txt`), "x")
    fs.writeFileSync(path.join(root, deep, "prod.tfvars"), "x")
    expect(await check("full")).toEqual([`mask ${deep}/prod.tfvars`])
    expect(await check("watch")).toEqual([`mask ${deep}/prod.tfvars`])
  })
})

describe("WatchedScan for long calls (watch: false)", () => {
  it("never sets the watchers itself, sees every change by the per-folder validation, and uses watchers others set", async () => {
    const root = tree([`${deep}/index.js`, "src/a.ts"])
    const scanner = WatchedScan.make({ minFolders: 1 })
    cleanups.push(scanner.close)
    const scan = (watch: boolean) => Effect.runPromise(scanner.scan(root, watch)).then((hits) => rel(root, hits))
    expect(await scan(false)).toEqual([])
    expect(scanner.lastMode(root)).toBe("cold")
    for (let i = 0; i < 3; i++) {
      fs.writeFileSync(path.join(root, deep, `k${i}.pem`), "x")
      expect(await scan(false)).toEqual(rel(root, WorkspaceScan.scan(root)))
      expect(scanner.lastMode(root)).toBe("stat")
    }
    // Two scans that want watchers (bash's) set them; a long call's scan is then answered by them.
    await scan(true)
    await scan(true)
    expect(scanner.lastMode(root)).toBe("full")
    fs.writeFileSync(path.join(root, "src", ".env"), "x")
    expect(await scan(false)).toEqual(rel(root, WorkspaceScan.scan(root)))
    expect(scanner.lastMode(root)).toBe("watch")
  })
})

describe("WatchedScan and the cached scan against a fresh scan, random changes", () => {
  // The cache is a tree of folders kept across scans (WorkspaceScan.Folder): every kind of change, in any order,
  // must leave it as a fresh walk finds the tree. A seeded generator: a failure replays.
  const random = (seed: number) => () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648)
  const secrets = [".env", "id_rsa", "key.pem", ".npmrc", "credentials.json"]
  const folders = (root: string): Array<string> => {
    const out: Array<string> = []
    const stack = [""]
    for (let rel = stack.pop(); rel !== undefined; rel = stack.pop()) {
      out.push(rel)
      // The state folder the stored cache lives in is minicode's, not the workspace's to change.
      for (const d of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) if (d.isDirectory() && d.name !== ".minicode") stack.push(path.join(rel, d.name))
    }
    return out
  }
  it.each([1, 2, 3])("seed %i: 40 rounds of creations, removals, renames and replacements (watched, cached, stored)", async (seed) => {
    const next = random(seed)
    const pick = <A>(xs: ReadonlyArray<A>): A => xs[Math.floor(next() * xs.length)] as A
    const root = tree(["a/b/c/x.txt", "node_modules/p/q/index.js", "src/s.ts", "d/e/f/g/y.txt"])
    const { check } = await warmed(root)
    const cache = WorkspaceScan.makeCache()
    let n = 0
    for (let round = 0; round < 40; round++) {
      for (let k = 0; k < 3; k++) {
        const dirs = folders(root)
        const dir = path.join(root, pick(dirs))
        const op = Math.floor(next() * 6)
        if (op === 0) fs.writeFileSync(path.join(dir, pick(secrets)), "x")
        else if (op === 1) fs.mkdirSync(path.join(dir, `n${n++}`, "m"), { recursive: true })
        else if (op === 2 && dir !== root) fs.rmSync(dir, { recursive: true, force: true })
        else if (op === 3 && dir !== root) {
          // A folder moved elsewhere in the tree (not into itself).
          const to = path.join(root, pick(dirs.filter((d) => !path.join(root, d).startsWith(dir))) ?? "", `r${n++}`)
          if (fs.existsSync(path.dirname(to))) fs.renameSync(dir, to)
        } else if (op === 4 && dir !== root) {
          // Replaced by another folder under the same name (a new inode).
          fs.mkdirSync(path.join(root, `t${n}`))
          fs.writeFileSync(path.join(root, `t${n}`, pick(secrets)), "x")
          fs.rmSync(dir, { recursive: true, force: true })
          fs.renameSync(path.join(root, `t${n++}`), dir)
        } else if (op === 5) for (const f of fs.readdirSync(dir)) if (secrets.includes(f)) fs.rmSync(path.join(dir, f), { force: true })
      }
      const fresh = rel(root, WorkspaceScan.scan(root))
      expect(await check()).toEqual(fresh)
      // The per-folder validation, a short settle margin passed: only what changed is read again.
      expect(rel(root, WorkspaceScan.scan(root, cache, 20))).toEqual(fresh)
      // A one-shot process: the tree the previous one saved (ScanStore), validated, saved again (the same short
      // settle margin, so its folders are trusted on their inode and ctime).
      const oneShot = WatchedScan.make({ watch: false, store: ScanStore.store, settleMs: 20 })
      expect(rel(root, await Effect.runPromise(oneShot.scan(root)))).toEqual(fresh)
      await new Promise((r) => setTimeout(r, 30))
    }
  })
})

describe.skipIf(unavailable !== undefined)(title("the watched scan behind the sandbox"), () => {
  it("a scan asked with `since` is served by one that started at or after it (grep's own scan), never by an older one", async () => {
    const root = tree(["src/a.ts", "lib/b.ts"])
    const scanner = WatchedScan.make({ watch: false })
    cleanups.push(() => scanner.close())
    const before = performance.now()
    const first = await Effect.runPromise(scanner.scan(root, false))
    fs.writeFileSync(path.join(root, "lib/.env"), "T=1\n")
    // Started after `before`: the same answer, not a new scan (the .env made since is not in it).
    const reused = await Effect.runPromise(scanner.scan(root, false, before))
    expect(reused).toBe(first)
    // Asked for a scan no older than now: a new one, which finds the .env.
    const fresh = await Effect.runPromise(scanner.scan(root, false, performance.now()))
    expect(rel(root, fresh)).toContain("mask lib/.env")
    expect(rel(root, fresh)).toEqual(rel(root, WorkspaceScan.scan(root)))
  })

  it("sandboxed cat of a secret created deep in an ignored folder between two calls shows nothing", async () => {
    const root = tree([`${deep}/index.js`])
    const scanner = WatchedScan.make({ minFolders: 1 })
    cleanups.push(scanner.close)
    const session = Layer.succeed(Session, Session.of({ id: "t", turn: 1, root, workMode: "BUILD", permissionMode: "AUTO", maxOutputBytes: 1 << 16 }))
    const layer = SandboxedShell.layer({ mode: "bwrap", unrestricted: false }).pipe(Layer.provide(BwrapSandbox.layer({ scan: scanner })), Layer.provide(session))
    const run = (command: string) =>
      Effect.runPromise(Effect.flatMap(Shell, (sh) => sh.run({ command, cwd: root, env: {}, timeoutMs: 10_000, maxOutputBytes: 1 << 16 })).pipe(Effect.provide(layer)))
    for (let i = 0; i < 3; i++) await run("true")
    expect(scanner.lastMode(root)).toBe("watch")
    fs.writeFileSync(path.join(root, deep, ".env"), "TOKEN=WATCHCANARY")
    const r = await run(`cat ${deep}/.env; echo done`)
    expect(scanner.lastMode(root)).toBe("watch")
    expect(r.stdout).toContain("done")
    expect(r.stdout).not.toContain("WATCHCANARY")
  })
})
