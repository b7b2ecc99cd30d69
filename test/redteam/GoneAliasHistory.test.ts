/**
 * Red team (issue 19), a hole: a protected name that was a symlink in an earlier commit, and is gone from the
 * working tree, still named a secret at that revision. `.env -> env/development` committed, later `git rm .env`
 * (the key rotated or the target deleted too): the scan sees no alias today, so the git tools judged
 * `env/development` by its name alone, and git_show `HEAD~1:env/development` and the old commit's patch printed the
 * key that `.env` held. The same for a folder: `.ssh -> dotfiles/ssh` committed, then removed, and
 * `dotfiles/ssh/config` shown at that revision.
 *
 * Invariant: a blob that sat behind a protected name at some revision (directly, or as the target of a protected
 * symlink at that revision) is a secret's content; no git tool prints it, under any name, in any patch.
 *
 * Honest look-alike: a symlink at an innocent name (`latest -> notes/v1.txt`) leaves its target readable at every
 * revision.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { attackFile, attackWorkspace } from "./support/Attack.js"
import { title } from "../support/Sandbox.js"

const canary = "GONEALIASCANARY"
const cleanups = attackFile()

const shown = (r: { readonly stdout: string; readonly stderr: string }) => r.stdout + r.stderr

describe(title("a protected symlink removed from the working tree: its target's old revisions through the git tools"), () => {
  it("a file link (.env -> env/development), removed and the key rotated: no git_show prints the old key", () => {
    const ws = attackWorkspace(cleanups)
    fs.mkdirSync(path.join(ws.root, "env"))
    fs.writeFileSync(path.join(ws.root, "env/development"), `TOKEN=${canary}\n`)
    fs.symlinkSync("env/development", path.join(ws.root, ".env"))
    ws.git("add", "-A")
    ws.git("commit", "-q", "-m", "env")
    ws.git("rm", "-q", ".env")
    fs.writeFileSync(path.join(ws.root, "env/development"), "TOKEN=rotated\n")
    ws.git("add", "-A")
    ws.git("commit", "-q", "-m", "rotate, no more link")
    // No protected name points at env/development any more: today's content is an ordinary file.
    expect(shown(ws.tool("read_file", { path: "env/development" }))).toContain("rotated")
    for (const rev of ["HEAD~1:env/development", "HEAD~1", "HEAD"]) expect(shown(ws.tool("git_show", { rev })), rev).not.toContain(canary)
    // The rotation's patch removes the old key: its section is withheld as a whole, said by a marker. (The target
    // counts as a secret path at every revision, a conservative reading: git_show of its newest revision is refused
    // too, while read_file shows today's content.)
    expect(shown(ws.tool("git_show", { rev: "HEAD" }))).toContain("[minicode: diff of secret file env/development hidden]")
  }, 60_000)

  it("the link and its target both deleted: the old revision of the target is refused", () => {
    const ws = attackWorkspace(cleanups)
    fs.mkdirSync(path.join(ws.root, "cfg"))
    fs.writeFileSync(path.join(ws.root, "cfg/keys.txt"), `K=${canary}\n`)
    fs.symlinkSync("../cfg/keys.txt", path.join(ws.root, "app.env.link"))
    fs.mkdirSync(path.join(ws.root, "deploy"))
    fs.symlinkSync("../cfg/keys.txt", path.join(ws.root, "deploy/.env"))
    ws.git("add", "-A")
    ws.git("commit", "-q", "-m", "deploy env")
    ws.git("rm", "-q", "-r", "deploy", "cfg", "app.env.link")
    ws.git("commit", "-q", "-m", "gone")
    for (const rev of ["HEAD~1:cfg/keys.txt", "HEAD~1", "HEAD"]) expect(shown(ws.tool("git_show", { rev })), rev).not.toContain(canary)
  }, 60_000)

  it("a folder link (.ssh -> dotfiles/ssh), removed: the files under its target at that revision are refused", () => {
    const ws = attackWorkspace(cleanups)
    fs.mkdirSync(path.join(ws.root, "dotfiles/ssh"), { recursive: true })
    fs.writeFileSync(path.join(ws.root, "dotfiles/ssh/config"), `Host x\n  IdentityFile ${canary}\n`)
    fs.symlinkSync("dotfiles/ssh", path.join(ws.root, ".ssh"))
    ws.git("add", "-A")
    ws.git("commit", "-q", "-m", "dotfiles")
    ws.git("rm", "-q", ".ssh")
    fs.writeFileSync(path.join(ws.root, "dotfiles/ssh/config"), "Host y\n")
    ws.git("add", "-A")
    ws.git("commit", "-q", "-m", "no link")
    for (const rev of ["HEAD~1:dotfiles/ssh/config", "HEAD~1", "HEAD"]) expect(shown(ws.tool("git_show", { rev })), rev).not.toContain(canary)
  }, 60_000)

  it("a link made only on another branch (the checkout never had it): that branch's target is refused", () => {
    const ws = attackWorkspace(cleanups)
    ws.git("checkout", "-q", "-b", "side")
    fs.mkdirSync(path.join(ws.root, "keys"))
    fs.writeFileSync(path.join(ws.root, "keys/prod"), `K=${canary}\n`)
    fs.symlinkSync("keys/prod", path.join(ws.root, ".env"))
    ws.git("add", "-A")
    ws.git("commit", "-q", "-m", "side env")
    ws.git("checkout", "-q", "-")
    expect(fs.existsSync(path.join(ws.root, "keys"))).toBe(false)
    for (const rev of ["side:keys/prod", "side"]) expect(shown(ws.tool("git_show", { rev })), rev).not.toContain(canary)
  }, 60_000)

  it("honest: a link at an innocent name leaves its target's history readable", () => {
    const ws = attackWorkspace(cleanups)
    fs.mkdirSync(path.join(ws.root, "notes"))
    fs.writeFileSync(path.join(ws.root, "notes/v1.txt"), "release notes one\n")
    fs.symlinkSync("notes/v1.txt", path.join(ws.root, "latest"))
    ws.git("add", "-A")
    ws.git("commit", "-q", "-m", "notes")
    ws.git("rm", "-q", "latest")
    fs.writeFileSync(path.join(ws.root, "notes/v1.txt"), "release notes two\n")
    ws.git("add", "-A")
    ws.git("commit", "-q", "-m", "edit")
    expect(shown(ws.tool("git_show", { rev: "HEAD~1:notes/v1.txt" }))).toContain("release notes one")
    expect(shown(ws.tool("git_show", { rev: "HEAD" }))).toContain("release notes two")
  }, 60_000)
})
