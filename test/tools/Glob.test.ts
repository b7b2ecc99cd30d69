/**
 * glob lists what `git ls-files --cached --others --exclude-standard` lists on a generated tree with every feature
 * of the big bench tree (bench/tree/generate.ts, small: a vendored node_modules, .gitignore rules at three depths
 * with a negation, secrets, symlinks out of the tree), the same as `rg --files` plus the symlinks (which glob lists
 * and rg does not), and the same as the walk through descriptors; sorted by path (code units), at most
 * `limits.globResults` shown and the rest counted. Its walk opens each folder without following a link, so a folder
 * swapped for a symlink mid-walk is passed over: nothing from beyond it is shown or counted (the attack test).
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect } from "effect"
import picomatch from "picomatch"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { generate } from "../../bench/tree/generate.js"
import * as NodeFileSystem from "../../src/adapters/fs/NodeFileSystem.js"
import { runTool } from "../../src/index.js"
import { limits } from "../../src/tools/FileTools.js"
import { matcher } from "../../src/tools/PathGlob.js"
import { walk } from "../../src/tools/Walk.js"
import { nodeFileSystemWith } from "../support/NodeFs.js"

let base: string
let root: string
beforeAll(() => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "minicode-glob-")))
  root = path.join(base, "tree")
  generate({ dir: root, files: 1500, bigCBytes: 64 * 1024 })
}, 120_000)
afterAll(() => fs.rmSync(base, { recursive: true, force: true }))

const hasRg = spawnSync("rg", ["--version"], { stdio: "ignore" }).status === 0
const listed = (out: Buffer) => out.toString().split("\0").filter((f) => f !== "").sort()

const gitFiles = () => listed(spawnSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], { cwd: root, maxBuffer: 1 << 28 }).stdout)
const rgFiles = () =>
  listed(
    spawnSync(
      "rg",
      ["--files", "-0", "--hidden", "--no-config", "--no-ignore-dot", "--no-ignore-exclude", "--no-ignore-global", "--no-require-git", "--no-ignore-parent", "-g", "!.git/", "-g", "!.minicode/"],
      { cwd: root, maxBuffer: 1 << 28 }
    ).stdout
  )

const glob = async (args: Record<string, unknown>, workspace = root, adapters?: Parameters<typeof runTool>[0]["adapters"]) => {
  const r = await runTool({ workspace, tool: "glob", args, maxOutputBytes: 64 * 1024 * 1024, ...(adapters === undefined ? {} : { adapters }) })
  expect(r.ok, JSON.stringify(r)).toBe(true)
  const lines = (r.ok ? r.text : "").split("\n")
  return { paths: lines.filter((l) => !l.startsWith("[") && !l.startsWith("no files match")), notes: lines.filter((l) => l.startsWith("[")) }
}

/** What glob should answer, from git's listing: matched as glob documents (picomatch, dot files, a bare name at any depth). */
const expected = (pattern: string, under = "") => {
  const isMatch = picomatch(pattern, { dot: true, matchBase: !pattern.includes("/"), posix: true })
  return gitFiles().filter((f) => (under === "" ? isMatch(f) : f.startsWith(`${under}/`) && isMatch(f.slice(under.length + 1))))
}

