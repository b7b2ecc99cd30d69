/**
 * grep finds the same (file, line) set as ripgrep and git grep on a generated tree with every feature of the big
 * bench tree (bench/tree/generate.ts, small): a vendored node_modules, two > 5 MB C files with known hit counts,
 * .gitignore rules at three depths with a negation, secrets, binaries, symlinks out of the tree, CRLF, no final
 * newline, invalid UTF-8, a 20,000-char line. The peers are asked for what grep promises (hidden files searched,
 * .git left out, .gitignore honoured); what they find in secrets is what the jail leaves out, checked separately.
 */
import { execFileSync, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { generate, markers } from "../../bench/tree/generate.js"
import * as Jail from "../../src/domain/jail/Jail.js"
import { runTool } from "../../src/index.js"

let base: string
let root: string
beforeAll(() => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "minicode-grep-eq-")))
  root = path.join(base, "tree")
  generate({ dir: root, files: 1500, bigCBytes: 5.5 * 1024 * 1024 })
}, 120_000)
afterAll(() => fs.rmSync(base, { recursive: true, force: true }))

const hasRg = spawnSync("rg", ["--version"], { stdio: "ignore" }).status === 0

const ours = async (args: Record<string, unknown>) => {
  const r = await runTool({ workspace: root, tool: "grep", args, maxOutputBytes: 64 * 1024 * 1024 })
  expect(r.ok, JSON.stringify(r)).toBe(true)
  const text = r.ok ? r.text : ""
  const lines = text.split("\n")
  return {
    text,
    keys: lines.filter((l) => !l.startsWith("[") && !l.startsWith("no ")).map((l) => l.split(":", 2).join(":")).sort(),
    notes: lines.filter((l) => l.startsWith("["))
  }
}

const keysOf = (out: string) =>
  out
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => l.split(":", 2).join(":"))

const secret = (key: string) => Jail.protectedName(path.join(root, key.split(":")[0] ?? ""), root) !== undefined

const rg = (pattern: string, extra: ReadonlyArray<string> = []) => {
  const paths = extra.filter((a) => !a.startsWith("-") && !a.includes("*"))
  const flags = extra.filter((a) => !paths.includes(a))
  const r = spawnSync("rg", ["--hidden", "-g", "!.git", "--no-config", "-n", "--no-heading", "--with-filename", "--color", "never", ...flags, "-e", pattern, ...paths], { cwd: root, maxBuffer: 1 << 28, stdio: ["ignore", "pipe", "pipe"] })
  return keysOf(r.stdout.toString())
}

const gitGrep = (pattern: string, extra: ReadonlyArray<string> = []) => {
  const paths = extra.includes("--") ? extra.slice(extra.indexOf("--")) : []
  const flags = extra.includes("--") ? extra.slice(0, extra.indexOf("--")) : extra
  const r = spawnSync("git", ["grep", "-n", "-I", "-P", ...flags, "-e", pattern, ...paths], { cwd: root, maxBuffer: 1 << 28, stdio: ["ignore", "pipe", "pipe"] })
  // git greps a tracked symlink's target path; grep (and rg) do not search symlinks.
  return keysOf(r.stdout.toString()).filter((k) => !fs.lstatSync(path.join(root, k.split(":")[0] ?? "")).isSymbolicLink())
}

const cases: ReadonlyArray<{ readonly name: string; readonly args: Record<string, unknown>; readonly rg: ReadonlyArray<string>; readonly git: ReadonlyArray<string> }> = [
  { name: "a literal in secrets, binaries, ignored files and odd files", args: { pattern: markers.canary }, rg: [], git: [] },
  { name: "a literal in the two big C files", args: { pattern: markers.bigC }, rg: [], git: [] },
  { name: "a regex with a required literal, under a glob", args: { pattern: "function createHandler\\d+_1\\d\\(", glob: "*.ts" }, rg: ["-g", "*.ts"], git: ["--", "*.ts"] },
  { name: "a regex with no literal (an alternation)", args: { pattern: "length > 63\\)|length > 17\\)", path: "packages" }, rg: ["packages"], git: ["--", "packages"] },
  { name: "case-insensitive", args: { pattern: "sqlite_bench_marker \\d", ignore_case: true }, rg: ["-i"], git: ["-i"] }
]

