/**
 * The compiled .gitignore rules against git itself (`git check-ignore --no-index`), on rules of every kind and
 * paths whose folders are not ignored (the walk never enters an ignored folder, so nothing below one is asked),
 * including the literal and `*`-suffix rules that are answered without their regex.
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import * as GitIgnore from "../../../src/domain/files/GitIgnore.js"

const rules = [
  "# a comment",
  "",
  "*.log",
  "!keep.log",
  "/root-only.txt",
  "build/",
  "docs/*.md",
  "!docs/README.md",
  "**/tmp-*",
  "a/**/z.txt",
  "deep/**",
  "q?.js",
  "[ab]c.ts",
  "[!x]y.ts",
  "trailing\\ ",
  "spaced   ",
  "\\#hash",
  "\\!bang",
  "foo**bar",
  // Literal and `*`-suffix rules, which GitIgnore answers by string comparison rather than the regex.
  "*.tmp",
  "exact-name",
  "/dist/",
  "nested/literal.txt",
  "cache/"
].join("\n")

const paths: ReadonlyArray<readonly [string, boolean]> = [
  ["x.log", false], ["sub/x.log", false], ["keep.log", false], ["sub/keep.log", false],
  ["root-only.txt", false], ["sub/root-only.txt", false],
  ["build", true], ["build", false], ["sub/build", true], ["sub/build", false],
  ["docs/a.md", false], ["docs/README.md", false], ["docs/sub/a.md", false], ["x/docs/a.md", false],
  ["tmp-1", false], ["sub/tmp-2", true], ["a/z.txt", false], ["a/b/c/z.txt", false], ["b/a/z.txt", false],
  ["deep/x", false], ["q1.js", false], ["q12.js", false], ["ac.ts", false], ["cc.ts", false],
  ["ay.ts", false], ["xy.ts", false], ["trailing ", false], ["trailing", false], ["spaced", false],
  ["#hash", false], ["!bang", false], ["fooxbar", false], ["foo/bar", false], ["plain.ts", false],
  ["a.tmp", false], ["sub/a.tmp", false], [".tmp", false], ["a.tmpx", false], ["exact-name", false], ["sub/exact-name", true],
  ["exact-named", false], ["dist", true], ["dist", false], ["sub/dist", true], ["nested/literal.txt", false],
  ["x/nested/literal.txt", false], ["nested/literal.txtx", false], ["cache", true], ["cache", false], ["sub/cache", true]
]

/** What git says of each path under `text` (one check-ignore per path; folders made for those asked as folders). */
const gitSays = (text: string, asked: ReadonlyArray<readonly [string, boolean]>) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "minicode-gitignore-"))
  try {
    execFileSync("git", ["init", "-q"], { cwd: dir })
    fs.writeFileSync(path.join(dir, ".gitignore"), text)
    return asked.map(([p, isDir]) => {
      if (isDir) fs.mkdirSync(path.join(dir, p), { recursive: true })
      try {
        execFileSync("git", ["check-ignore", "-q", "--no-index", isDir ? `${p}/` : p], { cwd: dir, stdio: "ignore" })
        return true
      } catch {
        return false
      } finally {
        if (isDir) fs.rmSync(path.join(dir, p), { recursive: true })
      }
    })
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

describe("GitIgnore", () => {
  it("rules whose regex could backtrack for ever (two stars in a segment) give git's verdict, and at once on long names", () => {
    const risky = ["*a*b*c", "x/**/*m*n*", "p*q*/**", "**/*.*.*", "[!z]*y*y"].join("\n")
    const asked: ReadonlyArray<readonly [string, boolean]> = [
      ["abc", false], ["xaxbxc", false], ["acb", false], ["sub/aabbcc", false], ["x/mn", false], ["x/y/zmznz", false],
      ["y/x/mn", false], ["pq/f", false], ["pxqx/d/f", false], ["pq", false], ["a.b.c", false], ["s/a..b", false],
      ["ab", false], ["ayy", false], ["zyy", false], ["yy", false]
    ]
    const ig = GitIgnore.compile(risky)
    const want = gitSays(risky, asked)
    asked.forEach(([p, isDir], k) => expect(GitIgnore.test(ig, p, isDir) === "ignored", p).toBe(want[k]))
    const slow = GitIgnore.compile(`${"*a".repeat(16)}*b`)
    expect(GitIgnore.test(slow, "a".repeat(5000), false)).toBe("none")
  })

  it("gives git's verdict for every path", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "minicode-gitignore-"))
    try {
      execFileSync("git", ["init", "-q"], { cwd: dir })
      fs.writeFileSync(path.join(dir, ".gitignore"), rules)
      const ig = GitIgnore.compile(rules)
      for (const [p, isDir] of paths) {
        if (isDir) fs.mkdirSync(path.join(dir, p), { recursive: true })
        const asked = isDir ? `${p}/` : p
        let ignored: boolean
        try {
          execFileSync("git", ["check-ignore", "-q", "--no-index", asked], { cwd: dir, stdio: "ignore" })
          ignored = true
        } catch {
          ignored = false
        }
        expect(GitIgnore.test(ig, p, isDir) === "ignored", `${asked}`).toBe(ignored)
        if (isDir) fs.rmSync(path.join(dir, p), { recursive: true })
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})
