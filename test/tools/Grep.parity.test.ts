/**
 * grep and glob against `rg`, `git grep` and git's listing on a tree shaped unlike the bench tree (test/support/
 * OddTree.ts: seeded, set ODD_SEED for another), with the edge cases real repositories have: CRLF, a last line
 * without newline, `\r` alone, a line over 1 MB, a file over 5 MB, NUL early and NUL after 1 MB, UTF-16, Latin-1,
 * a UTF-8 BOM, awkward file names (a space, `ü`, `[x]`, `*`, `-n`, `#`, a newline), a chain 45 folders deep,
 * nested .gitignore files with negations, `.ignore` and `.rgignore`, `.git/info/exclude`, a global excludes file,
 * secrets, symlinks in and out.
 *
 * The references, and what grep is meant to differ by:
 * - `rg -a` (searching every file as text) with grep's ignore rules (.gitignore files and .git/info/exclude, which
 *   rg leaves out below the root unless given as an ignore file; no .ignore, .rgignore nor global excludes), minus the files binary by git's rule (a NUL in the first 8 KiB), minus
 *   what the jail refuses (secrets). rg's own binary rule (a NUL anywhere in what it has read so far) is not
 *   grep's: a file with its first NUL after 8 KiB is text, as git grep has it. ripgrep 13 honours `.rgignore`
 *   files even with --no-ignore-dot (fixed in ripgrep 14), so its listing is taken without the files they name.
 * - `git grep -n -I -P` on the tracked files, minus secrets and symlinks (git greps a symlink's target path).
 * - grep through ripgrep and grep's own walk (MINICODE_GREP=node) must give the very same text.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import picomatch from "picomatch"
import { Effect, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Unavailable from "../../src/adapters/Unavailable.js"
import * as RipgrepSearch from "../../src/adapters/search/RipgrepSearch.js"
import * as Jail from "../../src/domain/jail/Jail.js"
import { runTool } from "../../src/index.js"
import { TextSearch } from "../../src/ports/TextSearch.js"
import { generateOddTree, gitListing as listing, oddMarkers, type OddTree } from "../support/OddTree.js"

const seed = Number(process.env["ODD_SEED"] ?? 7)
let base: string
let tree: OddTree
let root: string
beforeAll(() => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "minicode-odd-")))
  tree = generateOddTree({ dir: path.join(base, "tree"), seed, files: 2000 })
  root = tree.root
}, 120_000)
afterAll(() => fs.rmSync(base, { recursive: true, force: true }))

const hasRg = spawnSync("rg", ["--version"], { stdio: "ignore" }).status === 0
const rgMajor = Number(/ripgrep (\d+)/.exec(spawnSync("rg", ["--version"]).stdout?.toString() ?? "")?.[1] ?? 0)
const N = oddMarkers.needle
const gitEnv = { ...process.env, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null", LC_ALL: "C.UTF-8" }

/** `path:line` of each line grep shows; a path with a control character comes quoted, as git quotes it. */
const keysOf = (text: string) =>
  text
    .split("\n")
    .filter((l) => !l.startsWith("[") && !l.startsWith("no "))
    .map((l) => {
      const quoted = /^("(?:[^"\\]|\\.)*"):(\d+):/.exec(l)
      if (quoted !== null) return `${JSON.parse(quoted[1] ?? "")}:${quoted[2]}`
      const m = /^(.*?):(\d+):/.exec(l)
      return m === null ? `?${l}` : `${m[1]}:${m[2]}`
    })
    .sort()

/** rg searches that answered (not handed over to grep's own walk). */
let answered = 0
const counted = Layer.effect(
  TextSearch,
  Effect.map(RipgrepSearch.make(), (rg) =>
    TextSearch.of({ ...rg, search: (spec, onEvent) => Effect.tap(rg.search(spec, onEvent), () => Effect.sync(() => answered++)) })
  )
)

const grep = async (engine: "rg" | "node", args: Record<string, unknown>) => {
  const textSearch = engine === "rg" ? counted : Unavailable.textSearch
  const r = await runTool({ workspace: root, tool: "grep", args, maxOutputBytes: 1 << 26, adapters: { textSearch } })
  expect(r.ok, JSON.stringify(r).slice(0, 500)).toBe(true)
  return r.ok ? r.text : ""
}

const fileOf = (key: string) => key.slice(0, key.lastIndexOf(":"))
const secret = (file: string) => Jail.protectedName(path.join(root, file), root) !== undefined
/** Binary by git's rule and grep's: a NUL in the first 8 KiB. */
const binary = (file: string) => {
  const fd = fs.openSync(path.join(root, file), "r")
  try {
    const head = Buffer.alloc(8192)
    return head.subarray(0, fs.readSync(fd, head, 0, 8192, 0)).includes(0)
  } finally {
    fs.closeSync(fd)
  }
}

