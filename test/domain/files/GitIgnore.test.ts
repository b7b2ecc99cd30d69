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

describe("GitIgnore", () => {
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
