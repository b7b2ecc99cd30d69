/**
 * Issue 19, the git family: configuration planted by any route never makes a git tool run a program, and git
 * output never shows a protected file's content. Real git in temporary repositories, through runTool; a canary
 * program writes a marker outside the workspace, which must never appear.
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { runTool } from "../../src/index.js"

let ws: string
let outside: string
let marker: string
let canary: string
const git = (...args: Array<string>) => execFileSync("git", args, { cwd: ws, encoding: "utf8" })
const write = (rel: string, content: string) => {
  fs.mkdirSync(path.dirname(path.join(ws, rel)), { recursive: true })
  fs.writeFileSync(path.join(ws, rel), content)
}

beforeEach(() => {
  ws = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "minicode-gitc-")))
  outside = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "minicode-gitc-out-")))
  marker = path.join(outside, "ran")
  canary = path.join(outside, "canary.sh")
  fs.writeFileSync(canary, `#!/bin/sh\necho ran >> ${marker}\ncat\n`, { mode: 0o755 })
  git("init", "-q", "-b", "main")
  git("config", "user.email", "dev@example.com")
  git("config", "user.name", "Dev")
  write("a.js", "one\n")
  git("add", "a.js")
  git("commit", "-q", "-m", "first")
})
afterEach(() => {
  fs.rmSync(ws, { recursive: true, force: true })
  fs.rmSync(outside, { recursive: true, force: true })
})

const run = (tool: string, args: unknown) => runTool({ workspace: ws, workMode: "BUILD", tool, args, policy: "allow-all" })
const tools: ReadonlyArray<readonly [string, unknown]> = [
  ["git_status", {}],
  ["git_diff", {}],
  ["git_log", {}],
  ["git_show", { rev: "HEAD" }],
  ["git_commit", { message: "m", paths: ["a.js"] }]
]

/** Every git tool refuses, naming the key; the canary never ran. */
const refusedEverywhere = async (key: string) => {
  for (const [tool, args] of tools) {
    const r = await run(tool, args)
    expect(r.ok, `${tool} ran`).toBe(false)
    expect(!r.ok && r.error.message, tool).toContain("git tools refuse repository-controlled programs")
    expect(!r.ok && r.error.message, tool).toContain(key)
  }
  expect(fs.existsSync(marker)).toBe(false)
}

const filterConfig = () => `[filter "x"]\n\tclean = ${canary}\n\tsmudge = ${canary}\n[diff "x"]\n\ttextconv = ${canary}\n`