/** Records `path\0line:text\n` (or `path\0line\0text\n`), a path possibly holding a newline. */
const records = (out: string, sep: string) =>
  [...out.matchAll(new RegExp(`([^\\0]*)\\0(\\d+)${sep}[^\\n]*\\n`, "gy"))].map((m) => `${m[1]}:${m[2]}`)

const rgIgnoreFlags = ["--no-config", "--hidden", "--no-ignore-dot", "--no-ignore-global", "--no-require-git", "--no-ignore-parent", "-g", "!.git/", "-g", "!.minicode/"]

/** Files ripgrep 13 leaves out for a `.rgignore` whatever it is told (git and grep do not). */
const rgIgnored = () => (rgMajor >= 14 ? new Set<string>() : new Set(["svc/Gamma/rgignored.ts"]))

const rgKeys = (pattern: string, ignoreCase: boolean, under: string | undefined) => {
  const r = spawnSync("rg", [...rgIgnoreFlags, "-a", "-E", "none", "--null", "-n", "--no-heading", "--with-filename", "--color", "never", ...(ignoreCase ? ["-i"] : ["-s"]), "-e", pattern, ...(under === undefined ? [] : ["--ignore-file", ".git/info/exclude", "--", under])], {
    cwd: root,
    maxBuffer: 1 << 28,
    stdio: ["ignore", "pipe", "pipe"]
  })
  return records(r.stdout.toString("latin1"), ":")
    .map((k) => Buffer.from(k, "latin1").toString("utf8"))
    .filter((k) => !secret(fileOf(k)) && !binary(fileOf(k)))
}

const tracked = () => new Set(spawnSync("git", ["ls-files", "-z"], { cwd: root, env: gitEnv }).stdout.toString().split("\0").filter((f) => f !== ""))

const gitKeys = (pattern: string, ignoreCase: boolean, under: string | undefined) => {
  const r = spawnSync("git", ["grep", "-n", "-z", "-I", "-P", ...(ignoreCase ? ["-i"] : []), "-e", pattern, ...(under === undefined ? [] : ["--", under])], {
    cwd: root,
    env: gitEnv,
    maxBuffer: 1 << 28,
    stdio: ["ignore", "pipe", "pipe"]
  })
  return records(r.stdout.toString(), "\\0").filter((k) => !secret(fileOf(k)) && !fs.lstatSync(path.join(root, fileOf(k))).isSymbolicLink())
}

interface Case {
  readonly name: string
  readonly args: { readonly pattern: string; readonly ignore_case?: boolean; readonly path?: string; readonly glob?: string }
  /** The pattern as Rust and PCRE spell it, when JavaScript's differs. */
  readonly rg?: string
  readonly pcre?: string
  /** false: git grep means something else here (said why). */
  readonly git?: false
  /** The shown lines must include these. */
  readonly has?: ReadonlyArray<string>
}

