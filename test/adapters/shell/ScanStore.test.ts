/**
 * The scan's cache kept across processes (`.minicode/scan-cache`): a fresh scanner (as a new process has) that
 * starts from the stored cache must find exactly what a full scan finds, after any change made since the store was
 * written (a secret created deep down, a folder renamed to a secret name, `.git` moved, a folder replaced by another
 * of the same name); a corrupt, tampered, foreign or unsafe file loads as nothing, and the scan is then a full one.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as StateFile from "../../../src/adapters/fs/StateFile.js"
import * as ScanStore from "../../../src/adapters/shell/ScanStore.js"
import * as WatchedScan from "../../../src/adapters/shell/WatchedScan.js"
import * as WorkspaceScan from "../../../src/adapters/shell/WorkspaceScan.js"
import { stateOf } from "../../support/StateHome.js"

const roots: Array<string> = []
afterAll(() => {
  for (const r of roots) fs.rmSync(r, { recursive: true, force: true })
})

const files = [
  "src/app/main.ts",
  "src/lib/util.ts",
  "node_modules/p/q/r/s/t/index.js",
  "deep/a/b/c/d/conf/settings.json",
  "vendor/lib/x.c",
  "stash/readme",
  "dist/.env",
  ".git/HEAD",
  ".git/config",
  ".git/objects/info/packs",
  ".git/objects/pack/pack-1.idx",
  ".git/refs/heads/main",
  // A workspace minicode has run in: its state folder exists (saving the store then changes no scanned folder).
  ".minicode/.gitignore"
]
const tree = () => {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "minicode-scanstore-")))
  roots.push(root)
  for (const f of [...files, ...Array.from({ length: 40 }, (_, i) => `gen/d${i % 7}/e${i}/f.txt`)]) {
    fs.mkdirSync(path.dirname(path.join(root, f)), { recursive: true })
    if (!f.endsWith("/")) fs.writeFileSync(path.join(root, f), "x")
  }
  return root
}

const rel = (root: string, hits: ReadonlyArray<WorkspaceScan.Hit>) => hits.map((h) => `${h.verdict} ${h.kind} ${path.relative(root, h.path)}`).sort()
/** A scanner as a new one-shot process has: nothing in memory, the stored cache, no watchers. */
const fresh = (root: string) => Effect.runSync(WatchedScan.oneShot().scan(root))
const full = (root: string) => rel(root, WorkspaceScan.scan(root))
/** Past the settle window, so the stored folders are trusted on their inode and ctime alone. */
const settle = () => new Promise((r) => setTimeout(r, WorkspaceScan.defaultSettleMs + 200))
const storeFile = (root: string) => path.join(stateOf(root), "scan-cache")
/** A cached tree as path → what is known of the folder (its subfolders in their list's order). */
const flat = (top: WorkspaceScan.Folder | undefined) => {
  const out = new Map<string, { ino: number; ctimeMs: number; hits: ReadonlyArray<WorkspaceScan.Hit>; subs: Array<string> }>()
  if (top === undefined) return out
  WorkspaceScan.eachBelow(top, (f) => {
    const subs: Array<string> = []
    for (let c = f.first; c !== undefined; c = c.next) subs.push(c.name)
    out.set(WorkspaceScan.pathOf(f), { ino: f.ino, ctimeMs: f.ctimeMs, hits: f.hits, subs })
  })
  return out
}

const cases: Record<string, (root: string) => ReadonlyArray<string>> = {
  "a new .env deep in a folder": (root) => {
    fs.writeFileSync(path.join(root, "deep/a/b/c/d/conf/.env"), "S=1")
    return ["mask file deep/a/b/c/d/conf/.env"]
  },
  "a folder renamed to a secret name": (root) => {
    fs.renameSync(path.join(root, "deep/a/b/c/d/conf"), path.join(root, "deep/a/b/c/d/.ssh"))
    return ["mask directory deep/a/b/c/d/.ssh"]
  },
  "a .git moved into a subfolder": (root) => {
    fs.renameSync(path.join(root, ".git"), path.join(root, "vendor/lib/.git"))
    return ["pin directory vendor/lib/.git"]
  },
  "a .git moved under another name (a bare store)": (root) => {
    fs.renameSync(path.join(root, ".git"), path.join(root, "stash/old"))
    return ["pin directory stash/old"]
  },
  "a folder replaced by another with the same name": (root) => {
    fs.rmSync(path.join(root, "src/lib"), { recursive: true })
    fs.mkdirSync(path.join(root, "elsewhere/x"), { recursive: true })
    fs.writeFileSync(path.join(root, "elsewhere/x/id_rsa"), "k")
    fs.renameSync(path.join(root, "elsewhere"), path.join(root, "src/lib"))
    return ["mask file src/lib/x/id_rsa"]
  },
  "a secret in a folder created in an unchanged subtree's leaf": (root) => {
    fs.mkdirSync(path.join(root, "node_modules/p/q/r/s/t/u"))
    fs.writeFileSync(path.join(root, "node_modules/p/q/r/s/t/u/.npmrc"), "t")
    return ["mask file node_modules/p/q/r/s/t/u/.npmrc"]
  }
}