describe("planted configuration never runs", () => {
  it("a .git moved away, its config edited, and moved back", async () => {
    // The file tools refuse the moves (the jail protects .git as a subtree); the config is then planted as a process
    // outside them could (sandboxed bash, the user's tools): git's own refusal is the layer under test here.
    expect((await run("move_file", { from: ".git", to: "gitbak" })).ok).toBe(false)
    fs.renameSync(path.join(ws, ".git"), path.join(ws, "gitbak"))
    const config = fs.readFileSync(path.join(ws, "gitbak/config"), "utf8")
    fs.writeFileSync(path.join(ws, "gitbak/config"), config + filterConfig())
    fs.renameSync(path.join(ws, "gitbak"), path.join(ws, ".git"))
    expect((await run("write_file", { path: ".gitattributes", content: "*.js filter=x diff=x\n" })).ok).toBe(true)
    expect((await run("write_file", { path: "a.js", content: "two\n" })).ok).toBe(true)
    await refusedEverywhere(`filter.x.clean in ${ws}/.git/config`)
  })

  it("a .git/commondir pointing at a folder the attacker wrote", async () => {
    fs.cpSync(path.join(ws, ".git"), path.join(ws, "evil"), { recursive: true })
    fs.appendFileSync(path.join(ws, "evil/config"), filterConfig())
    write(".gitattributes", "*.js filter=x diff=x\n")
    write("a.js", "two\n")
    // The file tools refuse every write under .git; the file is then planted from outside them.
    expect((await run("write_file", { path: ".git/commondir", content: "../evil\n" })).ok).toBe(false)
    fs.writeFileSync(path.join(ws, ".git/commondir"), "../evil\n")
    await refusedEverywhere(`filter.x.clean in ${ws}/evil/config`)
  })

  it("a .git file whose gitdir: names a folder the attacker wrote", async () => {
    fs.renameSync(path.join(ws, ".git"), path.join(ws, "g2"))
    fs.appendFileSync(path.join(ws, "g2/config"), filterConfig())
    write(".git", "gitdir: g2\n")
    write(".gitattributes", "*.js filter=x diff=x\n")
    write("a.js", "two\n")
    await refusedEverywhere(`filter.x.clean in ${ws}/g2/config`)
  })

  it("an include.path (and includeIf) to a workspace file, nested", async () => {
    write("inc/one.cfg", "[include]\n\tpath = two.cfg\n")
    write("inc/two.cfg", filterConfig())
    git("config", "includeIf.gitdir:/.path", "../inc/one.cfg")
    write(".gitattributes", "*.js filter=x diff=x\n")
    write("a.js", "two\n")
    await refusedEverywhere(`filter.x.clean in ${ws}/inc/two.cfg`)
  })

  it("a config.worktree enabled by extensions.worktreeConfig", async () => {
    git("config", "extensions.worktreeConfig", "true")
    fs.writeFileSync(path.join(ws, ".git/config.worktree"), `[core]\n\tfsmonitor = ${canary}\n`)
    write("a.js", "two\n")
    await refusedEverywhere(`core.fsmonitor in ${ws}/.git/config.worktree`)
  })

  it("a repository above the workspace is inspected too", async () => {
    fs.appendFileSync(path.join(ws, ".git/config"), filterConfig())
    write("pkg/.gitattributes", "*.js filter=x\n")
    write("pkg/b.js", "b\n")
    const r = await runTool({ workspace: path.join(ws, "pkg"), workMode: "BUILD", tool: "git_diff", args: {}, policy: "allow-all" })
    expect(!r.ok && r.error.message).toContain(`filter.x.clean in ${ws}/.git/config`)
    expect(fs.existsSync(marker)).toBe(false)
  })

  it("objects borrowed from outside the workspace, and a config git cannot parse", async () => {
    fs.writeFileSync(path.join(ws, ".git/objects/info/alternates"), `${outside}/objects\n`)
    const r = await run("git_log", {})
    expect(!r.ok && r.error.message).toContain(`borrows objects from ${outside}/objects, outside the workspace`)
    fs.rmSync(path.join(ws, ".git/objects/info/alternates"))
    fs.appendFileSync(path.join(ws, ".git/config"), '[filter "x"\n\tclean = evil\n')
    const bad = await run("git_status", {})
    expect(!bad.ok && bad.error.message).toContain("cannot parse")
  })

  it("a shell alias, a credential helper and a hooks path are refused the same way", async () => {
    for (const [key, value] of [["alias.st", `!${canary}`], ["credential.helper", canary], ["core.hooksPath", outside]] as const) {
      git("config", key, value)
      const r = await run("git_status", {})
      expect(!r.ok && r.error.message).toContain(key.toLowerCase())
      git("config", "--unset", key)
    }
    expect((await run("git_status", {})).ok).toBe(true)
  })
})

