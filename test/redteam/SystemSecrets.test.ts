/**
 * Red team: the sandbox shows the system folders read-only, and its root keeps the owner's rights (capabilities
 * dropped, same uid). Were holes, with minicode running as root (a container): sandboxed bash read `/etc` files
 * private to root (`/etc/mysql/debian.cnf`, `ssh_host_*_key`), then root-only files under `/opt` and
 * `/usr/local/etc`. Now every entry other users may not read, in the secret places the sandbox shows, is masked
 * (domain/sandbox/HostSecrets.ts, adapters/shell/HostWalk.ts, walked once per process). `/var`, `/srv`, `/root`,
 * `/home`, `/run`, `/boot` are not bound at all: the tests below hold that too.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import * as HostWalk from "../../src/adapters/shell/HostWalk.js"
import { bin, makeGitWorkspace } from "../serve/support/McpServeHarness.js"
import { title, unavailable } from "../support/Sandbox.js"
import { attackFile } from "./support/Attack.js"

const cleanups = attackFile()

const tree = (top: string, files: Record<string, { readonly content: string; readonly mode: number }>, dirs: Record<string, number> = {}) => {
  for (const [d, mode] of Object.entries(dirs)) fs.mkdirSync(path.join(top, d), { recursive: true, mode })
  for (const [f, { content, mode }] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(top, f)), { recursive: true })
    fs.writeFileSync(path.join(top, f), content, { mode })
  }
  for (const [d, mode] of Object.entries(dirs)) fs.chmodSync(path.join(top, d), mode)
}

describe("the walk for entries other users may not read", () => {
  const temp = () => {
    const top = fs.mkdtempSync(path.join(os.tmpdir(), "minicode-etc-"))
    fs.chmodSync(top, 0o755)
    cleanups.push(() => fs.rmSync(top, { recursive: true, force: true }))
    return top
  }

  it("lists private files and folders, never what is inside a private folder", async () => {
    const top = temp()
    tree(top, { "open/deeper/key": { content: "k", mode: 0o600 }, "open/readable": { content: "r", mode: 0o644 }, "private/inner": { content: "i", mode: 0o644 } }, { private: 0o700, unlisted: 0o711 })
    const found = await HostWalk.walk(top)
    expect(found).toEqual({ files: [path.join(top, "open/deeper/key")], dirs: expect.arrayContaining([path.join(top, "private"), path.join(top, "unlisted")]), truncated: false })
    expect(found.dirs).toHaveLength(2)
  })

  it("enters a private folder that holds a kept path (a workspace), masking all else it holds", async () => {
    const top = temp()
    tree(top, { "p/ws/a.txt": { content: "a", mode: 0o600 }, "p/notes": { content: "n", mode: 0o644 }, "p/open/x": { content: "x", mode: 0o644 } }, { p: 0o700, "p/open": 0o755 })
    const found = await HostWalk.walk(top, HostWalk.defaultLimit, [path.join(top, "p/ws")])
    expect(found.files).toEqual([path.join(top, "p/notes")])
    expect(found.dirs).toEqual([path.join(top, "p/open")])
  })

  it("stops at its bound and says so", async () => {
    const top = temp()
    tree(top, Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`d${i}/k`, { content: "k", mode: 0o600 }])))
    const found = await HostWalk.walk(top, 40)
    expect(found.truncated).toBe(true)
    expect(found.files.length).toBeLessThan(30)
  })
})

const sandboxedBash = (root: string, script: string) => {
  const tool = (name: string, args: unknown) =>
    spawnSync(process.execPath, [bin, "tool", name, JSON.stringify(args), "--cwd", root, "--work-mode", "BUILD", "--policy", "allow-all", "--json"], { encoding: "utf8" })
  expect(tool("write_file", { path: "s.sh", content: `${script}\n` }).status).toBe(0)
  const r = tool("bash", { command: "sh s.sh" })
  return (JSON.parse(r.stdout) as { text: string }).text
}

// What this machine holds in /etc that only its owner may read, and this process can read.
const readableEtc = async () =>
  (await HostWalk.walk("/etc")).files.filter((f) => {
    try {
      fs.accessSync(f, fs.constants.R_OK)
      return fs.statSync(f).size > 0
    } catch {
      return false
    }
  })

describe.skipIf(unavailable !== undefined)(title("/etc files private to their owner"), () => {
  it("are unreadable from sandboxed bash", async () => {
    const files = (await readableEtc()).slice(0, 20)
    if (files.length === 0) return
    const ws = makeGitWorkspace()
    cleanups.push(ws.cleanup)
    const text = sandboxedBash(ws.root, `for f in ${files.join(" ")}; do wc -c < "$f" 2>/dev/null || echo 0; done`)
    const sizes = text.split("\n").filter((l) => /^\s*\d+\s*$/.test(l)).map((l) => Number(l.trim()))
    expect(sizes).toHaveLength(files.length)
    expect(sizes.every((n) => n === 0), `${files.join(" ")}: ${text}`).toBe(true)
  })
})

const asRoot = process.getuid?.() === 0

describe.skipIf(unavailable !== undefined || !asRoot)(title("host secrets private to root, outside /etc (minicode as root)"), () => {
  const planted = () => {
    const name = `minicode-test-${process.pid}-${Math.random().toString(36).slice(2, 8)}`
    const tops = { opt: path.join("/opt", name), local: path.join("/usr/local/etc", name), varlib: path.join("/var/lib", name) }
    for (const top of Object.values(tops)) {
      fs.mkdirSync(top, { mode: 0o755 })
      fs.chmodSync(top, 0o755)
      cleanups.push(() => fs.rmSync(top, { recursive: true, force: true }))
    }
    tree(tops.opt, {
      "service.key": { content: "OPTKEYCANARY", mode: 0o600 },
      "conf/deep/er/token": { content: "OPTDEEPCANARY", mode: 0o640 },
      "vault/inner.txt": { content: "OPTVAULTCANARY", mode: 0o644 },
      "conf/readme": { content: "OPTOPENCANARY", mode: 0o644 }
    }, { vault: 0o700 })
    tree(tops.local, { "admin.conf": { content: "LOCALETCCANARY", mode: 0o600 } })
    tree(tops.varlib, { "key.pem": { content: "VARLIBCANARY", mode: 0o600 } })
    return tops
  }

  it("root-only files under /opt and /usr/local/etc, and /var/lib (a test key, postgres and mysql data) are unreadable from sandboxed bash", () => {
    const tops = planted()
    const ws = makeGitWorkspace()
    cleanups.push(ws.cleanup)
    const dataFiles = ["/var/lib/postgresql", "/var/lib/mysql"].flatMap((d) => {
      const r = spawnSync("find", [d, "-type", "f"], { encoding: "utf8" })
      return r.stdout.split("\n").filter((f) => f !== "").slice(0, 10)
    })
    const text = sandboxedBash(
      ws.root,
      [
        `cat ${tops.opt}/service.key ${tops.opt}/conf/deep/er/token ${tops.opt}/vault/inner.txt ${tops.local}/admin.conf ${tops.varlib}/key.pem 2>&1`,
        `cat ${tops.opt}/conf/readme`,
        `for f in ${dataFiles.join(" ")}; do test -r "$f" && echo "VISIBLE $f"; done`,
        "ls /var/lib/postgresql /var/lib/mysql 2>&1; echo done"
      ].join("\n")
    )
    // The attack has teeth: /opt is shown, and what anyone may read there is read.
    expect(text).toContain("OPTOPENCANARY")
    expect(text).toContain("done")
    expect(text).not.toMatch(/OPTKEYCANARY|OPTDEEPCANARY|OPTVAULTCANARY|LOCALETCCANARY|VARLIBCANARY|VISIBLE/)
  })

  it("honest work still runs: /usr/share read, node, git; a workspace inside a private /opt folder is shown, its siblings not", () => {
    const tops = planted()
    const parent = path.join(tops.opt, "vault")
    const ws = path.join(parent, "ws")
    fs.mkdirSync(ws)
    spawnSync("git", ["init", "-q", "-b", "main", ws])
    fs.writeFileSync(path.join(ws, "a.txt"), "WORKSPACEFILE\n")
    const text = sandboxedBash(
      ws,
      [
        "head -c 200 /usr/share/common-licenses/GPL-3 >/dev/null && echo USRSHARE-OK",
        `node -e 'console.log("NODE-" + 6 * 7)'`,
        "git status --short && echo GIT-OK",
        "cat a.txt",
        `cat ${parent}/inner.txt 2>&1 || true`
      ].join("\n")
    )
    expect(text).toContain("USRSHARE-OK")
    expect(text).toContain("NODE-42")
    expect(text).toContain("GIT-OK")
    expect(text).toContain("WORKSPACEFILE")
    expect(text).not.toContain("OPTVAULTCANARY")
  })
})
