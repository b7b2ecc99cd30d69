/**
 * A protected file replaced on the host while a bash call runs (issue 19, family 5). The sandbox masks `.env` with a
 * bind mount; an editor saving it by rename (write `.env.tmp`, rename over `.env`: vim, JetBrains' safe write,
 * `sed -i`) makes Linux detach that mount, and the running call reads the new content. Was a hole: a bash loop of
 * `cat .env` printed the new secret. Now the call's output is withheld once a mask may have gone (`MaskGuard`, asked
 * before any output is let out, streamed or final), and what it wrote meanwhile is protected (`Exposed`). A file
 * written in place keeps its mask, and the output.
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { bin, textOf } from "../serve/support/McpServeHarness.js"
import { runCli } from "../support/Cli.js"
import { title, unavailable } from "../support/Sandbox.js"
import { madeByCall } from "../support/Staged.js"
import { attackFile, attackWorkspace, served, swapper, loopInServe } from "./support/Attack.js"

const cleanups = attackFile()
const loop = "touch started; for i in $(seq 1 30); do cat .env 2>&1; sleep 0.2; done; echo loop-done\n"
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Until the script has started in its sandbox (it makes `started`). */
const started = async (root: string) => {
  for (let i = 0; i < 600 && !madeByCall(root, "started"); i++) await sleep(100)
  await sleep(300)
}

/** Runs the loop in sandboxed bash through the built CLI while `meanwhile` acts on the host; its whole output. */
const during = async (root: string, meanwhile: () => void) => {
  const args = ["tool", "bash", JSON.stringify({ command: "sh loop.sh" }), "--cwd", root, "--work-mode", "BUILD", "--policy", "allow-all"]
  const child = spawn(process.execPath, [bin, ...args], { stdio: ["ignore", "pipe", "pipe"] })
  let out = ""
  child.stdout.on("data", (d: Buffer) => (out += d.toString()))
  child.stderr.on("data", (d: Buffer) => (out += d.toString()))
  const done = new Promise<void>((r) => child.on("close", () => r()))
  await started(root)
  meanwhile()
  await done
  return out
}

/** Runs `body` with bash's write path set (`MINICODE_BASH_STAGED`): "0" the live sandbox's repair machinery, "1" staged. */
const withPath = (value: "0" | "1") => (body: () => void) => () => {
  let was: string | undefined
  beforeAll(() => {
    was = process.env["MINICODE_BASH_STAGED"]
    process.env["MINICODE_BASH_STAGED"] = value
  })
  afterAll(() => {
    if (was === undefined) delete process.env["MINICODE_BASH_STAGED"]
    else process.env["MINICODE_BASH_STAGED"] = was
  })
  body()
}
const live = withPath("0")

// Staged bash's case of this family (a host's save by rename mid-call): test/redteam/StagedHostSecrets.test.ts.

describe.skipIf(unavailable !== undefined)(title("a masked file replaced on the host mid-call"), live(() => {
  it("saved by rename: the call's output is withheld, streamed or final", async () => {
    const w = attackWorkspace(cleanups)
    fs.writeFileSync(path.join(w.root, ".env"), "OLD=canary-old\n")
    expect(w.tool("write_file", { path: "loop.sh", content: loop }).status).toBe(0)
    const out = await during(w.root, () => {
      fs.writeFileSync(path.join(w.root, ".env.tmp"), "NEW=canary-renamed\n")
      fs.renameSync(path.join(w.root, ".env.tmp"), path.join(w.root, ".env"))
    })
    expect(out).toContain("output is withheld: .env was replaced")
    expect(out).not.toContain("canary-")
  }, 120_000)

  it("written in place, the mask holds and the output is shown", async () => {
    const w = attackWorkspace(cleanups)
    fs.writeFileSync(path.join(w.root, ".env"), "OLD=canary-old\n")
    expect(w.tool("write_file", { path: "loop.sh", content: loop }).status).toBe(0)
    const out = await during(w.root, () => fs.writeFileSync(path.join(w.root, ".env"), "NEW=canary-in-place\n"))
    expect(out).toContain("loop-done")
    expect(out).not.toContain("withheld")
    expect(out).not.toContain("canary-")
  }, 120_000)

  it("through mcp serve: the result is withheld", async () => {
    const { w, call } = await loopInServe(cleanups, loop)
    await started(w.root)
    fs.writeFileSync(path.join(w.root, ".env.tmp"), "NEW=canary-renamed\n")
    fs.renameSync(path.join(w.root, ".env.tmp"), path.join(w.root, ".env"))
    const text = textOf(await call)
    expect(text).toContain("withheld")
    expect(text).not.toContain("canary-")
  }, 120_000)
}))

