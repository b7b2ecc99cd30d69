/**
 * Red team against issue 40's exception (code is not a secret by its stem or its folder's name): can an agent turn a
 * protected file into "code" by a sequence of allowed calls, or reach it through a code file's name? A `credentials/`
 * folder holding a real credential file and honest code beside it; every tool, in sequence, in process (runTool), and
 * sandboxed bash with a second process swapping the code file for a link to the secret while grep and read_file run.
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { runTool } from "../../src/index.js"
import { unavailable } from "../support/Sandbox.js"

const canary = "SRCSEQCANARY"
const dirs: Array<string> = []
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true })
})
const workspace = () => {
  const ws = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "minicode-srcseq-")))
  dirs.push(ws)
  fs.mkdirSync(path.join(ws, "credentials"))
  fs.writeFileSync(path.join(ws, "credentials/prod.json"), `{"key":"${canary}JSON"}\n`)
  fs.writeFileSync(path.join(ws, "credentials/tls.go"), "package credentials\n\nfunc TLS() string { return \"honest\" }\n")
  fs.writeFileSync(path.join(ws, ".env"), `TOKEN=${canary}ENV\n`)
  return ws
}
const run = (ws: string, tool: string, args: unknown) => runTool({ workspace: ws, workMode: "BUILD", tool, args, policy: "allow-all", sandbox: "auto" })
const said = (r: Awaited<ReturnType<typeof run>>) => JSON.stringify(r)

describe("code is not a secret by name: the exception cannot be used to read a secret", () => {
  it("moves, edits and copies that would give a secret a code name are refused; every reader then shows no canary", async () => {
    const ws = workspace()
    // The honest file reads; the credential next to it does not.
    expect(said(await run(ws, "read_file", { path: "credentials/tls.go" }))).toContain("honest")
    const direct = await run(ws, "read_file", { path: "credentials/prod.json" })
    expect(direct.ok ? "ran" : direct.error._tag).toBe("ToolDenied")
    // Give the secret a code name, by every file tool.
    for (const [tool, args] of [
      ["move_file", { from: "credentials/prod.json", to: "credentials/prod.go" }],
      ["move_file", { from: ".env", to: "env.py" }],
      ["move_file", { from: "credentials", to: "notsecret" }],
      ["edit_file", { path: "credentials/prod.json", old_string: "key", new_string: "k" }]
    ] as const) {
      const r = await run(ws, tool, args)
      // Refused by a gate, not by a typo in the arguments.
      expect(r.ok ? "ran" : r.error._tag, `${tool} ${JSON.stringify(args)}: ${said(r)}`).toBe("ToolDenied")
    }
    // Move the honest code away and a secret-named file onto its name: refused by the destination's rules.
    expect((await run(ws, "move_file", { from: "credentials/tls.go", to: "tls.go" })).ok).toBe(true)
    const onto = await run(ws, "move_file", { from: "credentials/prod.json", to: "credentials/tls.go" })
    expect(onto.ok ? "ran" : onto.error._tag, said(onto)).toBe("ToolDenied")
    // Move back, then read by every tool.
    expect((await run(ws, "move_file", { from: "tls.go", to: "credentials/tls.go" })).ok).toBe(true)
    for (const [tool, args] of [
      ["read_file", { path: "credentials/tls.go" }],
      ["grep", { pattern: "SRCSEQ.ANARY" }],
      ["grep", { pattern: "SRCSEQ.ANARY", path: "credentials" }],
      ["glob", { pattern: "**/*" }],
      ["list_dir", { path: "credentials" }],
      ["repo_map", {}]
    ] as const) {
      expect(said(await run(ws, tool, args)), `${tool}`).not.toContain(canary)
    }
    expect(fs.readFileSync(path.join(ws, "credentials/prod.json"), "utf8")).toContain(canary)
  }, 120_000)

  it.skipIf(unavailable !== undefined)("a second process swapping the code file for a link to the secret while grep and read_file run shows no canary", async () => {
    const ws = workspace()
    const code = path.join(ws, "credentials/tls.go")
    const link = path.join(ws, "credentials/swap.go")
    fs.symlinkSync("prod.json", link)
    // The swapper: renames the link over the code file's name and the code back, as fast as it can.
    const swapper = spawn(process.execPath, [
      "-e",
      `const fs=require("fs");const a=${JSON.stringify(code)},b=${JSON.stringify(link)},t=a+".t";const end=Date.now()+8000;while(Date.now()<end){try{fs.renameSync(a,t);fs.renameSync(b,a);fs.renameSync(a,b);fs.renameSync(t,a)}catch{}}`
    ])
    try {
      for (let i = 0; i < 12; i++) {
        for (const [tool, args] of [
          ["read_file", { path: "credentials/tls.go" }],
          ["grep", { pattern: "key|honest", path: "credentials" }],
          ["bash", { command: "cat credentials/tls.go credentials/*.go 2>&1; true" }]
        ] as const) {
          expect(said(await run(ws, tool, args)), `${tool} round ${i}`).not.toContain(canary)
        }
      }
    } finally {
      swapper.kill("SIGKILL")
    }
  }, 180_000)
})
