/**
 * The domain's own glob (allowlist path entries, `write_file:src/**`): classes and their negation read as the shell
 * reads them (issue 40, item 2: `[` was a literal here, so `src/[!t]*` named nothing). Compared with bash's globbing
 * (`globstar`, `dotglob`, C locale) on a real temp tree of generated names, for the forms this matcher has: `*`,
 * `?`, `**` as a segment, `[a-c]`, `[!a-c]`, `[^a-c]`.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { FastCheck } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Glob from "../../../src/domain/jail/Glob.js"

let base: string
beforeAll(() => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "minicode-domain-glob-")))
})
afterAll(() => fs.rmSync(base, { recursive: true, force: true }))

describe("Glob (domain)", () => {
  it("reads classes and negated classes as the shell does; a class never matches /", () => {
    expect(Glob.matches("src/[!t]*", "src/a.ts")).toBe(true)
    expect(Glob.matches("src/[!t]*", "src/t.ts")).toBe(false)
    expect(Glob.matches("src/[^t]*", "src/t.ts")).toBe(false)
    expect(Glob.matches("src/[a-c]x", "src/bx")).toBe(true)
    expect(Glob.matches("src/[a-c]x", "src/dx")).toBe(false)
    expect(Glob.matches("a[!b]c", "a/c")).toBe(false)
    expect(Glob.matches("[]x]", "]")).toBe(true)
    expect(Glob.matches("[!]x]", "]")).toBe(false)
    // no class: a `[` with no end, a range out of order, match themselves
    expect(Glob.matches("a[b", "a[b")).toBe(true)
    expect(Glob.matches("[z-a]", "[z-a]")).toBe(true)
    expect(Glob.matches("**/*.ts", "a/b/c.ts")).toBe(true)
    // `**` crosses folders only as a whole segment (bash's globstar): `**a` is `*a`
    expect(Glob.matches("**a", "a/a")).toBe(false)
    expect(Glob.matches("b/**a", "b/xa")).toBe(true)
    expect(Glob.matches("a**/b", "ax/y/b")).toBe(false)
  })

  const nameChar = FastCheck.constantFrom("a", "b", "c", "A", ".", "-", "1", "!", "^")
  const name = FastCheck.array(nameChar, { minLength: 1, maxLength: 4 }).map((cs) => cs.join("")).filter((n) => n !== "." && n !== "..")
  const file = FastCheck.array(name, { minLength: 1, maxLength: 3 }).map((s) => s.join("/"))
  const token = FastCheck.constantFrom("a", "b", "A", "-", "1", "*", "**", "?", "[a-b]", "[!a-b]", "[^a]", "[!.]", "[!a-z]", "[^A-Z1]")
  const segment = FastCheck.oneof(
    { weight: 5, arbitrary: FastCheck.array(token, { minLength: 1, maxLength: 3 }).map((ts) => ts.join("")) },
    { weight: 1, arbitrary: FastCheck.constant("**") }
  )
  const pattern = FastCheck.array(segment, { minLength: 1, maxLength: 3 }).map((s) => s.join("/")).filter((p) => !p.endsWith("/**") && p !== "**")

  it("answers as bash's globbing on generated trees and patterns", () => {
    let tree = 0
    let cases = 0
    FastCheck.assert(
      FastCheck.property(FastCheck.uniqueArray(file, { minLength: 1, maxLength: 20 }), FastCheck.array(pattern, { minLength: 1, maxLength: 6 }), (files, patterns) => {
        const dir = path.join(base, `t${tree++}`)
        const made: Array<string> = []
        for (const f of files) {
          try {
            fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true })
            fs.writeFileSync(path.join(dir, f), "", { flag: "wx" })
            made.push(f)
          } catch {
            // taken by a folder, or a file where a folder would go
          }
        }
        for (const p of patterns) {
          cases++
          const script = `shopt -s globstar dotglob nullglob; for f in ${p}; do if [ -f "$f" ]; then printf '%s\\0' "$f"; fi; done`
          const r = spawnSync("bash", ["--norc", "--noprofile", "-c", script], { cwd: dir, env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin", LC_ALL: "C" }, encoding: "utf8" })
          const want = [...new Set(r.stdout.split("\0").filter((f) => f !== ""))].sort()
          expect(made.filter((f) => Glob.matches(p, f)).sort(), `${p} over ${JSON.stringify(made)}`).toEqual(want)
        }
        fs.rmSync(dir, { recursive: true, force: true })
      }),
      { numRuns: 100 }
    )
    console.log(`domain Glob vs bash: ${cases} patterns over ${tree} trees`)
  }, 300_000)
})
