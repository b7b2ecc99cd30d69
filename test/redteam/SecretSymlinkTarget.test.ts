/**
 * Red team (issue 19), a hole: `.env` as a symlink to a file inside the workspace with an unprotected name (per-stage
 * env files kept as `env/development`, `config/local`, and `.env` linked to the one in use, as direnv/dotenv setups
 * and `ln -sf env/$STAGE .env` scripts do). `.env` itself is refused, but its content lives in the link's target,
 * which read_file, grep and the sandbox (masks by name: `.env` is masked, the target is not) show by its own name.
 * Through the built binary (allow-all, default sandbox).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { attackFile, attackWorkspace } from "./support/Attack.js"
import { title, unavailable } from "../support/Sandbox.js"

const canary = "SYMTARGETCANARY"
const cleanups = attackFile()

const linked = () => {
  const ws = attackWorkspace(cleanups)
  fs.mkdirSync(path.join(ws.root, "env"))
  fs.writeFileSync(path.join(ws.root, "env/development"), `TOKEN=${canary}\n`)
  fs.symlinkSync("env/development", path.join(ws.root, ".env"))
  return ws
}

describe(".env as a symlink to an unprotected name in the workspace", () => {
  it("read_file of .env is refused (holds), but of its target shows the secret", () => {
    const { tool } = linked()
    expect(tool("read_file", { path: ".env" }).stdout).not.toContain(canary)
    const r = tool("read_file", { path: "env/development" })
    expect(r.stdout + r.stderr).not.toContain(canary)
  })

  it("grep does not print the secret's line", () => {
    const { tool } = linked()
    const r = tool("grep", { pattern: "TOKEN" })
    expect(r.stdout + r.stderr).not.toContain(canary)
  })

  it.skipIf(unavailable !== undefined)(title("sandboxed bash cannot cat the target"), () => {
    const { script } = linked()
    expect(script("cat env/development")).not.toContain(canary)
  })
})