describe("ScanStore: the scan's cache across processes", () => {
  const seeded = new Map<string, string>()
  beforeAll(async () => {
    for (const name of [...Object.keys(cases), "round trip", "corrupt", "format 1", "format 3", "odd names"]) seeded.set(name, tree())
    // Folder names the line format must carry as they are: quotes, backslashes, spaces, a newline, a tab, a lone
    // surrogate's bytes are not a name here (the file system's names are bytes; Node reads them as UTF-8).
    for (const name of ['a "quoted" dir', "back\\slash", "new\nline", "tab\there", " lead", "trail ", "ünï ✓", "-1 0 - \"\""]) {
      fs.mkdirSync(path.join(seeded.get("odd names") ?? "", "odd", name, "in"), { recursive: true })
      fs.writeFileSync(path.join(seeded.get("odd names") ?? "", "odd", name, "in", ".env"), "S=1")
    }
    await settle()
    // The first process: a full scan, saved.
    for (const root of seeded.values()) fresh(root)
  }, 30_000)

  it("round trip: what loads is what the scan saved, settled, and a scan from it equals a full scan", () => {
    const root = seeded.get("round trip") ?? ""
    const loaded = flat(ScanStore.load(root))
    expect(loaded.size).toBeGreaterThan(40)
    const inMemory: WorkspaceScan.Cache = WorkspaceScan.makeCache()
    WorkspaceScan.scan(root, inMemory)
    const scanned = flat(inMemory.get(root))
    expect([...loaded.keys()].sort()).toEqual([...scanned.keys()].sort())
    for (const [dir, f] of loaded) {
      // Settled when saved (NaN otherwise); a fresh scan's read is not, so its ctime is compared with the inode's.
      expect(Number.isNaN(f.ctimeMs), dir).toBe(false)
      expect({ ...f, ctimeMs: 0 }, dir).toEqual({ ...scanned.get(dir), ctimeMs: 0 })
      expect(f.ctimeMs, dir).toBe(fs.lstatSync(dir).ctimeMs)
    }
    expect(rel(root, fresh(root))).toEqual(full(root))
    expect(full(root)).toContain("mask file dist/.env")
    expect(full(root)).toContain("pin directory .git")
  })

  for (const [name, change] of Object.entries(cases)) {
    it(`a change between two processes is seen: ${name}`, () => {
      const root = seeded.get(name) ?? ""
      // The stored cache trusts the folders (settled), so only their inode and ctime can reveal the change.
      const loaded = [...flat(ScanStore.load(root)).values()]
      expect(loaded.length).toBeGreaterThan(40)
      expect(loaded.every((f) => f.ino !== -1 && !Number.isNaN(f.ctimeMs))).toBe(true)
      const expected = change(root)
      const got = rel(root, fresh(root))
      for (const e of expected) expect(got).toContain(e)
      expect(got).toEqual(full(root))
      // And the next process, from what this one saved.
      expect(rel(root, fresh(root))).toEqual(full(root))
    })
  }

  it("a corrupt, tampered, foreign or unsafe store loads as nothing, and the scan is a full one", () => {
    const root = seeded.get("corrupt") ?? ""
    const file = storeFile(root)
    const good = fs.readFileSync(file)
    expect(ScanStore.load(root)).toBeDefined()
    const broken = (what: string, bytes: Buffer | string, after?: () => void) => {
      fs.writeFileSync(file, bytes, { mode: 0o600 })
      after?.()
      expect(ScanStore.load(root), what).toBeUndefined()
      expect(rel(root, fresh(root)), what).toEqual(full(root))
      fs.rmSync(file, { force: true })
      fs.writeFileSync(file, good, { mode: 0o600 })
      fs.chmodSync(file, 0o600)
      expect(ScanStore.load(root), `${what}: the good file loads again`).toBeDefined()
    }
    const text = good.toString("utf8")
    const nl = text.indexOf("\n")
    // A mask removed from the body (the checksum no longer holds).
    broken("a mask removed", text.replace(/\["dist\/\.env",0,0\]/, ""))
    broken("a flipped byte", Buffer.from(text.slice(0, nl + 20) + (text[nl + 20] === "1" ? "2" : "1") + text.slice(nl + 21)))
    broken("truncated", text.slice(0, Math.floor(text.length / 2)))
    broken("empty", "")
    broken("garbage", "\u0000\u0001not json\n[]")
    broken("another minicode's", text.replace(/"code":"[^"]*"/, '"code":"other@1"'))
    broken("group-readable", good, () => fs.chmodSync(file, 0o644))
    // Another workspace's store (same code, valid checksum): keyed by its root.
    const other = tree()
    fresh(other)
    broken("another workspace's", fs.readFileSync(storeFile(other)))
    // A symlink in place of the file.
    fs.rmSync(file)
    fs.symlinkSync(storeFile(other), file)
    expect(ScanStore.load(root)).toBeUndefined()
    fs.rmSync(file)
    fs.writeFileSync(file, good, { mode: 0o600 })
    expect(ScanStore.load(root)).toBeDefined()
  })

  it("folder names with quotes, backslashes, spaces, a newline or a tab: stored and loaded as they are, the scan from them a full one's", () => {
    const root = seeded.get("odd names") ?? ""
    const loaded = flat(ScanStore.load(root))
    const inMemory: WorkspaceScan.Cache = WorkspaceScan.makeCache()
    WorkspaceScan.scan(root, inMemory)
    const scanned = flat(inMemory.get(root))
    expect([...loaded.keys()].sort()).toEqual([...scanned.keys()].sort())
    expect([...loaded.keys()]).toContain(path.join(root, "odd", "new\nline", "in"))
    for (const [dir, f] of loaded) expect({ ...f, ctimeMs: 0 }, dir).toEqual({ ...scanned.get(dir), ctimeMs: 0 })
    expect(ScanStore.unchanged(root)?.map((h) => `${h.verdict} ${h.kind} ${path.relative(root, h.path)}`).sort()).toEqual(full(root))
    expect(full(root)).toContain(`mask file ${path.join("odd", 'a "quoted" dir', "in", ".env")}`)
    expect(rel(root, fresh(root))).toEqual(full(root))
  })

  it("a store in format 3 (one JSON array) or 4, or with a folder out of the walk's order, loads as nothing", () => {
    const root = seeded.get("format 3") ?? ""
    expect(ScanStore.load(root)).toBeDefined()
    const st = fs.lstatSync(root)
    StateFile.write(root, "scan-cache", "minicode-scan/3", JSON.stringify([root, st.dev, st.ino, [[-1, "", st.ino, st.ctimeMs, []]]]))
    expect(ScanStore.load(root)).toBeUndefined()
    expect(ScanStore.unchanged(root)).toBeUndefined()
    expect(rel(root, fresh(root))).toEqual(full(root))
    // Format 5 written by this code, a folder's line moved after another folder's subfolders (its parent no longer
    // on the way down to it): not what a walk writes.
    const body = StateFile.read(root, "scan-cache", "minicode-scan/6") ?? ""
    const lines = body.split("\n")
    const at = lines.findIndex((l) => l.endsWith(' "src"'))
    expect(at).toBeGreaterThan(1)
    const moved = [...lines.slice(0, at), ...lines.slice(at + 1), lines[at] ?? ""]
    StateFile.write(root, "scan-cache", "minicode-scan/6", moved.join("\n"))
    expect(ScanStore.load(root)).toBeUndefined()
    expect(ScanStore.unchanged(root)).toBeUndefined()
    expect(rel(root, fresh(root))).toEqual(full(root))
    // The same layout as format 4, which missed symlinks at control sub-folders (`.kiro/settings`).
    StateFile.write(root, "scan-cache", "minicode-scan/4", body)
    expect(ScanStore.load(root)).toBeUndefined()
    expect(ScanStore.unchanged(root)).toBeUndefined()
    expect(rel(root, fresh(root))).toEqual(full(root))
    expect(ScanStore.load(root)).toBeDefined()
  })

  it("a store in format 1 (the map of paths', written by this same code) loads as nothing, never as a tree", () => {
    const root = seeded.get("format 1") ?? ""
    expect(ScanStore.load(root)).toBeDefined()
    // Format 1's body: an entry per folder listing its subfolders' names; here the root alone, said to hold nothing.
    const st = fs.lstatSync(root)
    const entry = [-1, "", st.ino, st.ctimeMs, 1, [], []]
    StateFile.write(root, "scan-cache", "minicode-scan/1", JSON.stringify([root, st.dev, st.ino, [entry]]))
    expect(StateFile.read(root, "scan-cache", "minicode-scan/1")).toBeDefined()
    expect(ScanStore.load(root)).toBeUndefined()
    expect(rel(root, fresh(root))).toEqual(full(root))
    expect(full(root)).toContain("mask file dist/.env")
    expect(ScanStore.load(root)).toBeDefined()
  })
})