describe.skipIf(unavailable !== undefined)(title("what a call wrote while a mask was broken"), live(() => {
  it("a copy (plain, encoded, a blob) of the new secret stays unreadable to every tool", async () => {
    const w = attackWorkspace(cleanups)
    fs.writeFileSync(path.join(w.root, ".env"), "OLD=canary-old\n")
    fs.writeFileSync(path.join(w.root, "before.txt"), "written before\n")
    const copier = "touch started; for i in $(seq 1 30); do cp .env copied.txt 2>/dev/null; base64 .env > enc.txt 2>/dev/null; git hash-object -w .env > id.txt 2>/dev/null; sleep 0.2; done; echo loop-done\n"
    expect(w.tool("write_file", { path: "loop.sh", content: copier }).status).toBe(0)
    const out = await during(w.root, () => {
      fs.writeFileSync(path.join(w.root, ".env.tmp"), "NEW=canary-renamed\n")
      fs.renameSync(path.join(w.root, ".env.tmp"), path.join(w.root, ".env"))
    })
    expect(out).toContain("withheld")
    // The copies are there (the call ran on), and hold the secret.
    expect(fs.readFileSync(path.join(w.root, "copied.txt"), "utf8")).toContain("canary-renamed")
    const seen = [
      w.tool("read_file", { path: "copied.txt" }).stdout,
      w.tool("read_file", { path: "enc.txt" }).stdout,
      w.tool("grep", { pattern: "canary|Y2FuYXJ5" }).stdout,
      w.script("cat copied.txt enc.txt; base64 -d enc.txt; git cat-file -p $(cat id.txt 2>/dev/null) 2>&1; echo read-done"),
      w.tool("git_status", {}).stdout,
      w.tool("git_diff", {}).stdout
    ].join("\n")
    expect(seen).toContain("read-done")
    expect(seen).not.toContain("canary-renamed")
    expect(seen).not.toContain(Buffer.from("NEW=canary-renamed\n").toString("base64"))
    // What was written before the call is not held.
    expect(w.tool("read_file", { path: "before.txt" }).stdout).toContain("written before")
  }, 180_000)
}))

/** Attack.ts's swapper (`renameat2(RENAME_EXCHANGE)` in a loop) on the folder `name` instead of `d`. */
const swapperOn = (name: string) => swapper.replaceAll('b"d"', `b"${name}"`).replaceAll('islink("d")', `islink("${name}")`)