describe.skipIf(!hasRg)("grep agrees with rg and git grep on the bench tree's features", () => {
  for (const c of cases) {
    it(c.name, async () => {
      const got = await ours(c.args)
      const fromRg = rg(String(c.args["pattern"]), c.rg).filter((k) => !secret(k)).sort()
      const fromGit = gitGrep(String(c.args["pattern"]), c.git).filter((k) => !secret(k)).sort()
      expect(got.keys.length).toBeGreaterThan(0)
      expect(got.keys.length).toBeLessThan(500)
      expect(got.keys).toEqual(fromRg)
      expect(got.keys).toEqual(fromGit)
    }, 60_000)
  }

  it("searches the big files whole, names matching binaries, and leaves secrets, ignored files and links out", async () => {
    const big = await ours({ pattern: markers.bigC })
    expect(fs.statSync(path.join(root, "third_party/sqlite/sqlite3.c")).size).toBeGreaterThan(5 * 1024 * 1024)
    expect(big.keys.filter((k) => k.startsWith("third_party/sqlite/"))).toHaveLength(markers.bigCHits)
    expect(big.keys.filter((k) => k.startsWith("third_party/sqlite-copy/"))).toHaveLength(markers.bigCHits)
    const canary = await ours({ pattern: markers.canary })
    expect(canary.notes).toContain("[binary file assets/logo.bin matches]")
    expect(canary.notes).toContain("[binary file assets/data/blob.bin matches]")
    const files = new Set(canary.keys.map((k) => k.split(":")[0]))
    expect(files.has("packages/app-0/src/deep/nested/keep.generated.ts")).toBe(true)
    expect(files.has("misc/crlf.ts") && files.has("misc/no-newline.ts") && files.has("misc/latin1.txt") && files.has("misc/long-line.js")).toBe(true)
    // All of these hold the canary on disk (rg, asked to, finds them): none is searched.
    const unfiltered = new Set(rg(markers.canary, ["--no-ignore", "-L"]).map((k) => k.split(":")[0]))
    for (const f of [".env", "packages/app-1/.env.local", "config/id_rsa", "deploy/certs/deep/server.pem", ".npmrc", "packages/app-2/src/secrets.json", "infra/prod.tfvars", "dist/bundle.js", "debug.log", "packages/app-0/src/deep/nested/skip.generated.ts", "packages/app-1/dist/index.js", "packages/app-1/src/generated/types.ts", "outside-dir/leak.txt", "outside-file.txt"]) {
      expect(unfiltered.has(f), f).toBe(true)
      expect(files.has(f), f).toBe(false)
    }
    expect(canary.text).not.toContain(`TOKEN=${markers.canary}`)
  }, 60_000)

  it("caps grep at 500 matches (the first by path, then line) and glob at 1000 paths (sorted), each counting the rest", async () => {
    const byKey = (a: string, b: string) => {
      const [fa = "", la = "0"] = a.split(":")
      const [fb = "", lb = "0"] = b.split(":")
      return fa === fb ? Number(la) - Number(lb) : fa < fb ? -1 : 1
    }
    const all = rg(markers.common).filter((k) => !secret(k)).sort(byKey)
    expect(all.length).toBeGreaterThan(600)
    const got = await ours({ pattern: markers.common })
    expect(got.keys.sort(byKey)).toEqual(all.slice(0, 500))
    expect(got.text.split("\n").slice(0, 500).map((l) => l.split(":", 2).join(":"))).toEqual(all.slice(0, 500))
    expect(got.notes).toContain(`[truncated: ${all.length - 500} more matches]`)
    // Filtered here, not with rg's -g: an rg glob overrides .gitignore (it would list ignored .ts files).
    const files = spawnSync("rg", ["--files", "--hidden", "-g", "!.git", "--no-config"], { cwd: root, stdio: ["ignore", "pipe", "pipe"], maxBuffer: 1 << 28 })
      .stdout.toString().split("\n").filter((l) => /\.(ts|js)$/.test(l)).sort()
    const listed = await runTool({ workspace: root, tool: "glob", args: { pattern: "**/*.{ts,js}" }, maxOutputBytes: 1 << 24 })
    const lines = listed.ok ? listed.text.split("\n") : []
    // A symlink is listed (not followed); rg --files leaves it out.
    const paths = lines.filter((l) => !l.startsWith("["))
    expect(paths).toContain("alias.ts")
    const withLink = [...files, "alias.ts"].sort()
    expect(withLink.length).toBeGreaterThan(1000)
    expect(paths).toEqual(withLink.slice(0, 1000))
    expect(lines).toContain(`[truncated: ${withLink.length - 1000} more matches]`)
  }, 60_000)

  it("the tree is committed: git sees the ignored files as untracked-and-ignored, the rest as tracked", () => {
    const tracked = execFileSync("git", ["ls-files"], { cwd: root }).toString().split("\n")
    expect(tracked).toContain("third_party/sqlite-copy/sqlite3.c")
    expect(tracked).not.toContain("dist/bundle.js")
  })
})