const cases: ReadonlyArray<Case> = [
  {
    name: "a literal everywhere: line endings, encodings, long lines, odd names, depth 45, ignore rules, secrets, links",
    args: { pattern: N },
    has: [
      "edge/crlf.ts:2",
      "edge/nofinal.ts:2",
      "edge/cr-only.txt:1",
      "edge/utf8-bom.ts:1",
      "edge/latin1.txt:1",
      "edge/long-line.js:1",
      "edge/long-line.js:2",
      "edge/late-nul.dat:1",
      "edge/late-nul.dat:100003",
      "edge/huge-sparse.dat:1",
      "edge/huge-sparse.dat:1027",
      "names/a b.ts:1",
      "names/ü.ts:1",
      "names/[x].ts:1",
      "names/*.ts:1",
      "names/-n.ts:1",
      "names/#x:1",
      "names/new\nline.ts:1",
      "keep.log:1",
      "sub/anchored:1",
      "svc/beta-svc/important.gen.ts:1",
      "svc/beta-svc/deeper/b.gen.ts:1",
      "svc/Gamma/dotignored.ts:1",
      "svc/Gamma/rgignored.ts:1",
      "vendor/nested-repo/inner.log:1",
      "vendor/nested-repo/src/lib.ts:1",
      "globally-excluded.txt:1",
      `deep/${Array.from({ length: 45 }, (_, k) => `d${k}`).join("/")}/leaf.ts:1`
    ]
  },
  { name: "a literal in the > 5 MB file only", args: { pattern: oddMarkers.big } },
  { name: "a pattern only in a binary file", args: { pattern: oddMarkers.binaryOnly } },
  { name: "\\b word boundaries", args: { pattern: "\\bfoo\\b|\\bfoobar\\b", path: "regex" }, rg: "(?-u:\\b)foo(?-u:\\b)|(?-u:\\b)foobar(?-u:\\b)" },
  { name: "^ and $ with CRLF: the \\r is part of the line", args: { pattern: "^end$|^end\\r$", path: "regex" } },
  { name: "\\d and a character class", args: { pattern: "^\\d+ [a-p]+s$", path: "regex" }, rg: "^(?-u:\\d)+ [a-p]+s$" },
  { name: "alternation with anchors", args: { pattern: "^start|needle$|^ +indented", ignore_case: true, path: "regex" } },
  { name: "'.' does not cross a lone \\r", args: { pattern: "NEEDLE.two", path: "edge" }, rg: "NEEDLE[^\\r\\n]two", git: false },
  { name: "a match on a last line without newline", args: { pattern: "newline$", path: "edge" } },
  { name: "a pattern matching the empty string", args: { pattern: "x*", path: "regex" } },
  { name: "an anchor alone", args: { pattern: "^", path: "edge/crlf.ts" } },
  { name: "ignore_case with unicode: É, ß", args: { pattern: "café|straße", ignore_case: true, path: "regex" } },
  { name: "ignore_case folds ſ to s and the Kelvin sign to k, as rg and git grep do", args: { pattern: "LONG S|3 k|ΣΟΦΌΣ", ignore_case: true, path: "regex" }, has: ["regex/words.txt:8", "regex/words.txt:9", "regex/words.txt:10"] },
  { name: "a non-ASCII class", args: { pattern: "[α-γ]", path: "regex" } },
  { name: "under a glob", args: { pattern: N, glob: "*.ts" } },
  { name: "a UTF-8 BOM is part of the first line (no transcoding)", args: { pattern: "^ODD_NEEDLE after|BOM$", path: "edge" } },
  { name: "below a folder: the rules of the .gitignore files above it and of .git/info/exclude hold", args: { pattern: N, path: "svc/beta-svc" }, has: ["svc/beta-svc/important.gen.ts:1", "svc/beta-svc/deeper/b.gen.ts:1"] },
  { name: "below a folder, .git/info/exclude with a negation", args: { pattern: N, path: "sub" }, has: ["sub/anchored:1", "sub/x-kept.txt:1"] },
  { name: "below a nested repository's folder", args: { pattern: N, path: "vendor/nested-repo/src" }, has: ["vendor/nested-repo/src/lib.ts:1"] },
  { name: "at a nested repository", args: { pattern: N, path: "vendor/nested-repo" }, has: ["vendor/nested-repo/inner.log:1"] }
]

const globFilter = (glob: string | undefined) => (glob === undefined ? () => true : picomatch(glob, { dot: true, matchBase: !glob.includes("/") }))

describe.skipIf(!hasRg)(`grep on an odd tree (seed ${seed}): rg path = own walk = rg = git grep`, () => {
  // The .rgignore is set aside here (ripgrep 13 honours it whatever it is told: the last test).
  const rgignore = () => path.join(root, "svc/Gamma/.rgignore")
  beforeAll(() => fs.renameSync(rgignore(), `${rgignore()}.aside`))
  afterAll(() => fs.renameSync(`${rgignore()}.aside`, rgignore()))

  for (const c of cases) {
    it(c.name, async () => {
      const before = answered
      const viaRg = await grep("rg", c.args)
      expect(answered - before, "rg answered").toBeGreaterThanOrEqual(1)
      const own = await grep("node", c.args)
      expect(viaRg).toEqual(own)
      const got = keysOf(own)
      expect(got.length, own).toBeLessThan(500)
      expect(got.filter((k) => k.startsWith("?"))).toEqual([])
      for (const k of c.has ?? []) expect(got, k).toContain(k)
      const keep = globFilter(c.args.glob)
      const ignoreCase = c.args.ignore_case === true
      const fromRg = [...rgKeys(c.rg ?? c.args.pattern, ignoreCase, c.args.path), ...(rgIgnored().size > 0 ? got.filter((k) => rgIgnored().has(fileOf(k))) : [])]
        .filter((k) => keep(fileOf(k)))
        .sort()
      expect(got).toEqual([...new Set(fromRg)].sort())
      if (c.git !== false) {
        const inGit = tracked()
        const fromGit = gitKeys(c.pcre ?? c.args.pattern, ignoreCase, c.args.path).filter((k) => keep(fileOf(k))).sort()
        expect(got.filter((k) => inGit.has(fileOf(k)))).toEqual(fromGit)
      }
    }, 60_000)
  }

  it("names a matching binary file, says nothing of a UTF-16 one (binary, its text not UTF-8), never shows a secret", async () => {
    const text = await grep("node", { pattern: N })
    expect(text).toContain("[binary file edge/early-nul.bin matches]")
    expect(text).not.toContain("late-nul.dat matches]")
    expect(text).not.toContain("utf16")
    for (const s of tree.secrets) expect(keysOf(text).map(fileOf)).not.toContain(s)
    expect(text).not.toContain("outside")
    const only = await grep("rg", { pattern: oddMarkers.binaryOnly })
    // and how many protected paths it left out unopened (issue 40), the same whatever the pattern
    expect(only).toMatch(new RegExp(`^no text matches for /${oddMarkers.binaryOnly}/\\n\\[binary file edge/early-nul\\.bin matches\\]\\n\\[\\d+ protected paths? left out, never opened[^\\n]*\\]$`))
  }, 60_000)

  it("honours .git/info/exclude (as git and rg do), not .ignore, .rgignore nor the user's global excludes", async () => {
    fs.renameSync(`${rgignore()}.aside`, rgignore())
    const before = answered
    const both = await Promise.all([grep("rg", { pattern: N }), grep("node", { pattern: N })])
    fs.renameSync(rgignore(), `${rgignore()}.aside`)
    expect(answered).toBeGreaterThan(before)
    // ripgrep 13 cannot be told to leave a .rgignore (its bug 2198): the rg path alone leaves out what it names, a
    // documented difference (watching rg's --debug log for it cost more than the search).
    const rgNamed = (k: string) => rgMajor < 14 && fileOf(k) === "svc/Gamma/rgignored.ts"
    expect(keysOf(both[0])).toEqual(keysOf(both[1]).filter((k) => !rgNamed(k)))
    for (const [engine, text] of [["rg", both[0]], ["node", both[1]]] as const) {
      const files = keysOf(text).map(fileOf)
      expect(files, engine).not.toContain("info-excluded.txt")
      expect(files, engine).not.toContain("vendor/nested-repo/excluded-inner.ts")
      for (const f of ["svc/Gamma/dotignored.ts", "svc/Gamma/rgignored.ts", "globally-excluded.txt"]) {
        if (engine === "rg" && rgMajor < 14 && f === "svc/Gamma/rgignored.ts") expect(files, `${engine} ${f}`).not.toContain(f)
        else expect(files, `${engine} ${f}`).toContain(f)
      }
    }
  }, 60_000)
})

