/**
 * glob's matcher (src/tools/PathGlob.ts) answers as picomatch's own matcher with glob's options does, on the paths a
 * walk gives (relative, no empty, `.` or `..` segment, no trailing `/`): patterns of every form (with and without a
 * `/`, the `**\/NAME` form it answers from the name alone, classes, braces, extglobs, negations, a pattern equal to
 * a path), generated and fixed.
 */
import { FastCheck } from "effect"
import picomatch from "picomatch"
import * as LinearGlob from "../../src/domain/files/LinearGlob.js"
import { describe, expect, it } from "vitest"
import { matcher } from "../../src/tools/PathGlob.js"

// glob's options: `posix`, so `[!a]` is a negated class as in the shell (issue 40; GlobShell.property.test.ts
// compares glob with bash itself).
const reference = (pattern: string) => picomatch(pattern, { dot: true, matchBase: !pattern.includes("/"), posix: true })

const split = (path: string) => {
  const slash = path.lastIndexOf("/")
  return [path.slice(0, slash + 1), path.slice(slash + 1)] as const
}

const agree = (pattern: string, paths: ReadonlyArray<string>) => {
  const ours = matcher(pattern)
  const theirs = reference(pattern)
  for (const path of paths) {
    const [folder, name] = split(path)
    expect(ours(folder, name), `${pattern} on ${path}`).toBe(theirs(path))
  }
}

const segment = FastCheck.stringMatching(/^[ab.x_*-]{1,5}$/).filter((s) => s !== "." && s !== "..")
const nameChars = FastCheck.stringMatching(/^[ab.x_-]{1,6}(\.ts|\.js)?$/).filter((s) => s !== "." && s !== "..")
const path = FastCheck.tuple(FastCheck.array(nameChars, { maxLength: 4 }), nameChars).map(([dirs, name]) => [...dirs, name].join("/"))
const globPart = FastCheck.oneof(segment, FastCheck.constantFrom("**", "*", "*.ts", "?", "[ab]", "[!a]*", "{a,b}", "{a,b/x}", "@(a|b)", "!(a)", "+(x)", ".*", "a*", "*-x"))
const pattern = FastCheck.oneof(
  globPart,
  FastCheck.array(globPart, { minLength: 2, maxLength: 4 }).map((parts) => parts.join("/")),
  globPart.map((p) => `**/${p}`),
  FastCheck.tuple(globPart, globPart).map(([a, b]) => `**/${a}/${b}`),
  globPart.map((p) => `!${p}`)
)

describe("PathGlob.matcher", () => {
  it("answers as picomatch on fixed patterns and paths", () => {
    const paths = ["a.ts", "src/a.ts", "src/x/y.ts", ".env", "x/.env.local", "README.md", "a[1].ts", "x/a[1].ts", "**", "**/x.ts", "a", "b/c.js", "a/b", "a/x/y/b", "index.js", "x/index.d.ts", "a*b", "z/a*b", ".hidden/a.ts", "a/.b/c.ts", "x.ts.ts", "-x", ".ts"]
    // Issue 40: a negated class leaves out what it names.
    expect(matcher("[!a]*")("", "-")).toBe(true)
    expect(matcher("[!a]*")("", "ab")).toBe(false)
    expect(matcher("src/[!a-z]*")("src/", "Z.ts")).toBe(true)
    expect(matcher("src/[!a-z]*")("src/", "b.ts")).toBe(false)
    expect(matcher("a[![:alpha:]]b")("", "a1b")).toBe(true)
    expect(matcher("a/b[![:alpha:]]c")("a/", "b/c")).toBe(false)
    for (const p of ["**/*.ts", "*.ts", "src/**", "*.md", "**/index.*", "a[1].ts", "**/*", "**/.env*", "**/x.ts", "**/*.", "**/.*", "**/*.d.ts", "**/a*b", "*", "**", "a/**/b", "src/*.ts", "**/-x", "**/*.ts.ts", "**/..ts"]) agree(p, paths)
  })
  it("answers as picomatch on generated patterns and paths (but those LinearGlob takes: LinearGlob.test checks them against the shell)", () => {
    const linear = (p: string) => {
      const parsed = LinearGlob.parse(p)
      return parsed !== undefined && LinearGlob.risky(parsed)
    }
    FastCheck.assert(FastCheck.property(pattern, FastCheck.array(path, { minLength: 1, maxLength: 20 }), (p, ps) => linear(p) || agree(p, ps)), { numRuns: 2000 })
  })
})
