/** The jail's walk of what a folder holds: bounded, never through a symlink, and a folder it cannot list is refused. */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect } from "effect"
import { afterEach, describe, expect, it } from "vitest"
import * as MemoryFileSystem from "../../src/adapters/fs/MemoryFileSystem.js"
import * as NodeFileSystem from "../../src/adapters/fs/NodeFileSystem.js"
import * as Jail from "../../src/domain/jail/Jail.js"
import { FsError } from "../../src/ports/FileSystem.js"
import { runTool } from "../../src/index.js"
import * as Subtree from "../../src/kernel/Subtree.js"
import { nodeFileSystemWith } from "../support/NodeFs.js"

const ctx: Jail.JailContext = { root: "/ws", unrestricted: false }
const judgeIn = (base: string) => (rel: string) => Jail.checkContents(ctx, base, [base], rel)

const dirs: Array<string> = []
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true })
})

describe("Subtree.judge", () => {
  it("finds a protected entry at any depth, and stops there", async () => {
    const { fs: mem } = await Effect.runPromise(
      MemoryFileSystem.make({ "/ws/a/b/c/d.txt": "x", "/ws/a/b/c/.git/config": "x", "/ws/a/e.txt": "x" })
    )
    const seen: Array<string> = []
    const judged = await Effect.runPromise(Subtree.judge(mem, "/ws/a", (rel) => (seen.push(rel), judgeIn("/ws/a")(rel))))
    expect(judged._tag).toBe("Refused")
    expect(judged._tag === "Refused" && judged.verdict.reason).toContain("b/c/.git")
    expect(seen).not.toContain("b/c/.git/config")
  })

  it("does not follow a symlink: a link to a protected folder is one entry, judged by its own name", async () => {
    const { fs: mem } = await Effect.runPromise(
      MemoryFileSystem.make({ "/ws/.ssh/id_rsa": "k", "/ws/a/keys": { symlink: "/ws/.ssh" }, "/ws/a/x.txt": "x" })
    )
    const judged = await Effect.runPromise(Subtree.judge(mem, "/ws/a", judgeIn("/ws/a")))
    expect(judged).toEqual({ _tag: "Clean", entries: 2 })
    // A symlink itself is moved as the link: nothing to walk.
    const link = await Effect.runPromise(Subtree.judge(mem, "/ws/a/keys", judgeIn("/ws/a/keys")))
    expect(link).toEqual({ _tag: "Clean", entries: 0 })
  })

  it("refuses a folder with more entries than the bound, saying so", async () => {
    const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "minicode-subtree-")))
    dirs.push(base)
    for (let i = 0; i < 5; i++) fs.writeFileSync(path.join(base, `f${i}`), "x")
    const node = await Effect.runPromise(NodeFileSystem.make)
    expect(await Effect.runPromise(Subtree.judge(node, base, () => ({ ok: true }), 4))).toEqual({ _tag: "TooLarge", limit: 4 })
    expect(await Effect.runPromise(Subtree.judge(node, base, () => ({ ok: true }), 5))).toEqual({ _tag: "Clean", entries: 5 })
  })

  it("through the chain: a folder that cannot be listed is not moved", async () => {
    const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "minicode-subtree-")))
    dirs.push(base)
    fs.mkdirSync(path.join(base, "a/hidden"), { recursive: true })
    fs.writeFileSync(path.join(base, "a/hidden/x"), "x")
    const failing = nodeFileSystemWith((real) => ({
      readDir: (p) => (p.endsWith("/hidden") ? Effect.fail(new FsError({ op: "list", path: p, code: "EACCES", reason: "permission denied" })) : real.readDir(p))
    }))
    const r = await runTool({ workspace: base, tool: "move_file", args: { from: "a", to: "b" }, workMode: "BUILD", adapters: { fileSystem: failing } })
    expect(r.ok).toBe(false)
    expect(!r.ok && r.error["rule"]).toBe("jail.unresolvable")
    expect(!r.ok && r.error.message).toContain("cannot list what it holds")
    expect(fs.existsSync(path.join(base, "a/hidden/x"))).toBe(true)
  })
})