describe("glob on the bench tree's features", () => {
  it("the reference is sound: git's listing is rg --files plus the symlinks, none of them entered", () => {
    const git = gitFiles()
    const links = git.filter((f) => fs.lstatSync(path.join(root, f)).isSymbolicLink())
    expect(links).toEqual(expect.arrayContaining(["alias.ts", "etc-link", "outside-dir", "outside-file.txt"]))
    if (hasRg) expect(git.filter((f) => !links.includes(f))).toEqual(rgFiles())
  })

  const cases: ReadonlyArray<{ readonly pattern: string; readonly path?: string }> = [
    { pattern: "**" },
    { pattern: "**/*.ts" },
    { pattern: "*.json" },
    { pattern: "*-link" },
    { pattern: "outside*" },
    { pattern: "src/**/*.ts", path: "packages/app-0" },
    { pattern: "*.generated.ts" },
    { pattern: "node_modules/**/*.js" }
  ]
  for (const c of cases) {
    it(`${c.pattern}${c.path === undefined ? "" : ` in ${c.path}`}: git's files, by path, the first ${limits.globResults} shown and the rest counted`, async () => {
      const want = expected(c.pattern, c.path ?? "")
      const got = await glob({ pattern: c.pattern, ...(c.path === undefined ? {} : { path: c.path }) })
      expect(want.length).toBeGreaterThan(0)
      expect(got.paths).toEqual(want.slice(0, limits.globResults))
      expect(got.notes).toEqual(want.length > limits.globResults ? [`[truncated: ${want.length - limits.globResults} more matches]`] : [])
    })
  }

  it("lists symlinks without entering them, and more than the cap shows the cap", async () => {
    const all = expected("**")
    expect(all.length).toBeGreaterThan(limits.globResults)
    const got = await glob({ pattern: "*" })
    expect(got.paths).toEqual(expect.arrayContaining(["alias.ts", "etc-link", "outside-dir", "outside-file.txt"]))
    expect(got.paths.some((p) => p.startsWith("outside-dir/") || p.startsWith("etc-link/"))).toBe(false)
    expect(got.paths).toHaveLength(limits.globResults)
    expect([...got.paths].sort()).toEqual(got.paths)
  })

  it("the walk grep uses lists git's files, and per folder its regular files (the symlinks left out)", async () => {
    const walked = await Effect.runPromise(walk({ root, start: root, maxEntries: 1_000_000 }).pipe(Effect.provide(NodeFileSystem.layer)))
    const git = gitFiles()
    expect(walked.files).toEqual(git)
    const regular = walked.dirs.flatMap((d) => d.files.map((f) => (d.rel === "" ? f : `${d.rel}/${f}`))).sort()
    expect(regular).toEqual(git.filter((f) => !fs.lstatSync(path.join(root, f)).isSymbolicLink()))
  })

  it("with `each` (grep's own walk), the same folders are handed over step by step, in the walk's order, and none kept", async () => {
    const whole = await Effect.runPromise(walk({ root, start: root, maxEntries: 1_000_000, files: false }).pipe(Effect.provide(NodeFileSystem.layer)))
    const steps: Array<ReadonlyArray<{ readonly rel: string; readonly files: ReadonlyArray<string> }>> = []
    const streamed = await Effect.runPromise(
      walk({ root, start: root, maxEntries: 1_000_000, files: false, each: (dirs) => Effect.sync(() => void steps.push(dirs)) }).pipe(Effect.provide(NodeFileSystem.layer))
    )
    expect(streamed.dirs).toEqual([])
    expect(steps.length).toBeGreaterThan(1)
    expect(steps.flat()).toEqual(whole.dirs)
  })

  it("with `first` (glob's cap), the walk keeps the first paths of its whole listing and counts them all", async () => {
    const walked = (pattern: string, first?: number, at = root) =>
      Effect.runPromise(
        walk({ root: at, start: at, maxEntries: 1_000_000, dirs: false, keep: matcher(pattern), ...(first === undefined ? {} : { first }) }).pipe(
          Effect.provide(NodeFileSystem.layer)
        )
      )
    // A tree whose walk order is far from the sorted order: a folder's files come before its subfolders' (which sort
    // before them here), and the later folders sort first.
    const shuffled = path.join(base, "first-ws")
    for (const [dir, n] of [["", 40], ["m", 30], ["m/k", 20], ["b", 30], ["b/z", 25], ["a", 10], ["a/a", 35]] as const) {
      fs.mkdirSync(path.join(shuffled, dir), { recursive: true })
      for (let i = 0; i < n; i++) fs.writeFileSync(path.join(shuffled, dir, `${"zyx"[i % 3]}${n - i}.ts`), "")
    }
    for (const [pattern, at] of [["**", root], ["**/*.ts", root], ["*.json", root], ["**", shuffled]] as const) {
      const all = await walked(pattern, undefined, at)
      expect(all.matched).toBe(all.files.length)
      // Cut many times over (a small cap), never (a cap above the count), and at the edges.
      const firsts = at === shuffled ? Array.from({ length: all.files.length + 2 }, (_, i) => i) : [0, 1, 7, 100, all.files.length - 1, all.files.length, all.files.length + 1]
      for (const first of firsts) {
        const got = await walked(pattern, first, at)
        expect(got.files).toEqual(all.files.slice(0, Math.max(first, 0)))
        expect(got.matched).toBe(all.files.length)
      }
    }
  })
})

