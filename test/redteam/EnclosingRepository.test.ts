/**
 * Red team (issue 19), a HOLE: the workspace is `app/` of a larger repository. The git tools worked on the whole
 * repository: their read sandbox shows only the workspace, so git_status listed every file outside it as deleted
 * and git_diff printed each one's committed content as a deletion; git_show `HEAD`, `HEAD:other/notes.txt` and
 * `HEAD:./../other/notes.txt` printed files read_file refuses (outside the workspace).
 *
 * Invariant: through the git tools, as through the file tools, nothing outside the workspace is read. The
 * workspace's own files, changes and history are shown as before.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { spawnSync } from "node:child_process"
import { describe, expect, it } from "vitest"
import { bin } from "../serve/support/McpServeHarness.js"
import { attackFile, attackWorkspace } from "./support/Attack.js"
import { title } from "../support/Sandbox.js"

const canary = "ENCLOSINGREPOCANARY"
const cleanups = attackFile()

describe(title("a workspace inside a larger repository: the rest of it through the git tools"), () => {
  it("git_status, git_diff and git_show show nothing of the files outside the workspace", () => {
    const ws = attackWorkspace(cleanups)
    const app = path.join(ws.root, "app")
    fs.mkdirSync(app)
    fs.mkdirSync(path.join(ws.root, "other"))
    fs.writeFileSync(path.join(app, "main.txt"), "app line one\n")
    fs.writeFileSync(path.join(ws.root, "other/notes.txt"), `${canary} one\n`)
    ws.git("add", "-A")
    ws.git("commit", "-q", "-m", "app and other")
    fs.writeFileSync(path.join(ws.root, "other/notes.txt"), `${canary} two\n`)
    ws.git("commit", "-q", "-am", "other only")
    fs.writeFileSync(path.join(app, "main.txt"), "app line two\n")
    const tool = (name: string, args: unknown) => {
      const r = spawnSync(process.execPath, [bin, "tool", name, JSON.stringify(args), "--cwd", app, "--work-mode", "BUILD", "--policy", "allow-all", "--json"], { encoding: "utf8" })
      return r.stdout + r.stderr
    }
    expect(fs.existsSync(path.join(app, ".git"))).toBe(false)
    const status = tool("git_status", {})
    expect(status).toContain("main.txt")
    expect(status).not.toContain("other")
    expect(status).not.toContain("a.txt")
    const diff = tool("git_diff", {})
    expect(diff).toContain("+app line two")
    expect(diff).not.toContain(canary)
    for (const rev of ["HEAD", "HEAD~1", "HEAD:other/notes.txt", "HEAD~1:other/notes.txt", "HEAD:./../other/notes.txt", "HEAD:../other/notes.txt", ":other/notes.txt", ":0:other/notes.txt", "HEAD~1..HEAD"]) {
      expect(tool("git_show", { rev }), rev).not.toContain(canary)
    }
    expect(tool("git_show", { rev: "HEAD:other/notes.txt" })).toMatch(/outside the workspace/)
    // The commit that changed only outside files: its header, and a word that nothing inside changed.
    expect(tool("git_show", { rev: "HEAD" })).toMatch(/other only[\s\S]*no change inside the workspace/)
    // Honest: the workspace's own history.
    expect(tool("git_show", { rev: "HEAD~1" })).toContain("+app line one")
    expect(tool("git_show", { rev: "HEAD:app/main.txt" })).toContain("app line one")
    expect(tool("git_show", { rev: "HEAD:./main.txt" })).toContain("app line one")
  }, 120_000)

  /**
   * Was a hole (issue 19): git_log listed the enclosing repository's commit subjects, those of commits that touch
   * only files outside the workspace among them ("other only: ENCLOSINGREPOCANARY"). Now it lists the commits that
   * touch the workspace (`-- .`), and a `path` stays inside it (`../other` is refused by the jail).
   */
  it("git_log lists only the commits touching the workspace", () => {
    const ws = attackWorkspace(cleanups)
    const app = path.join(ws.root, "app")
    fs.mkdirSync(app)
    fs.mkdirSync(path.join(ws.root, "other"))
    fs.writeFileSync(path.join(app, "main.txt"), "app line one\n")
    ws.git("add", "-A")
    ws.git("commit", "-q", "-m", "app work")
    fs.writeFileSync(path.join(ws.root, "other/notes.txt"), "notes\n")
    ws.git("add", "-A")
    ws.git("commit", "-q", "-m", `outside only ${canary}`)
    const tool = (name: string, args: unknown) => {
      const r = spawnSync(process.execPath, [bin, "tool", name, JSON.stringify(args), "--cwd", app, "--work-mode", "BUILD", "--policy", "allow-all", "--json"], { encoding: "utf8" })
      return r.stdout + r.stderr
    }
    const log = tool("git_log", {})
    expect(log).not.toContain(canary)
    expect(log).not.toContain("first")
    // Honest: the workspace's own history, whole or for one of its paths.
    expect(log).toContain("app work")
    expect(tool("git_log", { path: "main.txt" })).toContain("app work")
    for (const p of ["..", "../other", "../other/notes.txt", "/"]) {
      const r = tool("git_log", { path: p })
      expect(r, p).not.toContain(canary)
      expect(r, p).toMatch(/jail/)
    }
  }, 120_000)
})
