/**
 * Red team (issue 19), a hole: a protected symlink's target is protected by its PATH (ScanAliases `extend`: the
 * link's `realpath`, and `.minicode/alias-targets` keyed by path), and the jail protects that path and its subtree,
 * not the folders above it. move_file of the target's FOLDER is allowed; the link then dangles, so no scan finds the
 * target any more, and the remembered target is looked for at its old path only.
 *
 * Chain (each call allowed, one-shot CLI, allow-all, default sandbox): a user's `.env -> env/development` (the
 * per-stage env file in use); move_file `env` -> `env2`; read_file `env2/development` (and grep, and bash `cat`)
 * print the secret. Same with a protected folder name linked to a folder (`.ssh -> dotfiles/ssh`) and its parent
 * moved (its file named innocently: `notes`; a key's own name is refused by name). Violates: no tool output contains a protected file's content; protected paths are protected by ancestry
 * (no file tool moves a folder that contains one, so a move never makes a protected file unprotected).
 *
 * Sandboxed bash's `mv env env2` holds (the masked target's folders are mount points there: EBUSY).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { attackFile, attackWorkspace } from "./support/Attack.js"
import { title, unavailable } from "../support/Sandbox.js"

const canary = "ALIASANCESTORCANARY"
const cleanups = attackFile()

const put = (root: string, rel: string, text: string) => {
  fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true })
  fs.writeFileSync(path.join(root, rel), text)
}

/** What read_file, grep and (with a sandbox) bash's `cat` show of `name`. */
const shown = (ws: ReturnType<typeof attackWorkspace>, name: string): string => {
  const out = [ws.tool("read_file", { path: name }), ws.tool("grep", { pattern: "TOKEN" })].map((r) => r.stdout + r.stderr)
  if (unavailable === undefined) {
    const r = ws.tool("bash", { command: `cat ${name}` })
    out.push(r.stdout + r.stderr)
  }
  return out.join("\n")
}

describe(title("moving the folder above a protected symlink's target"), () => {
  it(".env -> env/development: move_file env -> env2 does not make env2/development readable", () => {
    const ws = attackWorkspace(cleanups)
    put(ws.root, "env/development", `TOKEN=${canary}\n`)
    fs.symlinkSync("env/development", path.join(ws.root, ".env"))
    // Holds: the target itself is refused.
    expect(ws.tool("read_file", { path: "env/development" }).stdout).not.toContain(canary)
    const moved = ws.tool("move_file", { from: "env", to: "env2" })
    // Either the move is refused, or what it moved stays protected.
    if (moved.status === 0 && fs.existsSync(path.join(ws.root, "env2/development"))) expect(shown(ws, "env2/development")).not.toContain(canary)
    else expect(fs.readFileSync(path.join(ws.root, "env/development"), "utf8")).toContain(canary)
  }, 60_000)

  it(".ssh -> dotfiles/ssh: move_file dotfiles -> df does not make df/ssh/notes readable", () => {
    const ws = attackWorkspace(cleanups)
    put(ws.root, "dotfiles/ssh/notes", `TOKEN=${canary}\n`)
    fs.symlinkSync("dotfiles/ssh", path.join(ws.root, ".ssh"))
    expect(ws.tool("read_file", { path: "dotfiles/ssh/notes" }).stdout).not.toContain(canary)
    const moved = ws.tool("move_file", { from: "dotfiles", to: "df" })
    if (moved.status === 0 && fs.existsSync(path.join(ws.root, "df/ssh/notes"))) expect(shown(ws, "df/ssh/notes")).not.toContain(canary)
    else expect(fs.existsSync(path.join(ws.root, "dotfiles/ssh/notes"))).toBe(true)
  }, 60_000)
})
