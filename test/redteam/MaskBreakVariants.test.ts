/**
 * Red team 9 on the mask guard (issue 19, family 5): a masked `.env` replaced on the host while a bash call runs in
 * ways the first guard (inode of the path, at the end and before streamed output) did not see, and what an exposed
 * call wrote where the record did not look. Each ran on the build before:
 * - the host removes `.env` and writes a new one: ext4 gives the new file the freed inode, the guard saw the same
 *   number, and a `cat .env` loop that printed at its end showed the new secret;
 * - the host moves `.env` away, puts `.env.prod` in its place and moves the original back before the call ends;
 * - an exposed call copies the secret into `.git/stolen`, a nested `sub/.git/stolen` or a reflog message: the record
 *   skipped every folder named `.git`, and a later `cat` or `git reflog` showed it.
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { bin } from "../serve/support/McpServeHarness.js"
import { title, unavailable } from "../support/Sandbox.js"
import { attackFile, attackWorkspace } from "./support/Attack.js"
import { liveSandbox, madeByCall } from "../support/Staged.js"

// The live sandbox's repair machinery (bash writing the tree where no overlay can be made) is what this file attacks;
// staged bash (the default) is attacked for the same families in test/adapters/staged/StagedBash.e2e.test.ts.
liveSandbox()

const cleanups = attackFile()
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Runs `sh loop.sh` in sandboxed bash through the built CLI; `meanwhile` acts on the host once it has started. */
const during = async (root: string, meanwhile: () => Promise<void> | void) => {
  const args = ["tool", "bash", JSON.stringify({ command: "sh loop.sh" }), "--cwd", root, "--work-mode", "BUILD", "--policy", "allow-all"]
  const child = spawn(process.execPath, [bin, ...args], { stdio: ["ignore", "pipe", "pipe"] })
  let out = ""
  child.stdout.on("data", (d: Buffer) => (out += d.toString()))
  child.stderr.on("data", (d: Buffer) => (out += d.toString()))
  const done = new Promise<void>((r) => child.on("close", () => r()))
  for (let i = 0; i < 600 && !madeByCall(root, "started"); i++) await sleep(100)
  await sleep(300)
  await meanwhile()
  await done
  return out
}

/** Reads `.env` into a file outside the workspace's view of the host (the sandbox's /tmp) and prints it at the end only. */
const quietLoop = "touch started; for i in $(seq 1 25); do cat .env >> /tmp/seen 2>/dev/null; sleep 0.2; done; cat /tmp/seen; echo loop-done\n"

describe.skipIf(unavailable !== undefined)(title("a masked file replaced on the host in ways the inode did not tell"), () => {
  it("removed and written again (the same inode number on ext4): the output is withheld", async () => {
    const w = attackWorkspace(cleanups)
    const env = path.join(w.root, ".env")
    fs.writeFileSync(env, "OLD=canary-old\n")
    expect(w.tool("write_file", { path: "loop.sh", content: quietLoop }).status).toBe(0)
    const out = await during(w.root, () => {
      fs.rmSync(env)
      fs.writeFileSync(env, "NEW=canary-rewritten\n")
    })
    expect(out).toContain("withheld")
    expect(out).not.toContain("canary-")
  }, 120_000)

  it("moved away, another secret put in its place, the original moved back before the end: withheld", async () => {
    const w = attackWorkspace(cleanups)
    const env = path.join(w.root, ".env")
    fs.writeFileSync(env, "DEV=canary-dev\n")
    fs.writeFileSync(path.join(w.root, ".env.prod"), "PROD=canary-prod\n")
    expect(w.tool("write_file", { path: "loop.sh", content: quietLoop }).status).toBe(0)
    const out = await during(w.root, async () => {
      fs.renameSync(env, path.join(w.root, ".env.dev"))
      fs.copyFileSync(path.join(w.root, ".env.prod"), env)
      await sleep(1_000)
      fs.rmSync(env)
      fs.renameSync(path.join(w.root, ".env.dev"), env)
    })
    expect(out).toContain("withheld")
    expect(out).not.toContain("canary-")
  }, 120_000)

  it("honest: a masked file written in place, and other files renamed beside it, keep the output", async () => {
    const w = attackWorkspace(cleanups)
    const env = path.join(w.root, ".env")
    fs.writeFileSync(env, "OLD=canary-old\n")
    fs.writeFileSync(path.join(w.root, "notes.txt"), "notes\n")
    expect(w.tool("write_file", { path: "loop.sh", content: `${quietLoop}mv notes.txt notes2.txt; echo moved\n` }).status).toBe(0)
    const out = await during(w.root, () => {
      fs.writeFileSync(env, "NEW=canary-in-place\n")
      fs.writeFileSync(path.join(w.root, "other.tmp"), "x\n")
      fs.renameSync(path.join(w.root, "other.tmp"), path.join(w.root, "other.txt"))
    })
    expect(out).toContain("loop-done")
    expect(out).toContain("moved")
    expect(out).not.toContain("withheld")
    expect(out).not.toContain("canary-")
  }, 120_000)
})

describe.skipIf(unavailable !== undefined)(title("what an exposed call wrote in git folders"), () => {
  it("a copy in .git/, in a nested repository's .git/ and a reflog message stay unreadable", async () => {
    const w = attackWorkspace(cleanups)
    fs.writeFileSync(path.join(w.root, ".env"), "OLD=canary-old\n")
    const copier = [
      "touch started; mkdir -p sub && git -C sub init -q 2>/dev/null",
      "for i in $(seq 1 25); do cp .env .git/stolen 2>/dev/null; cp .env sub/.git/stolen 2>/dev/null; git update-ref -m \"$(cat .env 2>/dev/null)\" refs/heads/x HEAD 2>/dev/null; sleep 0.2; done",
      "echo loop-done"
    ].join("\n")
    expect(w.tool("write_file", { path: "loop.sh", content: `${copier}\n` }).status).toBe(0)
    const out = await during(w.root, () => {
      fs.writeFileSync(path.join(w.root, ".env.tmp"), "NEW=canary-renamed\n")
      fs.renameSync(path.join(w.root, ".env.tmp"), path.join(w.root, ".env"))
    })
    expect(out).toContain("withheld")
    // The copies are there and hold the secret.
    expect(fs.readFileSync(path.join(w.root, ".git/stolen"), "utf8")).toContain("canary-renamed")
    expect(fs.readFileSync(path.join(w.root, "sub/.git/stolen"), "utf8")).toContain("canary-renamed")
    const seen = [
      w.script("cat .git/stolen sub/.git/stolen 2>&1; git reflog show refs/heads/x 2>&1; cat .git/logs/refs/heads/x 2>&1; echo read-done"),
      w.tool("read_file", { path: ".git/stolen" }).stdout,
      w.tool("git_log", {}).stdout,
      w.tool("grep", { pattern: "canary" }).stdout
    ].join("\n")
    expect(seen).toContain("read-done")
    expect(seen).not.toContain("canary-renamed")
  }, 180_000)
})
