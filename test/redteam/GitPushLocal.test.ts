/**
 * Red team (issue 19), was a hole: git_push runs on the host (it needs the user's network and credentials), and its
 * `remote` is any string git accepts: a path. Pushing to a local repository spawns `git receive-pack` there, on
 * the host, reading that repository's own configuration. Through the built binary (default sandbox, allow-all).
 *
 * 1. Sandboxed bash makes `evil.git` (a bare repository inside the workspace) whose config names
 *    `core.alternateRefsCommand` (and an `objects/info/alternates`, so receive-pack runs it). `git_push
 *    {"remote":"./evil.git","branch":"main"}` runs that program outside any sandbox: it wrote a file outside the
 *    workspace and copied `.env` into it. The `-c core.hooksPath=/dev/null` of the push does not cover this key.
 * 2. `git_push {"remote":"<a repository outside the workspace>"}` changes that repository (a new branch there).
 *
 * Suggested fix: src/tools/GitTools.ts `push`: refuse a remote that is not a configured remote name, and pass
 * `-c protocol.file.allow=never` (local paths and file:// URLs are the "file" protocol), so no local receive-pack
 * runs and nothing outside the workspace is written through a path.
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { attackFile, attackWorkspace } from "./support/Attack.js"
import { title, unavailable } from "../support/Sandbox.js"

const cleanups = attackFile()
const canary = "CANARY-PUSH-7d41"

const setup = () => {
  const ws = attackWorkspace(cleanups)
  fs.writeFileSync(path.join(ws.root, ".env"), `K=${canary}\n`)
  return { ...ws, marker: path.join(ws.parent, "PWNED") }
}

describe.skipIf(unavailable !== undefined)(title("git_push to a local repository"), () => {
  it("a bare repository made in bash, its config naming core.alternateRefsCommand: nothing runs on the host", () => {
    const { root, marker, tool, script } = setup()
    const cmd = `sh -c "id > ${marker}; cat ${path.join(root, ".env")} >> ${marker}; cat ${path.join(root, ".env")} > ${path.join(root, "loot.txt")}" --`
    const out = script(
      [
        "git init -q --bare evil.git && git init -q --bare other.git",
        "echo $PWD/other.git/objects > evil.git/objects/info/alternates",
        `git -C evil.git config core.alternateRefsCommand '${cmd}'`,
        "echo planted"
      ].join("\n")
    )
    expect(out).toContain("planted")
    const pushed = tool("git_push", { remote: "./evil.git", branch: "main" })
    const read = tool("read_file", { path: "loot.txt" })
    expect(fs.existsSync(marker)).toBe(false)
    expect(pushed.stdout + pushed.stderr + read.stdout + read.stderr).not.toContain(canary)
  })

  it("a repository outside the workspace, named by its path, is not changed", () => {
    const { parent, tool } = setup()
    const outside = path.join(parent, "outside.git")
    execFileSync("git", ["init", "-q", "--bare", outside])
    tool("git_push", { remote: outside, branch: "main" })
    tool("git_push", { remote: `file://${outside}`, branch: "main" })
    expect(execFileSync("git", ["-C", outside, "for-each-ref"], { encoding: "utf8" })).toBe("")
  })
})
