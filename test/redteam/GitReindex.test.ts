/**
 * Red team (issue 19), git family: the git_* tools hide a secret by its path, so a chain that gives the secret's blob
 * an innocent path gets past them. Through the built binary, default sandbox.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { bin, gitWorkspaces } from "../serve/support/McpServeHarness.js"

const canary = "RTGITCANARY"
const { workspace } = gitWorkspaces()

const setup = () => {
  const ws = workspace()
  const { root, git } = ws
  fs.writeFileSync(path.join(root, ".env"), `TOKEN=${canary}\n`)
  fs.writeFileSync(path.join(root, "a.txt"), "a\n")
  git("add", "a.txt", ".env")
  git("commit", "-q", "-m", "first (a secret committed by mistake)")
  const tool = (name: string, args: unknown) =>
    spawnSync(process.execPath, [bin, "tool", name, JSON.stringify(args), "--cwd", root, "--work-mode", "BUILD", "--policy", "allow-all", "--json"], {
      encoding: "utf8"
    })
  return { root, git, tool }
}

describe("a committed secret's blob under an innocent path", () => {
  it("the direct ways stay refused: git_show of the path, of a tag on the blob", () => {
    const { tool } = setup()
    expect(tool("git_show", { rev: "HEAD:.env" }).stdout).not.toContain(canary)
    expect(tool("git_show", { rev: "HEAD" }).stdout).not.toContain(canary)
    expect(tool("write_file", { path: "s.sh", content: "git tag t HEAD:.env\n" }).status).toBe(0)
    // Sandboxed bash no longer sees the object store of a history that holds a secret, so the tag may not even be
    // made; if it was, git_show still refuses the bare blob.
    const made = tool("bash", { command: "sh s.sh" }).status === 0
    const tag = tool("git_show", { rev: "t" })
    if (made) expect(tag.stdout).toContain("bare blob id")
    expect(tag.stdout + tag.stderr).not.toContain(canary)
  })

  // Was a hole: `write_file s.sh "git update-index --add --cacheinfo 100644,$(git rev-parse HEAD:.env),innocent.txt"`,
  // `bash "sh s.sh"` (git in the sandbox needs only the blob id, no secret content), then `git_diff {staged: true}`
  // (or `git_diff {}`, or a commit + `git_show HEAD`) printed the secret as innocent.txt's patch: the patch filter keyed
  // on paths only. Now a section is also hidden when its blob id (`--full-index`) ever sat at a secret path.
  it("git_diff never shows a secret's content re-indexed under another name", () => {
    const { tool } = setup()
    const body = "b=$(git rev-parse HEAD:.env); git update-index --add --cacheinfo 100644,$b,innocent.txt\n"
    expect(tool("write_file", { path: "s.sh", content: body }).status).toBe(0)
    const made = tool("bash", { command: "sh s.sh" }).status === 0
    for (const args of [{ staged: true }, {}]) {
      const r = tool("git_diff", args)
      if (made) expect(r.stdout).toContain("[minicode: diff of secret file innocent.txt hidden]")
      expect(r.stdout).not.toContain(canary)
    }
    expect(tool("write_file", { path: "t.sh", content: "git commit -qm sneaky\n" }).status).toBe(0)
    tool("bash", { command: "sh t.sh" })
    for (const rev of ["HEAD", "HEAD:innocent.txt"]) expect(tool("git_show", { rev }).stdout, rev).not.toContain(canary)
  })

  it("honest patches still show, with full blob ids", () => {
    const { root, tool } = setup()
    fs.writeFileSync(path.join(root, "a.txt"), "honest change\n")
    const r = tool("git_diff", {})
    expect(r.stdout).toContain("+honest change")
    expect(r.stdout).toMatch(/index [0-9a-f]{40}\.\.[0-9a-f]{40}/)
    expect(tool("git_show", { rev: "HEAD:a.txt" }).stdout).toContain('"text":"a"')
  })
})
