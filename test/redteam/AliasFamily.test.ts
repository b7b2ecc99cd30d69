/**
 * Red team (issue 19), the family of PreexistingHardLink and SecretSymlinkTarget: protected content reached under
 * another name. Each case plants a layout, then asks read_file, grep (both engines: ripgrep, the default, and grep's
 * own walk, `MINICODE_GREP=node`) and sandboxed bash for the content by the unprotected name.
 *
 * - a chain `.env -> a -> b`: `b` holds the secret;
 * - a chain retargeted between calls (`a -> c`): the link in the middle changes in a folder the `.env` is not in;
 * - `.ssh -> dotfiles/ssh`: a protected folder name linked to a folder of innocent names;
 * - `app/.env -> ../shared/settings.txt`: a relative link from a subfolder;
 * - a hard link made by the user between two calls (after a scan found none);
 * - a hard link from inside the secret folder (`.ssh/id_ed25519` linked as `docs/key.txt`);
 * - a hard link made by sandboxed bash itself (`ln .env x`), then read by the next call (held before the fix too:
 *   the masked `.env` is a mount, the link is to the mask; kept as a regression test);
 * - the link removed by sandboxed bash (a symlink is not masked: a mount lands on its target), its target read by the
 *   next call (was a hole of the first fix: the target was protected only while the link was there).
 *
 * Through the built binary (allow-all, default sandbox): `mcp serve` and the CLI.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { attackFile, attackWorkspace, served } from "./support/Attack.js"
import { runCli } from "../support/Cli.js"
import { bin } from "../serve/support/McpServeHarness.js"
import { title, unavailable } from "../support/Sandbox.js"

const canary = "ALIASFAMILYCANARY"
const cleanups = attackFile()

type Ws = ReturnType<typeof attackWorkspace>

/**
 * What read_file, both grep engines and (when there is a sandbox) `cat` show of `name`: read_file, ripgrep's grep and
 * bash through one `mcp serve` started now (one process start instead of three CLI starts), grep's own walk
 * (`MINICODE_GREP=node`) through the built CLI.
 */
const shown = async (ws: Ws, name: string): Promise<string> => {
  const args = (tool: string, a: unknown) => ["tool", tool, JSON.stringify(a), "--cwd", ws.root, "--work-mode", "BUILD", "--policy", "allow-all", "--json"]
  const out: Array<string> = []
  const s = await served(cleanups, ws.root)
  try {
    out.push((await s.call("read_file", { path: name })).text)
    out.push((await s.call("grep", { pattern: "TOKEN" })).text)
    if (unavailable === undefined) out.push((await s.call("bash", { command: `cat ${name}` })).text)
  } finally {
    await s.close()
  }
  const own = await runCli(bin, args("grep", { pattern: "TOKEN" }), { timeoutMs: 120_000, env: { ...process.env, MINICODE_GREP: "node" } })
  out.push(own.stdout + own.stderr)
  return out.join("\n")
}

const put = (root: string, rel: string, text: string) => {
  fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true })
  fs.writeFileSync(path.join(root, rel), text)
}

