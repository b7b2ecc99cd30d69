/**
 * The scan's stored cache and the stored history check through the BUILT binary, one process per call, real bwrap
 * and git: whatever changed between two CLI calls (made by the previous bash call or outside minicode) is masked by
 * the next call; the store in `.minicode/` cannot be written from bash nor by the file tools; a corrupt store is
 * ignored (full scan) and written anew; an unchanged tree is not scanned again (the store is not rewritten).
 */
import { createHash } from "node:crypto"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { bin, ensureBuilt } from "../serve/support/McpServeHarness.js"
import { runCli } from "../support/Cli.js"
import { mustRun, title, unavailable } from "../support/Sandbox.js"
import { stateOf } from "../support/StateHome.js"

const TOKEN = "ghp_StoreAttackToken1234567890"

beforeAll(() => ensureBuilt())

if (unavailable !== undefined && mustRun) {
  describe("the stored scan through the CLI in CI", () => {
    it("bwrap must be usable in CI (CI=true)", () => expect.fail(`sandbox unavailable in CI: ${unavailable}`))
  })
}

const roots: Array<string> = []
afterAll(() => {
  for (const r of roots) fs.rmSync(r, { recursive: true, force: true })
})

const workspace = () => {
  const ws = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "minicode-storecli-")))
  roots.push(ws)
  execFileSync("git", ["init", "-q"], { cwd: ws })
  for (const f of ["src/app/main.ts", "deep/a/b/c/conf/settings.json", "vendor/lib/x.c", "README"]) {
    fs.mkdirSync(path.dirname(path.join(ws, f)), { recursive: true })
    fs.writeFileSync(path.join(ws, f), "x\n")
  }
  execFileSync("git", ["add", "-A"], { cwd: ws })
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init"], { cwd: ws })
  return ws
}

const tool = async (ws: string, name: string, args: Record<string, unknown>) => {
  const r = await runCli(bin, ["tool", name, JSON.stringify(args), "--cwd", ws, "--work-mode", "BUILD", "--policy", "allow-all"], { cwd: ws, timeoutMs: 120_000 })
  return { status: r.status, text: `${r.stdout}\n${r.stderr}` }
}
const bash = (ws: string, command: string) => tool(ws, "bash", { command })
/** A path as bash computes it: the guard cannot read the name, so only the sandbox stands between bash and it. */
const dyn = (p: string) => `"$(echo ${Buffer.from(p).toString("base64")} | base64 -d)"`
const settle = () => new Promise((r) => setTimeout(r, 3_300))
const store = (ws: string) => path.join(stateOf(ws), "scan-cache")
/** The store's header checksum holds for its body (the file is whole, as minicode wrote it). */
const whole = (file: string) => {
  const text = fs.readFileSync(file, "utf8")
  const nl = text.indexOf("\n")
  return (JSON.parse(text.slice(0, nl)) as { sum: string }).sum === createHash("sha256").update(text.slice(nl + 1)).digest("hex")
}

