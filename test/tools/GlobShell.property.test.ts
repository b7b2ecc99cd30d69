/**
 * Issue 40, item 2: glob's negated classes were inverted (`[!a-z]*` returned exactly the names it should leave out:
 * picomatch reads `[!` as a class holding `!` unless told `posix`). A differential property test: on a real temp
 * tree of generated names, glob's results (the tool, through the chain) and grep's `glob` filter equal bash's own
 * globbing, `bash -O globstar -O dotglob -O nullglob` in the C locale, over generated patterns.
 *
 * The reference semantics, as glob promises them (its description and README: a glob such as `src/**\/*.ts`,
 * dot files matched, a pattern without `/` matching a name at any depth): `*` and `?` within a name, dot files
 * included (`dotglob`); `**` as a whole segment any run of folders (`globstar`); classes `[a-c]`, negated `[!a-c]`
 * and `[^a-c]` (never a `/`); a backslash escaping the next character; a pattern without `/` is `**\/PATTERN`.
 * Case-sensitive. Left out, as glob makes no shell promise for them: a leading `!` (picomatch negates the whole
 * pattern; the shell reads a `!`), braces (the shell expands them before globbing), extglobs, and a trailing `/**`
 * (picomatch's `a/**` takes `a` itself, a file too).
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { FastCheck } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { runTool } from "../../src/index.js"
import { globFilter } from "../../src/tools/GrepResults.js"

let base: string
beforeAll(() => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "minicode-globshell-")))
})
afterAll(() => fs.rmSync(base, { recursive: true, force: true }))

const nameChar = FastCheck.constantFrom("a", "b", "c", "A", "B", ".", "-", "_", "1", "!", "^")
const name = FastCheck.array(nameChar, { minLength: 1, maxLength: 4 })
  .map((cs) => cs.join(""))
  .filter((n) => n !== "." && n !== "..")
const filePath = FastCheck.array(name, { minLength: 1, maxLength: 3 }).map((segs) => segs.join("/"))

const token = FastCheck.constantFrom("a", "b", "A", ".", "-", "1", "!", "^", "*", "?", "[a-b]", "[!a-b]", "[^a]", "[!.]", "[.!]", "[!a-z]", "[^A-Z1]", "[!]a]", "\\.", "\\!", "\\a")
const segment = FastCheck.oneof(
  { weight: 5, arbitrary: FastCheck.array(token, { minLength: 1, maxLength: 3 }).map((ts) => ts.join("")) },
  { weight: 1, arbitrary: FastCheck.constant("**") }
)
const pattern = FastCheck.array(segment, { minLength: 1, maxLength: 3 })
  .map((segs) => segs.join("/"))
  // A leading `!` negates the whole pattern in picomatch and is a `!` to the shell: no promise either way. A trailing
  // `/**` also takes the folder's own path in picomatch (`a/**` lists a file named `a`), where the shell wants a
  // folder: a known difference, left out.
  .filter((p) => !p.startsWith("!") && !p.endsWith("/**"))
  // A `.` or `..` segment names a folder by a path no walk gives (`./a`): not a glob's business.
  .filter((p) => p.split("/").every((seg) => !/^(\\?\.){1,2}$/.test(seg)))

/** The files bash's globbing names for `pattern` in `dir` (a pattern without `/` at any depth). */
const shell = (dir: string, glob: string): ReadonlyArray<string> => {
  const g = glob.includes("/") ? glob : `**/${glob}`
  const script = `shopt -s globstar dotglob nullglob; for f in ${g}; do if [ -f "$f" ] && [ ! -L "$f" ]; then printf '%s\\0' "$f"; fi; done`
  const r = spawnSync("bash", ["--norc", "--noprofile", "-c", script], { cwd: dir, env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin", LC_ALL: "C" }, encoding: "utf8" })
  expect(r.status, r.stderr).toBe(0)
  return [...new Set(r.stdout.split("\0").filter((f) => f !== ""))].sort()
}

const plant = (dir: string, files: ReadonlyArray<string>): ReadonlyArray<string> => {
  const made: Array<string> = []
  for (const f of files) {
    try {
      fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true })
      fs.writeFileSync(path.join(dir, f), "x\n", { flag: "wx" })
      made.push(f)
    } catch {
      // a name already taken by a folder, or a folder's name by a file: left as it is
    }
  }
  return made
}

const byCodeUnits = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

describe("glob and grep's glob filter answer as bash's globbing (issue 40, item 2)", () => {
  it("on fixed cases: a negated class leaves out what it names", async () => {
    const dir = path.join(base, "fixed")
    fs.mkdirSync(dir)
    const files = plant(dir, ["abc.ts", "Xyz.ts", "1a.ts", "!x.ts", "src/b.ts", "src/Z.ts", ".hidden"])
    for (const p of ["[!a-z]*", "[^a-z]*", "src/[!a-z]*", "[!.]*", "*[!s]", "[a-z]*"]) {
      const r = await runTool({ workspace: dir, tool: "glob", args: { pattern: p }, maxOutputBytes: 1 << 20 })
      const got = r.ok ? r.text.split("\n").filter((l) => l !== "" && !l.startsWith("no files match")) : [`error ${JSON.stringify(r)}`]
      expect(got.sort(byCodeUnits), p).toEqual([...shell(dir, p)].sort(byCodeUnits))
      const filter = globFilter(p)
      expect(files.filter((f) => filter(f)).sort(byCodeUnits), `grep glob ${p}`).toEqual([...shell(dir, p)].sort(byCodeUnits))
    }
    expect(shell(dir, "[!a-z]*")).toEqual(["!x.ts", ".hidden", "1a.ts", "Xyz.ts", "src/Z.ts"])
  })

  let cases = 0
  it("on generated trees and patterns", async () => {
    let tree = 0
    await FastCheck.assert(
      FastCheck.asyncProperty(FastCheck.uniqueArray(filePath, { minLength: 1, maxLength: 24 }), FastCheck.array(pattern, { minLength: 1, maxLength: 6 }), async (files, patterns) => {
        const dir = path.join(base, `t${tree++}`)
        fs.mkdirSync(dir)
        const made = plant(dir, files)
        for (const p of patterns) {
          cases++
          const want = [...shell(dir, p)].sort(byCodeUnits)
          const r = await runTool({ workspace: dir, tool: "glob", args: { pattern: p }, maxOutputBytes: 1 << 20 })
          expect(r.ok, JSON.stringify(r)).toBe(true)
          const got = (r.ok ? r.text : "").split("\n").filter((l) => l !== "" && !l.startsWith("no files match")).sort(byCodeUnits)
          expect(got, `glob ${JSON.stringify(p)} over ${JSON.stringify(made)}`).toEqual(want)
          const filter = globFilter(p)
          expect(made.filter((f) => filter(f)).sort(byCodeUnits), `grep's glob ${JSON.stringify(p)} over ${JSON.stringify(made)}`).toEqual(want)
        }
        fs.rmSync(dir, { recursive: true, force: true })
      }),
      { numRuns: 80 }
    )
    // Reported with the test's output: how many patterns were compared.
    console.log(`glob vs bash: ${cases} patterns over ${tree} trees`)
    expect(cases).toBeGreaterThan(80)
  }, 600_000)
})
