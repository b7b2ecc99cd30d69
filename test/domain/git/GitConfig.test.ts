import { describe, expect, it } from "vitest"
import * as GitConfig from "../../../src/domain/git/GitConfig.js"
import * as GitOutput from "../../../src/domain/git/GitOutput.js"

const entries = (text: string) => {
  const parsed = GitConfig.parse(text)
  if (!parsed.ok) throw new Error(`line ${parsed.line}: ${parsed.reason}`)
  return parsed.entries.map((e) => [GitConfig.keyOf(e), e.value])
}
const risky = (text: string) => {
  const parsed = GitConfig.parse(text)
  return parsed.ok ? parsed.entries.map((e) => GitConfig.programReason(e)).filter((r) => r !== undefined).length : -1
}

describe("GitConfig.parse", () => {
  it("reads sections, quoted and dotted subsections, bare booleans, comments and shared header lines", () => {
    expect(
      entries('[core]\n\tbare = false ; comment\n\tfsmonitor\n[Filter "X y"]\n  CLEAN = "a ; b" # c\n[diff.Js] textconv = cat\n# [alias]\n')
    ).toEqual([
      ["core.bare", "false"],
      ["core.fsmonitor", undefined],
      ["filter.X y.clean", "a ; b"],
      ["diff.js.textconv", "cat"]
    ])
  })

  it("joins continued lines and decodes escapes and quotes", () => {
    // As `git config -f t.cfg --list` reads the same text.
    expect(entries('[alias]\n  x = "!echo \\\n  hi" \\\n there\n  y = a\\tb\\"c\n  z = a  b   \n')).toEqual([
      ["alias.x", "!echo   hi  there"],
      ["alias.y", 'a\tb"c'],
      ["alias.z", "a  b"]
    ])
  })

  it("reports what git would reject instead of skipping it", () => {
    for (const bad of ["key = v\n", "[core\nx=1\n", '[a "b\n', "[a]\nx = \"open\n", "[a]\nx = \\q\n", "[a]\n1x = 2\n", '[a "b"]]\n']) {
      expect(GitConfig.parse(bad).ok, bad).toBe(false)
    }
  })

  it("names every family of program-running keys, case-insensitively, and leaves ordinary ones", () => {
    const planted = [
      '[filter "x"]\n clean = evil', '[FILTER "x"]\n Smudge = evil', "[filter.x]\n process = evil", '[diff "x"]\n textconv = evil',
      '[diff "x"]\n command = evil', "[diff]\n external = evil", '[merge "x"]\n driver = evil', "[core]\n fsmonitor = ./evil",
      "[core]\n fsmonitor = true", "[core]\n hooksPath = h", "[core]\n sshCommand = evil", "[core]\n pager = evil", '[pager]\n log = evil',
      "[core]\n editor = evil", "[sequence]\n editor = evil", "[gpg]\n program = evil", '[gpg "ssh"]\n program = evil',
      "[credential]\n helper = evil", '[credential "https://x"]\n helper = evil', "[uploadpack]\n packObjectsHook = evil",
      '[remote "o"]\n uploadpack = evil', '[remote "o"]\n receivepack = evil', "[core]\n askPass = evil", '[protocol "ext"]\n allow = always',
      "[alias]\n st = !evil", "[core]\n gitProxy = evil", "[instaweb]\n httpd = evil", "[sendemail]\n smtpServer = evil",
      '[hook "x"]\n command = evil', '[mergetool "x"]\n cmd = evil', "[core]\n alternateRefsCommand = evil"
    ]
    for (const text of planted) expect(risky(text), text).toBe(1)
    const honest = "[core]\n repositoryformatversion = 0\n fsmonitor = false\n bare = false\n[user]\n name = Dev\n[alias]\n st = status\n" +
      '[remote "origin"]\n url = git@example.com:x.git\n fetch = +refs/heads/*:refs/remotes/origin/*\n[branch "main"]\n remote = origin\n[diff]\n external =\n'
    expect(risky(honest)).toBe(0)
  })

  it("finds include.path and every includeIf path", () => {
    const parsed = GitConfig.parse('[include]\n path = a.cfg\n[includeIf "gitdir:/x/"]\n path = ~/b.cfg\n[other]\n path = c\n')
    expect(parsed.ok && parsed.entries.map(GitConfig.includePath)).toEqual(["a.cfg", "~/b.cfg", undefined])
  })
})

