/**
 * git_diff/git_show find the blob ids of secrets by walking the whole history; the walk is cached by the ref
 * tips (HEAD, packed-refs, refs/, reflogs, the index) and happens again only when one of them changes. Counted on a
 * recording shell over real git; a new commit that adds a secret (also under an innocent name) stays hidden.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect, Layer } from "effect"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import * as NodeShell from "../../src/adapters/shell/NodeShell.js"
import { createKernel } from "../../src/index.js"
import * as Kernel from "../../src/kernel/Kernel.js"
import { Extensions } from "../../src/kernel/Executor.js"
import { Shell } from "../../src/ports/Shell.js"
import * as GitTools from "../../src/tools/GitTools.js"
import { committedRepo } from "../support/Workspace.js"

let ws: string
let git: (...args: Array<string>) => string
beforeEach(() => {
  ;({ root: ws, git } = committedRepo("minicode-gitcache-"))
})
afterEach(() => fs.rmSync(ws, { recursive: true, force: true }))

/** A session whose git tools run on a host shell that counts the history walks. */
const session = () => {
  const walks: Array<number> = []
  const recording = Layer.effect(
    Shell,
    Effect.map(NodeShell.make({ unrestricted: false }), (shell) =>
      Shell.of({
        run: (spec) => {
          if (Array.isArray(spec.command) && spec.command.includes("log") && spec.command.includes("--reflog")) walks.push(Date.now())
          return shell.run(spec)
        }
      })
    )
  )
  const extensions = Kernel.withoutDiagnostics(Layer.effect(Extensions, Effect.map(GitTools.make(), (e) => [e])).pipe(Layer.provide(recording)))
  const kernel = createKernel({ workspace: ws, workMode: "BUILD", policy: "allow-all", sandbox: "none", adapters: { extensions } })
  return { kernel, walks }
}

describe("the secret-blob walk is cached by ref tips", () => {
  it("walks once while history stays put, again after a commit, and hides a secret the new commit added", async () => {
    const { kernel, walks } = session()
    try {
      fs.writeFileSync(path.join(ws, "a.txt"), "two\n")
      for (let i = 0; i < 3; i++) expect((await kernel.run("git_diff", {})).ok).toBe(true)
      expect((await kernel.run("git_show", { rev: "HEAD" })).ok).toBe(true)
      expect(walks.length).toBe(1)
      // A new commit: the secret, and the same content under an innocent name.
      fs.writeFileSync(path.join(ws, ".env"), "TOKEN=CACHECANARY\n")
      fs.writeFileSync(path.join(ws, "copy.txt"), "TOKEN=CACHECANARY\n")
      git("add", "-f", ".env", "copy.txt")
      git("commit", "-q", "-m", "oops")
      const shown = await kernel.run("git_show", { rev: "HEAD" })
      expect(walks.length).toBe(2)
      expect(shown.ok && shown.text).not.toContain("CACHECANARY")
      expect(shown.ok && shown.text).toContain("hidden")
      const blob = await kernel.run("git_show", { rev: "HEAD:copy.txt" })
      expect(blob.ok).toBe(false)
      expect(walks.length).toBe(2)
      // Amended away, still reachable through the reflog (HEAD@{1}): still hidden.
      git("rm", "-q", "--cached", ".env", "copy.txt")
      git("commit", "-q", "--amend", "--allow-empty", "-m", "clean")
      const old = await kernel.run("git_show", { rev: "HEAD@{1}" })
      expect(old.ok && old.text).not.toContain("CACHECANARY")
      expect(walks.length).toBe(3)
      // Staged only (the index changes, no ref does): hidden from git_diff --staged.
      fs.writeFileSync(path.join(ws, "other.txt"), "TOKEN=CACHECANARY\n")
      git("add", "other.txt")
      const staged = await kernel.run("git_diff", { staged: true })
      expect(staged.ok && staged.text).not.toContain("CACHECANARY")
    } finally {
      await kernel.close()
    }
  })
})
