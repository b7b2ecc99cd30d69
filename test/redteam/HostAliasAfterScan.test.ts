/**
 * Red team (issue 22 with issue 19's protection kept): a one-shot read_file of a folder or a single-link file is
 * answered from the stored scan while no stored folder's contents changed (`ScanStore.unchanged`). The host (the
 * user, another program) makes aliases without minicode seeing it: a protected-name symlink to an ordinary file
 * (`docs/.env.local -> ../src/x.ts`), a hard link to a secret (`ln .env src/notes.txt`), after the last scan was
 * stored. The next one-shot read_file of the target must refuse, and keep refusing once the store is answered from.
 *
 * Through the built binary (allow-all).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { attackFile, attackWorkspace } from "./support/Attack.js"
import { stateOf } from "../support/StateHome.js"

const canary = "HOSTALIASCANARY"
const secret = "HOSTLINKSECRET"
const cleanups = attackFile()

describe("aliases the host makes after the last stored scan", () => {
  it("a protected-name symlink and a hard link made since: read_file of their targets is refused", async () => {
    const ws = attackWorkspace(cleanups)
    fs.mkdirSync(path.join(ws.root, "src"))
    fs.mkdirSync(path.join(ws.root, "docs"))
    fs.writeFileSync(path.join(ws.root, "src/x.ts"), `export const token = "${canary}"\n`)
    fs.writeFileSync(path.join(ws.root, "docs/readme.txt"), "hello\n")
    fs.writeFileSync(path.join(ws.root, ".env"), `TOKEN=${secret}\n`)
    const read = async (p: string) => {
      const r = await ws.toolAsync("read_file", { path: p })
      return { status: r.status, out: r.stdout + r.stderr }
    }
    // Honest: nothing names src/x.ts yet. These calls store the scan (the second finds the first's store).
    expect((await read("src/x.ts")).out).toContain(canary)
    expect((await read("docs/readme.txt")).out).toContain("hello")
    expect((await read("docs/readme.txt")).out).toContain("hello")
    expect(fs.existsSync(path.join(stateOf(ws.root), "scan-cache"))).toBe(true)

    fs.symlinkSync("../src/x.ts", path.join(ws.root, "docs/.env.local"))
    const target = await read("src/x.ts")
    expect(target.out).not.toContain(canary)
    expect(target.out).toContain("jail.alias")
    expect(target.status).not.toBe(0)

    fs.linkSync(path.join(ws.root, ".env"), path.join(ws.root, "src/notes.txt"))
    const linked = await read("src/notes.txt")
    expect(linked.out).not.toContain(secret)
    expect(linked.status).not.toBe(0)

    // The full scans above stored what they found: later calls, answered from the store, still refuse both.
    for (let i = 0; i < 2; i++) {
      expect((await read("src/x.ts")).out).not.toContain(canary)
      expect((await read("src/notes.txt")).out).not.toContain(secret)
      expect((await read("docs/readme.txt")).out).toContain("hello")
    }
  }, 300_000)

  it("a protected-name symlink to a folder made since, deep down: the folder's files are refused", async () => {
    const ws = attackWorkspace(cleanups)
    fs.mkdirSync(path.join(ws.root, "conf/keys"), { recursive: true })
    fs.mkdirSync(path.join(ws.root, "deep/a/b"), { recursive: true })
    fs.writeFileSync(path.join(ws.root, "conf/keys/main"), `KEY=${canary}\n`)
    expect((await ws.toolAsync("read_file", { path: "a.txt" })).status).toBe(0)
    expect((await ws.toolAsync("read_file", { path: "a.txt" })).status).toBe(0)
    fs.symlinkSync("../../../conf/keys", path.join(ws.root, "deep/a/b/.ssh"))
    for (let i = 0; i < 2; i++) {
      const r = await ws.toolAsync("read_file", { path: "conf/keys/main" })
      expect(r.stdout + r.stderr).not.toContain(canary)
    }
  }, 300_000)
})