describe.skipIf(unavailable !== undefined)(title("what an exposed call wrote, attacked afterwards"), live(() => {
  /** An exposed call that left `copied.txt` and `deep/a/enc.txt` holding the renamed-in secret. */
  const exposed = async () => {
    const w = attackWorkspace(cleanups)
    fs.writeFileSync(path.join(w.root, ".env"), "OLD=canary-old\n")
    const copier = "touch started; mkdir -p deep/a; for i in $(seq 1 30); do cp .env copied.txt 2>/dev/null; cp .env deep/a/enc.txt 2>/dev/null; sleep 0.2; done\n"
    expect(w.tool("write_file", { path: "loop.sh", content: copier }).status).toBe(0)
    expect(
      await during(w.root, () => {
        fs.writeFileSync(path.join(w.root, ".env.tmp"), "NEW=canary-renamed\n")
        fs.renameSync(path.join(w.root, ".env.tmp"), path.join(w.root, ".env"))
      })
    ).toContain("withheld")
    expect(fs.readFileSync(path.join(w.root, "deep/a/enc.txt"), "utf8")).toContain("canary-renamed")
    return w
  }

  it("as a sequence of allowed calls: move, edit, copy, link, move back, then read by every tool", async () => {
    const w = await exposed()
    // In order, one call at a time, through one `mcp serve` started after the exposed call (so it knows the copies
    // only from minicode's state on disk): ~20 calls that each started the CLI (~1-3 s apiece under load).
    const s = await served(cleanups, w.root)
    const text = async (name: string, args: Record<string, unknown>) => (await s.call(name, args)).text
    const script = async (body: string) => {
      expect((await s.call("write_file", { path: "s.sh", content: `${body}\n` })).ok).toBe(true)
      return text("bash", { command: "sh s.sh" })
    }
    const paths = ["copied.txt", "moved.txt", "m2.txt", "c2.txt", "l2.txt", "deep/a/enc.txt", "deep2/a/enc.txt", "d3/a/enc.txt"]
    const steps: ReadonlyArray<() => Promise<string>> = [
      () => text("move_file", { from: "copied.txt", to: "moved.txt" }),
      () => text("move_file", { from: "deep", to: "deep2" }),
      () => text("edit_file", { path: "copied.txt", old_string: "NEW", new_string: "OLD" }),
      () => script("mv copied.txt m2.txt; cp copied.txt c2.txt; ln copied.txt l2.txt; mv deep d3; cat copied.txt m2.txt c2.txt l2.txt d3/a/enc.txt 2>&1; echo step-done"),
      () => text("move_file", { from: "moved.txt", to: "copied.txt" }),
      ...paths.map((p) => () => text("read_file", { path: p })),
      () => text("grep", { pattern: "canary" }),
      () => script("cat copied.txt deep/a/enc.txt 2>&1; grep -r canary . 2>/dev/null; echo served-read-done")
    ]
    const seen: Array<string> = []
    for (const step of steps) seen.push(await step())
    await s.close()
    // Then by the CLI, as a new process reading only what minicode saved: read_file, grep over every file, bash.
    seen.push(
      (await w.toolAsync("read_file", { path: "copied.txt" })).stdout,
      (await w.toolAsync("grep", { pattern: "canary" })).stdout,
      await w.scriptAsync(`cat ${paths.join(" ")} 2>&1; grep -r canary . 2>/dev/null; echo read-done`)
    )
    const outs = seen.join("\n")
    expect(outs).toContain("step-done")
    expect(outs).toContain("served-read-done")
    expect(outs).toContain("read-done")
    expect(outs).not.toContain("canary-renamed")
  }, 240_000)

  it("with a second process (sandboxed bash) swapping the copy's folder for a link outside, and the host renaming the copy", async () => {
    const w = await exposed()
    const outside = fs.mkdtempSync(path.join(path.dirname(w.root), "out-"))
    cleanups.push(() => fs.rmSync(outside, { recursive: true, force: true }))
    fs.mkdirSync(path.join(outside, "a"))
    fs.writeFileSync(path.join(outside, "a/enc.txt"), "outside\n")
    // The copy renamed on the host (by the user, say): judged by its inode, not only its listed path.
    fs.renameSync(path.join(w.root, "copied.txt"), path.join(w.root, "renamed-by-host.txt"))
    // The attacker's second process: `deep` exchanged with a link outside, in a loop, from sandboxed bash.
    expect(w.tool("write_file", { path: "swap.py", content: swapperOn("deep") }).status).toBe(0)
    // Up to 280 s (the `stop` file below ends it sooner), so every read below races it however slow the machine is.
    const args = ["tool", "bash", JSON.stringify({ command: `python3 swap.py ${outside} 280 2>&1; echo swap-ended`, timeout_ms: 300_000 }), "--cwd", w.root, "--work-mode", "BUILD", "--policy", "allow-all"]
    const swap = spawn(process.execPath, [bin, ...args], { stdio: ["ignore", "pipe", "pipe"] })
    // Listened for from the start: a swapper that had ended before the test waited for it left the test waiting
    // forever (the 480 s timeout, on a loaded machine, when its reads outlasted the swapper's 60 s).
    const swapEnded = new Promise((r) => swap.on("exit", r))
    cleanups.push(() => swap.kill())
    let swapOut = ""
    swap.stdout.on("data", (d: Buffer) => (swapOut += d.toString()))
    // Until the swapper runs (its link exists), so every read below races it.
    for (let i = 0; i < 1200 && fs.lstatSync(path.join(w.root, "l"), { throwIfNoEntry: false }) === undefined; i++) await sleep(50)
    expect(fs.lstatSync(path.join(w.root, "l"), { throwIfNoEntry: false })?.isSymbolicLink()).toBe(true)
    const outs: Array<string> = []
    // Reads through one `mcp serve` (a few ms each, so many more of them land mid-swap than the 15 rounds of CLI
    // processes this made before, ~1-3 s apiece), and a few rounds through the CLI as a user runs it.
    const s = await served(cleanups, w.root)
    for (let i = 0; i < 150; i++) {
      outs.push((await s.call("read_file", { path: "deep/a/enc.txt" })).text, (await s.call("read_file", { path: "renamed-by-host.txt" })).text)
      if (i % 10 === 0) outs.push((await s.call("grep", { pattern: "canary" })).text)
    }
    await s.close()
    for (let i = 0; i < 3; i++) {
      outs.push((await w.toolAsync("read_file", { path: "deep/a/enc.txt" })).stdout, (await w.toolAsync("read_file", { path: "renamed-by-host.txt" })).stdout)
    }
    outs.push((await w.toolAsync("grep", { pattern: "canary" })).stdout)
    // grep's own walk (no rg, or a pattern rg cannot take) judges what it reads by the descriptor's inode too. Was a
    // hole: it found the renamed copy by its new path.
    fs.writeFileSync(path.join(w.root, "honest.txt"), "canary-honest\n")
    const ownWalk = (
      await runCli(bin, ["tool", "grep", JSON.stringify({ pattern: "canary" }), "--cwd", w.root, "--work-mode", "BUILD", "--policy", "allow-all"], {
        env: { ...process.env, MINICODE_GREP: "node" },
        timeoutMs: 120_000
      })
    ).stdout
    expect(ownWalk).toContain("canary-honest")
    outs.push(ownWalk)
    fs.writeFileSync(path.join(w.root, "stop"), "")
    await swapEnded
    expect(swapOut).not.toContain("canary")
    expect(outs.join("\n")).not.toContain("canary-renamed")
  }, 480_000)
}))
