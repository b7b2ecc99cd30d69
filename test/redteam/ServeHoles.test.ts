/**
 * Red team (issue 19), HOLES through `minicode mcp serve` with a real MCP SDK client (`--allow-all --no-ask`, the
 * server's equivalent of BUILD with allow-all; default sandbox): the holes of PairFolderRename.test.ts and
 * GrepSwapRace.test.ts, the calls of one session (the swapper and the greps run concurrently in the one server).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { attackFile, attackWorkspace } from "./support/Attack.js"
import { connect, textOf } from "../serve/support/McpServeHarness.js"
import { title, unavailable } from "../support/Sandbox.js"

const cleanups = attackFile()
const flags = ["--allow-all", "--no-ask"]

const serve = async (root: string) => {
  const s = await connect(root, flags)
  cleanups.push(() => s.close())
  const call = async (name: string, args: Record<string, unknown>) => textOf(await s.client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 }))
  return call
}

describe.skipIf(unavailable !== undefined)(title("through mcp serve"), () => {
  it("a credential pair's folder renamed from bash: read_file shows no canary", async () => {
    const { root } = attackWorkspace(cleanups)
    fs.mkdirSync(path.join(root, ".docker"))
    fs.writeFileSync(path.join(root, ".docker/config.json"), `{"auths":{"x":{"auth":"SERVEPAIRCANARY"}}}\n`)
    const call = await serve(root)
    await call("write_file", { path: "s.sh", content: "mv .docker dock && echo moved\n" })
    await call("bash", { command: "sh s.sh" })
    expect(await call("read_file", { path: "dock/config.json" })).not.toContain("SERVEPAIRCANARY")
  })

  it("grep concurrent with a bash swapper (RENAME_EXCHANGE of a folder and a symlink outside): no outside line", async () => {
    const { root, parent } = attackWorkspace(cleanups)
    const outside = path.join(parent, "outdir")
    fs.mkdirSync(outside)
    fs.writeFileSync(path.join(outside, "f1.txt"), "SERVEOUTSIDECANARY line\n")
    fs.mkdirSync(path.join(root, "d"))
    fs.writeFileSync(path.join(root, "d/f1.txt"), "inside line\n")
    const call = await serve(root)
    expect(await call("grep", { pattern: "line", path: "d" })).toContain("inside line")
    const swapper = [
      "import ctypes, os, sys, time",
      "libc = ctypes.CDLL(None, use_errno=True)",
      `os.symlink(${JSON.stringify(outside)}, "l")`,
      "end = time.time() + 60",
      'while time.time() < end and not os.path.exists("stop"):',
      '    libc.renameat2(-100, b"d", -100, b"l", 2)',
      'if os.path.islink("d"): libc.renameat2(-100, b"d", -100, b"l", 2)',
      'print("swapped")'
    ].join("\n")
    await call("write_file", { path: "swap.py", content: `${swapper}\n` })
    const swapping = call("bash", { command: "python3 swap.py", timeout_ms: 90_000 })
    for (let i = 0; i < 200 && fs.lstatSync(path.join(root, "l"), { throwIfNoEntry: false }) === undefined; i++) await new Promise((r) => setTimeout(r, 50))
    const outputs: Array<string> = []
    for (let round = 0; round < 50 && !outputs.some((o) => o.includes("SERVEOUTSIDECANARY")); round++) {
      outputs.push(...(await Promise.all([0, 1, 2, 3].map((k) => call("grep", k % 2 === 0 ? { pattern: "line", path: "d" } : { pattern: "line" })))))
    }
    fs.writeFileSync(path.join(root, "stop"), "")
    expect(await swapping).toContain("swapped")
    expect(outputs.filter((o) => o.includes("SERVEOUTSIDECANARY"))).toEqual([])
  }, 150_000)
})