describe("glob's walk and a folder swapped for a symlink mid-walk", () => {
  it("the folder seen in its parent's listing, then swapped before it is opened: nothing from beyond it is shown, nor counted", async () => {
    const ws = path.join(base, "race-ws")
    const outside = path.join(base, "race-outside")
    fs.mkdirSync(path.join(ws, "src"), { recursive: true })
    fs.mkdirSync(outside)
    fs.writeFileSync(path.join(ws, "a.ts"), "a\n")
    fs.writeFileSync(path.join(ws, "src", "b.ts"), "b\n")
    fs.writeFileSync(path.join(outside, "outside-name.ts"), "x\n")
    fs.writeFileSync(path.join(outside, "other-name.ts"), "y\n")
    let swapped = 0
    const racing = nodeFileSystemWith((real) => ({
      walkTree: (start) =>
        Effect.map(real.walkTree(start), (tree) => ({
          ...tree,
          step: (folders, visit) =>
            tree.step(folders, (folder) => {
              const subs = visit(folder)
              // The root was listed (src a folder in it): src is swapped now, before the walk opens it.
              if (folder.rel === "" && subs.includes("src")) {
                fs.renameSync(path.join(ws, "src"), path.join(ws, "src-old"))
                fs.symlinkSync(outside, path.join(ws, "src"))
                swapped++
              }
              return subs
            })
        }))
    }))
    const got = await glob({ pattern: "**/*.ts" }, ws, { fileSystem: racing })
    expect(swapped).toBe(1)
    // src failed its no-follow open and was passed over; src-old was not in the root's listing when it was taken.
    expect(got.paths).toEqual(["a.ts"])
    expect(got.notes).toEqual([])
    // A second call, the swap in place: src is a symlink now, listed and not entered.
    const after = await glob({ pattern: "**" }, ws)
    expect(after.paths).toEqual(["a.ts", "src", "src-old/b.ts"])
  })
})

describe("list_dir caps visibly, folders first then files, each by name", () => {
  it("1,005 entries: the first 1,000 in the documented order, the rest counted", async () => {
    const ws = path.join(base, "list-ws")
    const dir = path.join(ws, "many")
    fs.mkdirSync(dir, { recursive: true })
    const files = Array.from({ length: 1000 }, (_, i) => `f${String(i).padStart(4, "0")}.txt`)
    for (const f of files) fs.writeFileSync(path.join(dir, f), "")
    for (const d of ["zdir", "adir", "mdir"]) fs.mkdirSync(path.join(dir, d))
    fs.symlinkSync("f0000.txt", path.join(dir, "link"))
    fs.symlinkSync("adir", path.join(dir, "dirlink"))
    const r = await runTool({ workspace: ws, tool: "list_dir", args: { path: "many" }, maxOutputBytes: 1 << 20 })
    expect(r.ok, JSON.stringify(r)).toBe(true)
    const lines = (r.ok ? r.text : "").split("\n")
    const order = ["adir/", "mdir/", "zdir/", "dirlink@", ...files, "link@"].slice(0, limits.listEntries)
    expect(lines).toEqual([...order, "[truncated: 5 more entries]"])
  })
})