describe(title("protected content under other names"), () => {
  it("a chain .env -> a -> b: b is protected", async () => {
    const ws = attackWorkspace(cleanups)
    put(ws.root, "b", `TOKEN=${canary}\n`)
    fs.symlinkSync("b", path.join(ws.root, "a"))
    fs.symlinkSync("a", path.join(ws.root, ".env"))
    expect(await shown(ws, "b")).not.toContain(canary)
  }, 300_000)

  it("a chain retargeted between calls: the new end is protected", async () => {
    const ws = attackWorkspace(cleanups)
    put(ws.root, "links/b", "TOKEN=old\n")
    put(ws.root, "c", `TOKEN=${canary}\n`)
    fs.symlinkSync("b", path.join(ws.root, "links/a"))
    fs.symlinkSync("links/a", path.join(ws.root, ".env"))
    // A first call scans (the chain ends at links/b), then the link in links/ (not .env's folder) is changed.
    expect(ws.tool("read_file", { path: "a.txt" }).status).toBe(0)
    fs.unlinkSync(path.join(ws.root, "links/a"))
    fs.symlinkSync("../c", path.join(ws.root, "links/a"))
    expect(await shown(ws, "c")).not.toContain(canary)
    // The old end stays protected while it is the same file (remembered: the link could have been removed by bash).
    expect(ws.tool("read_file", { path: "links/b" }).stdout).not.toContain("TOKEN=old")
    // Honest: what no link ever named is read.
    expect(ws.tool("read_file", { path: "a.txt" }).stdout).toContain("a")
  }, 300_000)

  it(".ssh -> dotfiles/ssh: the folder's files are protected", async () => {
    const ws = attackWorkspace(cleanups)
    put(ws.root, "dotfiles/ssh/notes", `TOKEN=${canary}\n`)
    fs.symlinkSync("dotfiles/ssh", path.join(ws.root, ".ssh"))
    expect(await shown(ws, "dotfiles/ssh/notes")).not.toContain(canary)
  }, 300_000)

  it("app/.env -> ../shared/settings.txt: the relative link's target is protected", async () => {
    const ws = attackWorkspace(cleanups)
    put(ws.root, "shared/settings.txt", `TOKEN=${canary}\n`)
    fs.mkdirSync(path.join(ws.root, "app"))
    fs.symlinkSync("../shared/settings.txt", path.join(ws.root, "app/.env"))
    expect(await shown(ws, "shared/settings.txt")).not.toContain(canary)
  }, 300_000)

  it("a hard link the user makes between two calls is protected at the next", async () => {
    const ws = attackWorkspace(cleanups)
    put(ws.root, ".env", `TOKEN=${canary}\n`)
    put(ws.root, "docs/readme.txt", "hello\n")
    // The first call's scan finds no link (and remembers so, in .minicode/scan-cache).
    expect(ws.tool("read_file", { path: "docs/readme.txt" }).stdout).toContain("hello")
    fs.linkSync(path.join(ws.root, ".env"), path.join(ws.root, "docs/notes.txt"))
    expect(await shown(ws, "docs/notes.txt")).not.toContain(canary)
  }, 300_000)

  it("a hard link to a file of a secret folder (.ssh/id_ed25519 as docs/key.txt) is protected", async () => {
    const ws = attackWorkspace(cleanups)
    put(ws.root, ".ssh/id_ed25519", `TOKEN=${canary}\n`)
    fs.mkdirSync(path.join(ws.root, "docs"))
    fs.linkSync(path.join(ws.root, ".ssh/id_ed25519"), path.join(ws.root, "docs/key.txt"))
    expect(await shown(ws, "docs/key.txt")).not.toContain(canary)
  }, 300_000)

  it.skipIf(unavailable !== undefined)("a hard link sandboxed bash makes (ln .env x) shows nothing, then or at the next call", async () => {
    const ws = attackWorkspace(cleanups)
    put(ws.root, ".env", `TOKEN=${canary}\n`)
    const made = await ws.scriptAsync("ln .env x 2>&1; cat x 2>&1; ln -f .env docs-x 2>&1; cat docs-x 2>&1; true")
    expect(made).not.toContain(canary)
    for (const name of ["x", "docs-x"]) if (fs.existsSync(path.join(ws.root, name))) expect(await shown(ws, name)).not.toContain(canary)
  }, 300_000)

  it.skipIf(unavailable !== undefined)("the link removed by sandboxed bash: its target stays protected at the next call", async () => {
    const ws = attackWorkspace(cleanups)
    put(ws.root, "env/development", `TOKEN=${canary}\n`)
    fs.symlinkSync("env/development", path.join(ws.root, ".env"))
    const out = await ws.scriptAsync("n=.env; rm -f $n; mv env/development env/moved 2>&1; ls -la . env")
    expect(out).not.toContain(canary)
    if (fs.lstatSync(path.join(ws.root, ".env"), { throwIfNoEntry: false }) !== undefined) {
      // Staged bash (issue 41): the merge refuses removing a protected name; the link is removed by hand (as the user
      // or another program could) and the target is tried all the same.
      expect(out).toContain("refused .env (jail.sensitive)")
      fs.unlinkSync(path.join(ws.root, ".env"))
    }
    expect(fs.lstatSync(path.join(ws.root, ".env"), { throwIfNoEntry: false })).toBeUndefined()
    const at = fs.existsSync(path.join(ws.root, "env/development")) ? "env/development" : "env/moved"
    expect(await shown(ws, at)).not.toContain(canary)
  }, 300_000)

  it("honest: a hard link between two ordinary files is read as before", async () => {
    const ws = attackWorkspace(cleanups)
    put(ws.root, ".env", "TOKEN=secret\n")
    put(ws.root, "one.txt", "plain words\n")
    fs.linkSync(path.join(ws.root, "one.txt"), path.join(ws.root, "two.txt"))
    expect(ws.tool("read_file", { path: "two.txt" }).stdout).toContain("plain words")
    expect(ws.tool("grep", { pattern: "plain" }).stdout).toContain("two.txt")
  }, 300_000)
})
