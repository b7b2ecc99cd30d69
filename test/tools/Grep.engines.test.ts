/**
 * grep's two engines give the same results: ripgrep (when installed, the default) and grep's own walk
 * (MINICODE_GREP=node, or when rg cannot take a pattern). Both run on the same generated tree (bench/tree/generate.ts:
 * .gitignore rules at three depths with a negation, secrets, symlinks out of the tree, binaries, two > 5 MB C files,
 * CRLF, invalid UTF-8, a 20,000-char line) plus files for the regex rewrites (non-ASCII words, a CRLF line end), and
 * must show the same text: the same (file, line) set, the same notes. A counting wrapper proves rg did search.
 * Also: every path rg returns is checked (a folder swapped for a symlink out of the tree is refused).
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { generate, markers } from "../../bench/tree/generate.js"
import * as NodeFileSystem from "../../src/adapters/fs/NodeFileSystem.js"
import * as Unavailable from "../../src/adapters/Unavailable.js"
import * as RipgrepSearch from "../../src/adapters/search/RipgrepSearch.js"
import { runTool } from "../../src/index.js"
import { type SearchEvent, TextSearch } from "../../src/ports/TextSearch.js"
import { pathJudge } from "../../src/tools/PathJudge.js"

let base: string
let root: string
let searches = 0
beforeAll(() => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "minicode-grep-engines-")))
  root = path.join(base, "tree")
  generate({ dir: root, files: 1500, bigCBytes: 5.5 * 1024 * 1024 })
  fs.mkdirSync(path.join(root, "regex"))
  fs.writeFileSync(path.join(root, "regex/words.txt"), "naïve café\nplain cafe\n٣ digits 3\nend\r\nend\n")
  fs.writeFileSync(path.join(root, "regex/late-nul.bin"), Buffer.concat([Buffer.from("early needle\n"), Buffer.alloc(16, 0), Buffer.from("late needle\n")]))
}, 120_000)
afterAll(() => fs.rmSync(base, { recursive: true, force: true }))

const hasRg = spawnSync("rg", ["--version"], { stdio: "ignore" }).status === 0

const counted = Layer.effect(
  TextSearch,
  Effect.map(RipgrepSearch.make(), (rg) =>
    TextSearch.of({
      ...rg,
      search: (spec, onEvent) => Effect.zipRight(Effect.sync(() => searches++), rg.search(spec, onEvent))
    })
  )
)

const run = async (engine: "rg" | "node", args: Record<string, unknown>) => {
  const textSearch = engine === "rg" ? counted : Unavailable.textSearch
  const r = await runTool({ workspace: root, tool: "grep", args, maxOutputBytes: 64 * 1024 * 1024, adapters: { textSearch } })
  expect(r.ok, JSON.stringify(r)).toBe(true)
  return r.ok ? r.text : ""
}

/** grep's note of the protected paths it left out unopened (issue 40), dropped where a test looks at the rest. */
const protectedNote = /\n\[\d+ protected paths? left out, never opened[^\n]*\]/
const withoutProtectedNote = (text: string) => text.replace(protectedNote, "")

/** grep's text when the engine says what `events` says, whatever it was asked (an engine that lies). */
const lying = async (events: (onEvent: (event: SearchEvent) => "skip" | void) => void, keepNote = false) => {
  const textSearch = Layer.succeed(TextSearch, TextSearch.of({ engine: "lying", search: (_spec, onEvent) => Effect.sync(() => events(onEvent)) }))
  const r = await runTool({ workspace: root, tool: "grep", args: { pattern: "x" }, adapters: { textSearch } })
  const text = r.ok ? r.text : ""
  return keepNote ? text : withoutProtectedNote(text)
}

const keys = (text: string) =>
  text
    .split("\n")
    .filter((l) => !l.startsWith("[") && !l.startsWith("no "))
    .map((l) => l.split(":", 2).join(":"))
    .sort()

const cases: ReadonlyArray<{ readonly name: string; readonly args: Record<string, unknown>; readonly rg: boolean }> = [
  { name: "a literal in secrets, binaries, ignored files and odd files", args: { pattern: markers.canary }, rg: true },
  { name: "a literal in the two big C files", args: { pattern: markers.bigC }, rg: true },
  { name: "a regex under a glob", args: { pattern: "function createHandler\\d+_1\\d\\(", glob: "*.ts" }, rg: true },
  { name: "a glob with a folder", args: { pattern: markers.canary, glob: "packages/**/*.ts" }, rg: true },
  { name: "a regex with no literal, below a folder", args: { pattern: "length > 63\\)|length > 17\\)", path: "packages" }, rg: true },
  { name: "case-insensitive", args: { pattern: "sqlite_bench_marker \\d", ignore_case: true }, rg: true },
  { name: "over the cap (500 of many)", args: { pattern: markers.common }, rg: true },
  { name: "ASCII \\w and \\d as JavaScript means them", args: { pattern: "\\bcaf\\w\\b|^\\d", path: "regex" }, rg: true },
  { name: "'.' leaves out a carriage return, '$' is the line end", args: { pattern: "^end.$|^end$", path: "regex" }, rg: true },
  { name: "an escaped slash and braces that are not a quantifier", args: { pattern: "\\/|\\{x}", path: "misc" }, rg: true },
  { name: "a binary file with a match before its NUL and one after", args: { pattern: "needle", path: "regex" }, rg: true },
  { name: "one file", args: { pattern: markers.bigC, path: "third_party/sqlite/sqlite3.c" }, rg: true },
  { name: "look-ahead: rg cannot, grep's own walk answers", args: { pattern: "createHandler(?=1_)" }, rg: false }
]