describe("GitOutput", () => {
  it("lists every path a revision can name after a colon", () => {
    expect(GitOutput.revPaths("HEAD:.env")).toEqual([".env"])
    expect(GitOutput.revPaths(":.env")).toEqual([".env"])
    expect(GitOutput.revPaths(":2:config/.env")).toEqual(["2:config/.env", "config/.env"])
    expect(GitOutput.revPaths("HEAD~2")).toEqual([])
  })

  it("the part of a revision that names commits: before the path's colon, braces skipped; none for the index and searches", () => {
    expect(GitOutput.revBase("HEAD~2")).toBe("HEAD~2")
    expect(GitOutput.revBase("abc123:keys/prod")).toBe("abc123")
    expect(GitOutput.revBase("HEAD^{/fix: a bug}:src/a.ts")).toBe("HEAD^{/fix: a bug}")
    expect(GitOutput.revBase("stash@{0}^3:x")).toBe("stash@{0}^3")
    expect(GitOutput.revBase("A..B")).toBe("A..B")
    expect(GitOutput.revBase(":.env")).toBeUndefined()
    expect(GitOutput.revBase(":2:config/.env")).toBeUndefined()
    expect(GitOutput.revBase(":/message")).toBeUndefined()
    expect(GitOutput.revBase("")).toBeUndefined()
  })

  it("the path a revision looks up, as written", () => {
    expect(GitOutput.revPath("HEAD:app/a.txt")).toBe("app/a.txt")
    expect(GitOutput.revPath("HEAD:./../x")).toBe("./../x")
    expect(GitOutput.revPath("HEAD^{/a: b}:x/y")).toBe("x/y")
    expect(GitOutput.revPath(":x/y")).toBe("x/y")
    expect(GitOutput.revPath(":2:x/y")).toBe("x/y")
    expect(GitOutput.revPath("HEAD:")).toBe("")
    expect(GitOutput.revPath("HEAD~2")).toBeUndefined()
    expect(GitOutput.revPath(":/fix: x")).toBeUndefined()
  })

  const patch = (a: string, b: string, extra = "") =>
    `diff --git ${a} ${b}\n${extra}index 1111111..2222222 100644\n--- ${a}\n+++ ${b}\n@@ -1 +1 @@\n-OLD=secret\n+NEW=secret\n`
  const secret = (p: string) => p.split("/").includes(".env")

  it("hides the whole section of a secret file, blob ids included, and keeps the others", () => {
    const text = `commit abcdef1\n\n    msg\n\n${patch("a/x.txt", "b/x.txt")}${patch("a/.env", "b/.env")}${patch("a/y.txt", "b/y.txt")}`
    const out = GitOutput.hideSecretDiffs(text, secret)
    expect(out).toContain("[minicode: diff of secret file .env hidden]")
    expect(out).not.toContain("secret\n+NEW=secret\ndiff --git a/y.txt")
    expect(out.match(/secret/g)?.length).toBe(5)
    expect(out).not.toContain("1111111..2222222 100644\n--- a/.env")
    expect(out).toContain("diff --git a/y.txt b/y.txt")
  })

  it("hides renames either way, quoted names, names with spaces, and combined diffs", () => {
    const cases = [
      `diff --git a/x b/.env\nsimilarity index 90%\nrename from x\nrename to .env\n@@ -1 +1 @@\n-a\n+KEY=1\n`,
      `diff --git a/.env b/x\nsimilarity index 90%\nrename from .env\nrename to x\n@@ -1 +1 @@\n-KEY=1\n+a\n`,
      patch('"a/sub dir/\\303\\251/.env"', '"b/sub dir/\\303\\251/.env"'),
      patch("a/my b/.env", "b/my b/.env"),
      `diff --cc .env\nindex 1,2..3\n@@@ -1,1 -1,1 +1,1 @@@\n- A=1\n -B=2\n++C=3\n`
    ]
    for (const text of cases) {
      const out = GitOutput.hideSecretDiffs(text, secret)
      expect(out, text).toMatch(/^\[minicode: diff of secret file .*\.env hidden\]\n?$/)
    }
  })
})