describe.skipIf(unavailable !== undefined)(title("the stored scan through the CLI"), () => {
  it("a secret made by one bash call is unreadable by the next one (a new .env deep down, a folder renamed to .ssh)", async () => {
    const ws = workspace()
    await settle()
    expect((await bash(ws, "true")).status).toBe(0)
    expect(whole(store(ws))).toBe(true)
    // The names are computed, so the guard (which refuses a write to a protected name it can read) lets it run.
    const made = await bash(ws, `mkdir -p deep/a/b/c/d/e && echo "T=${TOKEN}" > deep/a/b/c/d/e/x && mv deep/a/b/c/d/e/x "deep/a/b/c/d/e/$(printf .e%s nv)" && echo "${TOKEN}" > deep/a/b/c/conf/key && mv deep/a/b/c/conf "deep/a/b/c/$(printf .s%s sh)"`)
    expect(made.status, made.text).toBe(0)
    for (const command of [`cat ${dyn("deep/a/b/c/d/e/.env")}`, `cat ${dyn("deep/a/b/c/.ssh/key")}`, "grep -r ghp_ deep", "find deep -type f -exec cat {} +"]) {
      const r = await bash(ws, command)
      expect(r.text, command).not.toContain("bwrap:")
      expect(r.text, command).not.toContain(TOKEN)
    }
    // And once the folders have settled, from the cache the previous calls saved.
    await settle()
    expect((await bash(ws, `cat ${dyn("deep/a/b/c/d/e/.env")} ${dyn("deep/a/b/c/.ssh/key")}`)).text).not.toContain(TOKEN)
  }, 240_000)

  it("changes made outside minicode between two calls are masked (.env, a folder renamed to .aws, a moved .git, a folder replaced)", async () => {
    const ws = workspace()
    fs.mkdirSync(path.join(ws, "spare/inner"), { recursive: true })
    fs.writeFileSync(path.join(ws, "spare/inner/credentials"), `${TOKEN}\n`)
    await settle()
    expect((await bash(ws, "true")).status).toBe(0)
    // A folder read within the settle window of its change is saved unsettled (read again): let them settle.
    await settle()
    expect((await bash(ws, "true")).status).toBe(0)
    const before = fs.statSync(store(ws)).mtimeMs
    // Unchanged tree: every folder is taken from the store, nothing is saved again.
    expect((await bash(ws, "true")).status).toBe(0)
    expect(fs.statSync(store(ws)).mtimeMs).toBe(before)
    fs.writeFileSync(path.join(ws, "deep/a/b/c/conf/.env"), `T=${TOKEN}\n`)
    fs.mkdirSync(path.join(ws, "vendor/lib/.aws"))
    fs.renameSync(path.join(ws, "spare/inner"), path.join(ws, "vendor/lib/.aws/inner"))
    fs.rmSync(path.join(ws, "src/app"), { recursive: true })
    fs.mkdirSync(path.join(ws, "other"))
    fs.writeFileSync(path.join(ws, "other/server.pem"), `${TOKEN}\n`)
    fs.renameSync(path.join(ws, "other"), path.join(ws, "src/app"))
    const readAll = async (commands: ReadonlyArray<string>) => {
      for (const command of commands) {
        const r = await bash(ws, command)
        // The sandbox ran (a stale view, say of a `.git` gone, would stop bwrap itself: no proof of anything).
        expect(r.text, command).not.toContain("bwrap:")
        expect(r.text, command).not.toContain(TOKEN)
      }
    }
    await readAll([
      `cat ${dyn("deep/a/b/c/conf/.env")}`,
      `cat ${dyn("vendor/lib/.aws/inner/credentials")}`,
      `cat ${dyn("src/app/server.pem")}`,
      "grep -r ghp_ .",
      "find . -type f -exec cat {} +"
    ])
    await settle()
    expect((await bash(ws, "true")).status).toBe(0)
    fs.renameSync(path.join(ws, ".git"), path.join(ws, "vendor/.git"))
    fs.appendFileSync(path.join(ws, "vendor/.git/config"), `[remote "o"]\n\turl = https://x:${TOKEN}@example.com/r.git\n`)
    const config = await bash(ws, `cat ${dyn("vendor/.git/config")}`)
    expect(config.status, config.text).toBe(0)
    expect(config.text).toContain("[core]")
    await readAll([`cat ${dyn("vendor/.git/config")}`, "grep -r ghp_ ."])
  }, 240_000)

  it("the store cannot be written from bash nor through the file tools; a corrupt store means a full scan, then a whole one", async () => {
    const ws = workspace()
    await settle()
    expect((await bash(ws, "true")).status).toBe(0)
    // The first call made `.minicode/` (the root changed): once settled, the store stays as it is.
    await settle()
    expect((await bash(ws, "true")).status).toBe(0)
    const good = fs.readFileSync(store(ws))
    // The guard refuses `.minicode` by name; a computed name gets past it, to the sandbox's mask.
    const named = await bash(ws, "echo x > .minicode/scan-cache")
    expect(named.status).not.toBe(0)
    const tries = await bash(ws, `echo x > ${dyn(".minicode/scan-cache")}; echo x >> ${dyn(".minicode/scan-cache")}; echo x | tee -a ${dyn(".minicode/scan-cache")}; echo listed: $(ls -A ${dyn(".minicode")})`)
    expect(tries.text).toContain("listed:")
    expect(tries.text).not.toMatch(/listed:.*scan-cache/)
    // The store itself lives outside the workspace (StateHome): not there for bash by its own path either.
    const direct = await bash(ws, `(echo x > ${dyn(store(ws))}) 2>/dev/null; echo "entries: $(ls -A ${dyn(path.dirname(store(ws)))} 2>/dev/null | wc -l)"`)
    expect(direct.text).toContain("entries: 0")
    expect(fs.readFileSync(store(ws)).equals(good)).toBe(true)
    expect(fs.readFileSync(store(ws)).equals(good)).toBe(true)
    const write = await tool(ws, "write_file", { path: ".minicode/scan-cache", content: "x" })
    expect(write.status).not.toBe(0)
    expect(write.text).toContain("minicode's own state")
    expect(fs.readFileSync(store(ws)).equals(good)).toBe(true)
    // Corrupt (a byte flipped in the body), then a secret in a folder the corrupt store would have trusted.
    const text = good.toString("utf8")
    const at = text.indexOf("\n") + 30
    fs.writeFileSync(store(ws), text.slice(0, at) + (text[at] === "0" ? "1" : "0") + text.slice(at + 1), { mode: 0o600 })
    fs.writeFileSync(path.join(ws, "vendor/lib/.env"), `T=${TOKEN}\n`)
    const read = await bash(ws, `cat ${dyn("vendor/lib/.env")}`)
    expect(read.text).not.toContain("bwrap:")
    expect(read.text).toContain("Permission denied")
    expect(read.text).not.toContain(TOKEN)
    expect(whole(store(ws))).toBe(true)
  }, 240_000)
  it("the stored history check: an unchanged history is not walked again; a secret committed and removed between two calls hides the store", async () => {
    const ws = workspace()
    const history = path.join(stateOf(ws), "secret-history")
    const git = (...args: Array<string>) => execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd: ws, encoding: "utf8" })
    expect((await bash(ws, "git log --oneline | wc -l")).status).toBe(0)
    expect(whole(history)).toBe(true)
    const walked = fs.statSync(history).mtimeMs
    const again = await bash(ws, "git log -p --all | wc -l")
    expect(again.text).not.toContain("bwrap:")
    // Same refs, reflogs and index: the check came from the store, nothing was walked or saved.
    expect(fs.statSync(history).mtimeMs).toBe(walked)
    // Outside minicode: a secret committed, then removed (the work tree no longer has it, the history does).
    fs.writeFileSync(path.join(ws, ".env"), `T=${TOKEN}\n`)
    git("add", "-f", ".env")
    git("commit", "-qm", "oops")
    git("rm", "-q", "--cached", ".env")
    fs.rmSync(path.join(ws, ".env"))
    git("commit", "-qm", "remove")
    for (const command of ["git log -p --all", "git show HEAD~1 -- .env", "cat .git/objects/*/* | zcat 2>/dev/null; true"]) {
      const r = await bash(ws, command)
      expect(r.text, command).not.toContain("bwrap:")
      expect(r.text, command).not.toContain(TOKEN)
    }
    expect(fs.statSync(history).mtimeMs).not.toBe(walked)
    // A corrupt store: walked again, still hidden, and written whole again.
    fs.writeFileSync(history, "garbage", { mode: 0o600 })
    const r = await bash(ws, "git log -p --all")
    expect(r.text).not.toContain("bwrap:")
    expect(r.text).not.toContain(TOKEN)
    expect(whole(history)).toBe(true)
  }, 240_000)
})