describe("secrets never leave through git output", () => {
  beforeEach(() => {
    write(".env", "API_KEY=sk-live-0123456789abcdef\n")
    write("config/.env.production", "DB_PASSWORD=hunter2-prod\n")
    git("add", ".env", "config/.env.production")
    git("commit", "-q", "-m", "secrets")
    write("b.txt", "b\n")
    git("add", "b.txt")
    git("commit", "-q", "-m", "b")
    write("c.txt", "c\n")
    git("add", "c.txt")
    git("commit", "-q", "-m", "c")
  })
  const leaks = (text: string) => /sk-live|hunter2|API_KEY|DB_PASSWORD/.test(text)

  it("a rev naming a secret path is refused, in every spelling", async () => {
    for (const rev of ["HEAD:.env", ":.env", ":0:.env", "HEAD~2:config/.env.production", "HEAD:./.env", "HEAD:config/../.env", "main^{commit}:.ENV"]) {
      const r = await run("git_show", { rev })
      expect(r.ok, rev).toBe(false)
      expect(!r.ok && r.error.message, rev).toContain("which is protected")
      expect(!r.ok && leaks(r.error.message), rev).toBe(false)
    }
  })

  it("a bare blob id is refused; a tree lists names only", async () => {
    const blob = git("rev-parse", "HEAD:.env").trim()
    for (const rev of [blob, blob.slice(0, 8)]) {
      const r = await run("git_show", { rev })
      expect(!r.ok && r.error.message).toContain("bare blob id")
    }
    git("tag", "blobtag", blob)
    expect((await run("git_show", { rev: "blobtag" })).ok).toBe(false)
    const tree = await run("git_show", { rev: "HEAD^{tree}" })
    expect(tree.ok && tree.text).toContain(".env")
    expect(tree.ok && leaks(tree.text)).toBe(false)
  })

  it("git_show of the commit that added secrets shows markers, not their content or blob ids", async () => {
    const r = await run("git_show", { rev: "HEAD~2" })
    expect(r.ok).toBe(true)
    const text = r.ok ? r.text : ""
    expect(text).toContain("[minicode: diff of secret file .env hidden]")
    expect(text).toContain("[minicode: diff of secret file config/.env.production hidden]")
    expect(leaks(text)).toBe(false)
    expect(text).not.toContain(git("rev-parse", "--short", "HEAD~2:.env").trim())
    const range = await run("git_show", { rev: "HEAD~3..HEAD" })
    expect(range.ok && range.text).toContain("+c")
    expect(range.ok && leaks(range.text)).toBe(false)
  })

  it("git_diff of a changed or staged .env shows a marker; a renamed secret too", async () => {
    write(".env", "API_KEY=sk-live-changed\n")
    write("a.js", "two\n")
    const diff = await run("git_diff", {})
    expect(diff.ok && diff.text).toContain("+two")
    expect(diff.ok && diff.text).toContain("[minicode: diff of secret file .env hidden]")
    expect(diff.ok && leaks(diff.text)).toBe(false)
    git("mv", "config/.env.production", "config/prod.txt")
    git("add", ".env")
    const staged = await run("git_diff", { staged: true })
    expect(staged.ok && staged.text).toContain("[minicode: diff of secret file .env hidden]")
    expect(staged.ok && staged.text).toContain("hidden]")
    expect(staged.ok && leaks(staged.text)).toBe(false)
    const named = await run("git_diff", { path: ".env" })
    expect(!named.ok && named.error["rule"]).toBe("jail.sensitive")
    const status = await run("git_status", {})
    expect(status.ok && status.text).toContain(".env")
  })
})

describe("honest work", () => {
  it("status, diff, log, show and commit on a normal repository", async () => {
    write("a.js", "two\n")
    write("new.txt", "n\n")
    const status = await run("git_status", {})
    expect(status.ok && status.text).toContain(" M a.js")
    expect(status.ok && status.text).toContain("?? new.txt")
    const diff = await run("git_diff", {})
    expect(diff.ok && diff.text).toContain("diff --git a/a.js b/a.js")
    const done = await run("git_commit", { message: "second", paths: ["a.js", "new.txt"] })
    expect(done.ok).toBe(true)
    const log = await run("git_log", { limit: 5 })
    expect(log.ok && log.text).toContain("second")
    const show = await run("git_show", { rev: "HEAD", path: "new.txt" })
    expect(show.ok && show.text).toContain("+n")
    const file = await run("git_show", { rev: "HEAD:a.js" })
    expect(file.ok && file.text).toBe("two")
    expect(git("status", "--short", "--", ".", ":!.minicode")).toBe("")
  })

  it("commits with the user's global identity when the repository has none", async () => {
    git("config", "--unset", "user.name")
    git("config", "--unset", "user.email")
    const home = fs.mkdtempSync(path.join(outside, "home-"))
    fs.writeFileSync(path.join(home, ".gitconfig"), "[user]\n\tname = Global Dev\n\temail = global@example.com\n")
    const old = process.env["HOME"]
    process.env["HOME"] = home
    try {
      write("a.js", "two\n")
      const done = await run("git_commit", { message: "second", paths: ["a.js"] })
      expect(done.ok).toBe(true)
      expect(git("log", "-1", "--format=%an <%ae>").trim()).toBe("Global Dev <global@example.com>")
    } finally {
      process.env["HOME"] = old
    }
  })
})
