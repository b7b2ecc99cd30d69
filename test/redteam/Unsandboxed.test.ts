/**
 * bash without an OS sandbox (sandbox forced off with `sandbox: "none"`), through the real chain, real parser and
 * real processes: what runs workspace code or has dynamic words asks (so with nobody to ask, it is refused and
 * nothing ran); allow-all and an approval still run it; the first bash result and doctor's line say so.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { createKernel, runTool } from "../../src/index.js"
import { sandboxLine } from "../../src/app/NodeLayers.js"

let ws: string
beforeEach(() => {
  ws = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "minicode-unsandboxed-")))
  // Each planted program leaves a canary when it runs.
  fs.writeFileSync(path.join(ws, "x.sh"), `#!/bin/sh\ntouch ${ws}/ran-x\n`, { mode: 0o755 })
  fs.writeFileSync(path.join(ws, "Makefile"), `all:\n\ttouch ${ws}/ran-make\n`)
  fs.writeFileSync(path.join(ws, "a.js"), `require("fs").writeFileSync(${JSON.stringify(ws)} + "/ran-node", "")\n`)
  fs.writeFileSync(path.join(ws, "package.json"), JSON.stringify({ scripts: { build: `touch ${ws}/ran-npm` } }))
})
afterEach(() => fs.rmSync(ws, { recursive: true, force: true }))

const bash = (command: string, extra: { policy?: "allow-all"; approve?: "yes" | "no" } = {}) =>
  runTool({ workspace: ws, workMode: "BUILD", tool: "bash", args: { command }, sandbox: "none", ...extra })

const ran = () => fs.readdirSync(ws).filter((n) => n.startsWith("ran-"))

describe("without a sandbox, bash asks before what static analysis cannot judge", () => {
  const attacks = [
    "./x.sh", "sh x.sh", "bash ./x.sh", "make", "node a.js", "npm run build", "timeout 5 ./x.sh", "env sh x.sh",
    "F=./x.sh; $F", "cat ${X:-x.sh} > /dev/null; touch ran-dyn", "echo $(pwd) && touch ran-sub", "echo `pwd`; touch ran-bt", "ls && ./x.sh", "find . -name x.sh -exec ./x.sh \\;",
    "echo ./x.sh | xargs sh", "PATH=.:/usr/bin x.sh", "cd . && make all", "f() { ./x.sh; }; f"
  ]
  for (const command of attacks) {
    it(`refuses ${JSON.stringify(command)} when nobody can approve, and nothing ran`, async () => {
      const r = await bash(command)
      expect(r.ok).toBe(false)
      if (!r.ok) {
        expect(r.error["rule"]).toBe("approval.declined")
        expect(r.error.message).toContain("bash runs unsandboxed here")
        expect(r.error.message).toContain("apt-get install bubblewrap")
      }
      expect(ran()).toEqual([])
    })
  }

  it("allow-all still says yes (the program runs)", async () => {
    const r = await bash("./x.sh && make && node a.js", { policy: "allow-all" })
    expect(r.ok).toBe(true)
    expect(ran().sort()).toEqual(["ran-make", "ran-node", "ran-x"])
  })

  it("the operator's approval runs it", async () => {
    const r = await bash("./x.sh", { approve: "yes" })
    expect(r.ok).toBe(true)
    expect(ran()).toEqual(["ran-x"])
  })

  it("plain commands still run without a question", async () => {
    const r = await bash("ls && cat package.json && echo $?")
    expect(r.ok).toBe(true)
    if (r.ok) expect(r.text).toContain("scripts")
  })

  it("the session's first bash result says bash is unsandboxed, with the install command; later ones do not", async () => {
    const kernel = createKernel({ workspace: ws, workMode: "BUILD", sandbox: "none" })
    try {
      const first = await kernel.run("bash", { command: "echo one" })
      const second = await kernel.run("bash", { command: "echo two" })
      expect(first.ok && first.text).toMatch(/^\[note: bash runs unsandboxed on this machine.*apt-get install bubblewrap.*\]\none/s)
      expect(second.ok && second.text).toMatch(/^two/)
      expect(second.ok && second.text).not.toContain("unsandboxed on this machine")
    } finally {
      await kernel.close()
    }
  })

  it("doctor's and mcp serve's sandbox line says it plainly, with the install command", () => {
    const line = sandboxLine("auto", { _tag: "Unavailable", reason: "bwrap not found" })
    expect(line).toMatch(/bash runs unsandboxed on this machine.*bwrap not found.*ask for approval.*apt-get install bubblewrap/)
    expect(sandboxLine("bwrap", { _tag: "Unavailable", reason: "bwrap not found" })).toContain("apt-get install bubblewrap")
  })
})
