/**
 * Red team (issue 19), message files holding a secret's patch in git folders other than the workspace's own `.git`:
 * `git commit -v` keeps the diff below the scissors line in `COMMIT_EDITMSG`, and the sandbox masked that file only
 * in the root's `.git` folder (SecretObjects.secretMessages, after EditMsgQuotedPath). A nested repository (a clone
 * inside the workspace), a submodule (its git folder is `.git/modules/<name>`) and a workspace made with `git init
 * --separate-git-dir=.repo` (a `.git` file) keep theirs elsewhere, and sandboxed bash printed the `.env` committed
 * there. Through the built binary (default sandbox, allow-all; the script written by write_file, so no guard sees a
 * name). Now every git folder the scan pins, and the submodules' folders below each, is looked at.
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { bin } from "../serve/support/McpServeHarness.js"
import { title, unavailable } from "../support/Sandbox.js"
import { attackFile, attackWorkspace } from "./support/Attack.js"

const cleanups = attackFile()

/** `git` in `cwd` as the user runs it, a commit message written by an editor that keeps the `-v` template. */
const gitIn = (cwd: string) => (...args: Array<string>) =>
  execFileSync("git", ["-c", "user.email=dev@example.com", "-c", "user.name=Dev", "-c", "protocol.file.allow=always", ...args], {
    cwd,
    encoding: "utf8",
    env: { ...process.env, GIT_EDITOR: "sed -i 1imessage" }
  })

/** The user commits `.env` in `dir` with `git commit -v`: the patch stays in that repository's COMMIT_EDITMSG. */
const commitVerbose = (dir: string, canary: string) => {
  fs.writeFileSync(path.join(dir, ".env"), `TOKEN=${canary}\n`)
  gitIn(dir)("add", "-f", ".env")
  gitIn(dir)("commit", "-q", "-v")
}

describe.skipIf(unavailable !== undefined)(title("message files of other git folders"), () => {
  it("a nested repository's COMMIT_EDITMSG with a committed .env's patch is not shown to bash", () => {
    const ws = attackWorkspace(cleanups)
    const sub = path.join(ws.root, "vendor/lib")
    fs.mkdirSync(sub, { recursive: true })
    gitIn(sub)("init", "-q", "-b", "main")
    commitVerbose(sub, "NESTEDMSGCANARY")
    expect(fs.readFileSync(path.join(sub, ".git/COMMIT_EDITMSG"), "utf8")).toContain("NESTEDMSGCANARY")
    const out = ws.script("cat vendor/lib/.git/COMMIT_EDITMSG; grep -r CANARY vendor/lib/.git; echo done")
    expect(out).toContain("done")
    expect(out).not.toContain("NESTEDMSGCANARY")
  }, 120_000)

  it("a submodule's COMMIT_EDITMSG (in .git/modules) is not shown to bash", () => {
    const ws = attackWorkspace(cleanups)
    const upstream = path.join(ws.parent, "upstream")
    fs.mkdirSync(upstream)
    gitIn(upstream)("init", "-q", "-b", "main")
    fs.writeFileSync(path.join(upstream, "x.txt"), "x\n")
    gitIn(upstream)("add", "x.txt")
    gitIn(upstream)("commit", "-q", "-m", "x")
    gitIn(ws.root)("submodule", "add", "-q", upstream, "sm")
    gitIn(ws.root)("commit", "-q", "-m", "sm")
    commitVerbose(path.join(ws.root, "sm"), "SUBMODULEMSGCANARY")
    expect(fs.readFileSync(path.join(ws.root, ".git/modules/sm/COMMIT_EDITMSG"), "utf8")).toContain("SUBMODULEMSGCANARY")
    const out = ws.script("cat .git/modules/sm/COMMIT_EDITMSG; grep -r CANARY .git/modules; echo done")
    expect(out).toContain("done")
    expect(out).not.toContain("SUBMODULEMSGCANARY")
  }, 120_000)

  it("a separate git folder's COMMIT_EDITMSG (git init --separate-git-dir=.repo) is not shown to bash", () => {
    const ws = attackWorkspace(cleanups)
    const root = path.join(ws.parent, "sep")
    fs.mkdirSync(root)
    gitIn(root)("init", "-q", "-b", "main", "--separate-git-dir=.repo")
    fs.writeFileSync(path.join(root, "a.txt"), "a\n")
    gitIn(root)("add", "a.txt")
    gitIn(root)("commit", "-q", "-m", "a")
    commitVerbose(root, "SEPDIRMSGCANARY")
    const cli = (args: Array<string>) => execFileSync(process.execPath, [bin, ...args, "--cwd", root, "--work-mode", "BUILD", "--policy", "allow-all"], { encoding: "utf8" })
    cli(["tool", "write_file", JSON.stringify({ path: "s.sh", content: "cat .repo/COMMIT_EDITMSG; grep -r CANARY .repo; echo done\n" })])
    let out = ""
    try {
      out = cli(["tool", "bash", JSON.stringify({ command: "sh s.sh" })])
    } catch (e) {
      out = String((e as { stdout?: unknown }).stdout ?? e)
    }
    expect(out).toContain("done")
    expect(out).not.toContain("SEPDIRMSGCANARY")
  }, 120_000)

  it("honest: a nested repository's message file without a secret's patch stays readable", () => {
    const ws = attackWorkspace(cleanups)
    const sub = path.join(ws.root, "lib")
    fs.mkdirSync(sub)
    gitIn(sub)("init", "-q", "-b", "main")
    fs.writeFileSync(path.join(sub, "x.txt"), "x\n")
    gitIn(sub)("add", "x.txt")
    gitIn(sub)("commit", "-q", "-v")
    const out = ws.script("cat lib/.git/COMMIT_EDITMSG")
    expect(out).toContain("message")
    expect(out).toContain("diff --git a/x.txt")
  }, 120_000)
})
