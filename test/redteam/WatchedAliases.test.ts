/**
 * Red team (issue 19), with issue 22's per-call floor: in `mcp serve` the jail's protected-alias question (read_file,
 * write_file, edit_file) is answered by the watched workspace scan once watching has started (from the second call
 * on a tree of 2,000 folders or more), not by an `lstat` of every folder per call (67 ms → 2 ms per read_file on the
 * 60k bench tree). The host (the user, another program) then makes aliases between two calls: a protected-name
 * symlink to an ordinary file (`docs/.env.local -> ../src/x.ts`), a hard link to a secret (`ln .env src/notes.txt`),
 * a protected-name symlink to a folder (`.ssh -> keys`). The next call through the same server must refuse each.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { connect, textOf } from "../serve/support/McpServeHarness.js"
import { attackFile, attackWorkspace } from "./support/Attack.js"

const canary = "WATCHEDALIASCANARY"
const secret = "WATCHEDLINKSECRET"
const cleanups = attackFile()

/** The inotify watches a process holds (what `fs.watch` made), from /proc. */
const inotifyWatches = (pid: number): number => {
  let n = 0
  for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
    let link = ""
    try {
      link = fs.readlinkSync(`/proc/${pid}/fd/${fd}`)
    } catch {
      continue
    }
    if (link !== "anon_inode:inotify") continue
    n += fs.readFileSync(`/proc/${pid}/fdinfo/${fd}`, "utf8").split("\n").filter((l) => l.startsWith("inotify wd:")).length
  }
  return n
}

describe("aliases the host makes while mcp serve watches the tree", () => {
  it("read_file of a new protected symlink's target, of a new hard link to a secret, and below a linked folder is refused", async () => {
    const ws = attackWorkspace(cleanups)
    // Enough folders for watching to start (WatchedScan's minFolders).
    for (let i = 0; i < 2_100; i++) fs.mkdirSync(path.join(ws.root, "pkg", String(i % 30), String(i)), { recursive: true })
    fs.mkdirSync(path.join(ws.root, "src"))
    fs.mkdirSync(path.join(ws.root, "docs"))
    fs.mkdirSync(path.join(ws.root, "keys"))
    fs.writeFileSync(path.join(ws.root, "src/x.ts"), `export const token = "${canary}"\n`)
    fs.writeFileSync(path.join(ws.root, "keys/id"), `${canary}-key\n`)
    fs.writeFileSync(path.join(ws.root, ".env"), `TOKEN=${secret}\n`)
    const s = await connect(ws.root, ["--allow-all", "--no-ask"])
    cleanups.push(() => s.close())
    const read = async (p: string) => textOf(await s.client.callTool({ name: "read_file", arguments: { path: p } }, undefined, { timeout: 60_000 }))
    // Honest, and watching starts.
    for (let i = 0; i < 3; i++) expect(await read("src/x.ts")).toContain(canary)
    expect(await read("keys/id")).toContain(canary)
    // The server watches the tree now (every folder), so what follows is answered from the watchers' events.
    expect(inotifyWatches(s.pid)).toBeGreaterThan(2_000)

    fs.symlinkSync("../src/x.ts", path.join(ws.root, "docs/.env.local"))
    const target = await read("src/x.ts")
    expect(target).not.toContain(canary)
    expect(target).toContain("jail.alias")

    fs.linkSync(path.join(ws.root, ".env"), path.join(ws.root, "src/notes.txt"))
    const linked = await read("src/notes.txt")
    expect(linked).not.toContain(secret)
    expect(linked).toContain("jail.alias")

    fs.symlinkSync("keys", path.join(ws.root, ".ssh"))
    const below = await read("keys/id")
    expect(below).not.toContain(canary)
    expect(below).toContain("jail.alias")

    // Honest files stay readable (a target stays protected after its link is gone: ScanAliases remembers it).
    fs.writeFileSync(path.join(ws.root, "src/y.ts"), "export const honest = 1\n")
    expect(await read("src/y.ts")).toContain("honest")
  }, 120_000)
})