describe.skipIf(!hasRg)("grep: ripgrep and the own walk give the same results", () => {
  for (const c of cases) {
    it(c.name, async () => {
      const before = searches
      const viaRg = await run("rg", c.args)
      expect(searches - before).toBe(c.rg ? 1 : 0)
      const own = await run("node", c.args)
      // Something was found (lines, or a binary file named).
      expect(own).not.toMatch(/^no matches/)
      expect(keys(viaRg)).toEqual(keys(own))
      expect(viaRg).toEqual(own)
    }, 60_000)
  }

  it("the shared results hold what grep promises: big files whole, binaries named, secrets and links out", async () => {
    const text = await run("rg", { pattern: markers.canary })
    const files = new Set(keys(text).map((k) => k.split(":")[0]))
    expect(text).toContain("[binary file assets/logo.bin matches]")
    for (const f of [".env", ".npmrc", "config/id_rsa", "deploy/certs/deep/server.pem", "dist/bundle.js", "outside-dir/leak.txt", "outside-file.txt"]) {
      expect(files.has(f), f).toBe(false)
    }
    const big = keys(await run("rg", { pattern: markers.bigC }))
    expect(big.filter((k) => k.startsWith("third_party/sqlite/"))).toHaveLength(markers.bigCHits)
  }, 60_000)

  it("judges every path the engine returns: a secret, a climb out, a path through a symlinked folder never show", async () => {
    const text = await lying((onEvent) => {
      for (const file of [".env", "../outside.txt", "outside-dir/leak.txt", "misc/crlf.ts"]) onEvent({ _tag: "Match", file, line: 1, text: () => `from ${file}`, cut: false })
      onEvent({ _tag: "Binary", file: "outside-dir/leak.bin" })
    })
    expect(text.split("\n")).toEqual(["misc/crlf.ts:1:from misc/crlf.ts", "[2 files left out: not a regular file beneath real folders of the workspace when checked]"])
    // and says how many protected paths it left out unopened, whatever the engine named (issue 40)
    const noted = await lying((onEvent) => onEvent({ _tag: "Match", file: ".env", line: 1, text: () => "from .env", cut: false }), true)
    expect(noted).toMatch(protectedNote)
  })

  it("refuses a path rg returns through a folder that is now a symlink, a secret, or a climb out", async () => {
    const judge = pathJudge(await Effect.runPromise(NodeFileSystem.make), root)
    // outside-dir is a symlink to a folder outside the tree holding leak.txt.
    expect(await Effect.runPromise(judge.real("outside-dir/leak.txt"))).toBe(false)
    expect(await Effect.runPromise(judge.real("outside-file.txt"))).toBe(false)
    expect(await Effect.runPromise(judge.real("misc/crlf.ts"))).toBe(true)
    expect(judge.lexical("../tree/misc/crlf.ts")).toBe(false)
    expect(judge.lexical("/etc/passwd")).toBe(false)
    expect(judge.lexical(".env")).toBe(false)
    expect(judge.lexical("sub/.git/HEAD")).toBe(false)
    expect(judge.lexical("misc/crlf.ts")).toBe(true)
    // Any case (rg's prefilter globs are as spelled), at any depth, after a folder already judged.
    for (const secret of ["misc/.ENV", "misc/ID_RSA", "misc/Server.PEM", "misc/.SSH/notes.txt", "misc/a/.Aws/config.txt", ".Minicode/state.txt", "misc/.env.Local"]) {
      expect(judge.lexical(secret), secret).toBe(false)
    }
    expect(judge.lexical("misc//crlf.ts")).toBe(false)
    expect(judge.lexical("misc/./crlf.ts")).toBe(false)
    expect(judge.lexical("misc/")).toBe(false)
  })

  it("leaves out secrets named in any case, though rg's prefilter globs are as spelled", async () => {
    const dir = path.join(root, "cased")
    fs.mkdirSync(path.join(dir, ".SSH"), { recursive: true })
    fs.mkdirSync(path.join(dir, ".Aws"), { recursive: true })
    for (const f of [".ENV", "ID_RSA", "Server.PEM", "Prod.TFVARS", ".NPMRC", ".SSH/notes.txt", ".Aws/config.txt", "shown.txt"]) fs.writeFileSync(path.join(dir, f), `${markers.canary} in ${f}\n`)
    try {
      const before = searches
      const text = await run("rg", { pattern: markers.canary, path: "cased" })
      // rg answered: once, or twice when these secrets were new to the last scan (run again, masked anew).
      expect(searches - before).toBeGreaterThanOrEqual(1)
      expect(withoutProtectedNote(text)).toBe(`cased/shown.txt:1:${markers.canary} in shown.txt`)
      expect(await run("node", { pattern: markers.canary, path: "cased" })).toBe(text)
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })

  it("counts no skipped lines of a file it leaves out", async () => {
    const text = await lying((onEvent) => {
      for (const file of [".env", "misc/crlf.ts", "../outside.txt"]) {
        if (onEvent({ _tag: "Match", file, line: 1, text: () => `from ${file}`, cut: false }) === "skip") onEvent({ _tag: "Counted", file, lines: 7 })
      }
      onEvent({ _tag: "Counted", file: ".env", lines: 3 })
    })
    expect(text).toBe("misc/crlf.ts:1:from misc/crlf.ts")
  })
})