const gitListing = () => listing(root)

const globOf = async (args: Record<string, unknown>) => {
  const r = await runTool({ workspace: root, tool: "glob", args, maxOutputBytes: 1 << 26 })
  expect(r.ok, JSON.stringify(r).slice(0, 500)).toBe(true)
  const lines = (r.ok ? r.text : "").split("\n")
  const paths = lines.filter((l) => !l.startsWith("[") && !l.startsWith("no files match")).map((l) => (l.startsWith('"') ? (JSON.parse(l) as string) : l))
  return { paths, notes: lines.filter((l) => l.startsWith("[")) }
}

const byCodeUnits = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

describe(`glob on an odd tree (seed ${seed}): git's listing, rg --files`, () => {
  const patterns: ReadonlyArray<{ readonly pattern: string; readonly path?: string }> = [
    { pattern: "**/*.ts" },
    { pattern: "src/**", path: "svc/alpha" },
    { pattern: "*.{ts,tsx}" },
    { pattern: "**/.*" },
    { pattern: "**/+(a|b)*.ts" },
    { pattern: "**/*.TS" },
    { pattern: "names/*" },
    { pattern: "deep/**/leaf.ts" },
    { pattern: "**/*" }
  ]
  for (const p of patterns) {
    it(`${p.pattern}${p.path === undefined ? "" : ` in ${p.path}`}: the paths git lists, sorted by code units, capped at 1000 with the rest counted`, async () => {
      const isMatch = picomatch(p.pattern, { dot: true, matchBase: !p.pattern.includes("/") })
      const under = p.path === undefined ? "" : `${p.path}/`
      const want = gitListing()
        .filter((f) => f.startsWith(under) && isMatch(f.slice(under.length)))
        .sort(byCodeUnits)
      expect(want.length).toBeGreaterThan(0)
      const got = await globOf(p)
      expect(got.paths).toEqual(want.slice(0, 1000))
      expect(got.notes).toEqual(want.length > 1000 ? [`[truncated: ${want.length - 1000} more matches]`] : [])
    }, 60_000)
  }

  it.skipIf(!hasRg)("git's listing is rg --files plus the symlinks (listed, not entered), as grep's ignore rules have it", () => {
    const rg = spawnSync("rg", ["--files", "-0", ...rgIgnoreFlags], { cwd: root, maxBuffer: 1 << 28 }).stdout.toString().split("\0").filter((f) => f !== "")
    const links = gitListing().filter((f) => fs.lstatSync(path.join(root, f)).isSymbolicLink())
    expect(links.length).toBeGreaterThan(3)
    expect([...rg, ...links, ...rgIgnored()].sort()).toEqual([...gitListing()].sort())
    expect(gitListing()).not.toContain("info-excluded.txt")
    expect(gitListing()).toContain("globally-excluded.txt")
  })
})
