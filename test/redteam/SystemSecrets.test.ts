/**
 * Red team: the sandbox shows the system folders read-only, and its root keeps the owner's rights (capabilities
 * dropped, same uid). Was a hole: minicode running as root (a container) let sandboxed bash read `/etc` files
 * private to root (`/etc/mysql/debian.cnf`, `ssh_host_*_key`). Now every `/etc` entry other users may not read is
 * masked (adapters/shell/BwrapSandbox.ts `privateSystemEntries`).
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterEach, beforeAll, describe, expect, it } from "vitest"
import { privateSystemEntries } from "../../src/adapters/shell/BwrapSandbox.js"
import { bin, ensureBuilt, makeWorkspace } from "../serve/support/McpServeHarness.js"
import { title, unavailable } from "../support/Sandbox.js"

const cleanups: Array<() => unknown> = []
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c()
})
beforeAll(() => ensureBuilt())

describe("private system entries", () => {
  it("lists the files and folders other users may not read, not what is inside a private folder", () => {
    const top = fs.mkdtempSync(path.join(os.tmpdir(), "minicode-etc-"))
    cleanups.push(() => fs.rmSync(top, { recursive: true, force: true }))
    fs.mkdirSync(path.join(top, "open/deeper"), { recursive: true })
    fs.writeFileSync(path.join(top, "open/deeper/key"), "k", { mode: 0o600 })
    fs.writeFileSync(path.join(top, "open/readable"), "r", { mode: 0o644 })
    fs.mkdirSync(path.join(top, "private"), { mode: 0o700 })
    fs.writeFileSync(path.join(top, "private/inner"), "i", { mode: 0o600 })
    const found = privateSystemEntries(top)
    expect(found.files).toEqual([path.join(top, "open/deeper/key")])
    expect(found.dirs).toEqual([path.join(top, "private")])
  })
})

// What this machine holds in /etc that only its owner may read, and this process can read.
const readable = privateSystemEntries().files.filter((f) => {
  try {
    fs.accessSync(f, fs.constants.R_OK)
    return fs.statSync(f).size > 0
  } catch {
    return false
  }
})

describe.skipIf(unavailable !== undefined || readable.length === 0)(title("/etc files private to their owner"), () => {
  it("are unreadable from sandboxed bash", () => {
    const ws = makeWorkspace()
    cleanups.push(ws.cleanup)
    const tool = (name: string, args: unknown) =>
      spawnSync(process.execPath, [bin, "tool", name, JSON.stringify(args), "--cwd", ws.root, "--work-mode", "BUILD", "--policy", "allow-all", "--json"], { encoding: "utf8" })
    const files = readable.slice(0, 20)
    expect(tool("write_file", { path: "s.sh", content: `for f in ${files.join(" ")}; do wc -c < "$f" 2>/dev/null || echo 0; done\n` }).status).toBe(0)
    const r = tool("bash", { command: "sh s.sh" })
    const text = (JSON.parse(r.stdout) as { text: string }).text
    const sizes = text.split("\n").filter((l) => /^\s*\d+\s*$/.test(l)).map((l) => Number(l.trim()))
    expect(sizes).toHaveLength(files.length)
    expect(sizes.every((n) => n === 0), `${files.join(" ")}: ${text}`).toBe(true)
  })
})
