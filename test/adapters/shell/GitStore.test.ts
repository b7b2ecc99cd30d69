/**
 * The store reader (adapters/shell/GitStore.ts) against real git: every tree of a pack whose trees are deltas is
 * rebuilt byte for byte as `git cat-file` gives it, loose trees likewise, and index files of every version (with
 * extended flags, path compression and resolve-undo records) list what `git ls-files` lists.
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import * as GitStore from "../../../src/adapters/shell/GitStore.js"

const dirs: Array<string> = []
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true })
})

const repo = () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "minicode-gitstore-"))
  dirs.push(root)
  const git = (args: ReadonlyArray<string>, input?: string) =>
    execFileSync("git", ["-c", "user.email=a@b", "-c", "user.name=A", ...args], { cwd: root, encoding: "buffer", ...(input === undefined ? {} : { input }) })
  git(["init", "-q", "-b", "main"])
  return { root, git, text: (args: ReadonlyArray<string>) => git(args).toString("utf8") }
}

const treesOf = (text: (args: ReadonlyArray<string>) => string) =>
  text(["cat-file", "--batch-all-objects", "--batch-check=%(objectname) %(objecttype)"])
    .split("\n")
    .filter((l) => l.endsWith(" tree"))
    .map((l) => l.slice(0, 40))
    .sort()

describe("GitStore", () => {
  it("rebuilds every tree of a pack, deltas included, as git reads it", () => {
    const { root, git, text } = repo()
    fs.mkdirSync(path.join(root, "d"))
    for (let i = 0; i < 60; i++) fs.writeFileSync(path.join(root, "d", `file-${i}.txt`), `${i}\n`)
    for (let c = 0; c < 25; c++) {
      fs.writeFileSync(path.join(root, "d", `file-${c}.txt`), `changed ${c}\n`)
      git(["add", "-A"])
      git(["commit", "-q", "-m", `c${c}`])
    }
    git(["gc", "-q", "--aggressive"])
    const pack = fs.readdirSync(path.join(root, ".git/objects/pack")).find((n) => n.endsWith(".pack")) ?? ""
    const packFile = path.join(root, ".git/objects/pack", pack)
    // The pack does store trees as deltas (verify-pack: "<id> tree <size> <size-in-pack> <offset> <depth> <base>").
    const verify = text(["verify-pack", "-v", packFile.replace(/\.pack$/, ".idx")])
    expect(verify.split("\n").filter((l) => / tree .* [0-9a-f]{40}$/.test(l)).length).toBeGreaterThan(5)
    const index = GitStore.readPackIndex(fs.readFileSync(packFile.replace(/\.pack$/, ".idx")))
    expect(index).toBeDefined()
    const seen = new Map<string, Buffer>()
    expect(GitStore.packTrees(packFile, index ?? { ids: Buffer.alloc(0), count: 0, offset: () => 0 }, (id, body) => seen.set(id, body))).toBe(true)
    expect([...seen.keys()].sort()).toEqual(treesOf(text))
    for (const [id, body] of seen) expect(body.equals(git(["cat-file", "tree", id]))).toBe(true)
    const root0 = text(["rev-parse", "HEAD^{tree}"]).trim()
    expect(GitStore.treeEntries(seen.get(root0) ?? Buffer.alloc(0))).toEqual([{ name: "d", id: text(["rev-parse", "HEAD:d"]).trim(), kind: "tree" }])
  })

  it("reads loose trees and lists loose ids", () => {
    const { root, git, text } = repo()
    fs.writeFileSync(path.join(root, "a.txt"), "a\n")
    git(["add", "a.txt"])
    const tree = text(["write-tree"]).trim()
    const blob = text(["rev-parse", ":a.txt"]).trim()
    expect([...GitStore.looseIds(path.join(root, ".git/objects")).ids].sort()).toEqual([blob, tree].sort())
    const o = GitStore.looseTree(path.join(root, ".git/objects"), tree)
    expect(o?.type).toBe("tree")
    expect(o?.body?.equals(git(["cat-file", "tree", tree]))).toBe(true)
    expect(GitStore.looseTree(path.join(root, ".git/objects"), blob)).toEqual({ type: "blob" })
  })

  it("reads index files of versions 2, 3 and 4, and the stages a resolved conflict left", () => {
    const { root, git, text } = repo()
    for (const n of ["a.txt", "dir/b.txt", "dir/sub/ünï.txt", "dir/sub/zz.txt"]) {
      fs.mkdirSync(path.dirname(path.join(root, n)), { recursive: true })
      fs.writeFileSync(path.join(root, n), `${n}\n`)
    }
    git(["add", "-A"])
    git(["commit", "-q", "-m", "base"])
    git(["checkout", "-q", "-b", "other"])
    fs.writeFileSync(path.join(root, "a.txt"), "theirs\n")
    git(["commit", "-q", "-am", "theirs"])
    git(["checkout", "-q", "main"])
    fs.writeFileSync(path.join(root, "a.txt"), "ours\n")
    git(["commit", "-q", "-am", "ours"])
    expect(() => git(["merge", "-q", "other"])).toThrow()
    fs.writeFileSync(path.join(root, "a.txt"), "resolved\n")
    git(["add", "a.txt"])
    const listed = () => ({
      stages: text(["-c", "core.quotePath=false", "ls-files", "-s"])
        .trim()
        .split("\n")
        .map((l) => ({ path: l.split("\t")[1] ?? "", id: l.split(" ")[1] ?? "" })),
      undo: text(["-c", "core.quotePath=false", "ls-files", "--resolve-undo"])
        .trim()
        .split("\n")
        .map((l) => ({ path: l.split("\t")[1] ?? "", id: l.split(" ")[1] ?? "" }))
    })
    const readAs = (version: string) => {
      git(["update-index", "--index-version", version])
      expect(fs.readFileSync(path.join(root, ".git/index")).readUInt32BE(4)).toBe(Number(version))
      const { stages, undo } = listed()
      expect(undo.length).toBe(3)
      expect(GitStore.indexEntries(fs.readFileSync(path.join(root, ".git/index")))).toEqual([...stages, ...undo])
      // Ids only (the store check's attribution): the same ids, in the same order, paths not rebuilt.
      expect(GitStore.indexEntries(fs.readFileSync(path.join(root, ".git/index")), false)?.map((e) => e.id)).toEqual([...stages, ...undo].map((e) => e.id))
    }
    readAs("2")
    // An intent-to-add entry needs the extended flags (version 3 and up).
    fs.writeFileSync(path.join(root, "new.txt"), "n\n")
    git(["add", "-N", "new.txt"])
    readAs("3")
    readAs("4")
  })
})
