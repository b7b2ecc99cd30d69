/**
 * Red team (issue 19, invariant 3), a hole: the file tools assemble, one allowed call at a time, a folder git takes
 * for a git folder. git's discovery takes a folder holding `HEAD` beside `objects/` and `refs/` (or beside a
 * `commondir`) for a (bare) repository before it looks at a parent's `.git`. The jail judges a path in such a folder
 * as the same path under `.git` (kernel/GitFolders `asDotGit`), but only once the layout is whole: write_file of
 * `src/config` (`core.worktree = .`, `core.fsmonitor = <program>`), `src/refs/heads/.keep`, `src/objects/.keep`,
 * then `src/HEAD` were each judged before it was, and the user's next `git status` in `src/` ran the program on the
 * host, outside any sandbox. BareLayoutPlant.test.ts is the same plant from sandboxed bash (GitControl puts it back);
 * here no bash runs at all. Through the built binary (allow-all, default sandbox).
 *
 * The same through `minicode redo` (the user's own command, after the agent's calls): the agent writes `src/HEAD`,
 * the user undoes that turn, the agent writes `src/config`, `src/refs/…` and `src/objects/…` (no HEAD: no layout),
 * the user redoes the turn, and the restore (tools/UndoTool `locate`, judged by the jail's names alone) made the
 * layout whole.
 *
 * Now the jail stage refuses the entry that would complete the layout (GitFolders `madeGitFolder`): a written file,
 * a move's landing (a file, a folder, a folder replacing a file); undo and redo judge each restored path the same way
 * (and a path in a git folder by another name as under `.git`). Honest files named `HEAD`, `refs/` or `objects/`
 * that make no such layout are written, undone and redone as ever.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { bin } from "../serve/support/McpServeHarness.js"
import { attackFile, committedSrc } from "./support/Attack.js"

const cleanups = attackFile()

const head = "ref: refs/heads/main\n"

describe("a git folder's layout assembled by the file tools", () => {
  it("config, refs, objects, then HEAD: the last write is refused and the user's git status in src runs nothing", () => {
    const { ws, marker, userStatus } = committedSrc(cleanups)
    const config = `[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = .\n\tfsmonitor = touch ${marker}\n`
    expect(ws.tool("write_file", { path: "src/config", content: config }).status).toBe(0)
    expect(ws.tool("write_file", { path: "src/refs/heads/.keep", content: "" }).status).toBe(0)
    expect(ws.tool("write_file", { path: "src/objects/.keep", content: "" }).status).toBe(0)
    const last = ws.tool("write_file", { path: "src/HEAD", content: head })
    expect(last.status, last.stdout).not.toBe(0)
    expect(last.stdout + last.stderr).toContain("jail.git-internals")
    userStatus()
    expect(fs.existsSync(marker)).toBe(false)
  })

  it("HEAD first, the layout completed by moves: a file, a folder, a folder over a file", () => {
    const { ws, marker, userStatus } = committedSrc(cleanups)
    const config = `[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = .\n\tfsmonitor = touch ${marker}\n`
    expect(ws.tool("write_file", { path: "src/config", content: config }).status).toBe(0)
    expect(ws.tool("write_file", { path: "src/HEAD", content: head }).status).toBe(0)
    expect(ws.tool("write_file", { path: "src/objects/.keep", content: "" }).status).toBe(0)
    // refs/ moved in as a folder.
    expect(ws.tool("write_file", { path: "stage/refs/heads/.keep", content: "" }).status).toBe(0)
    const folder = ws.tool("move_file", { from: "stage/refs", to: "src/refs" })
    expect(folder.status, folder.stdout).not.toBe(0)
    expect(folder.stdout + folder.stderr).toContain("jail.git-internals")
    // refs as a file first (no layout), then a folder moved over it.
    expect(ws.tool("write_file", { path: "src/refs", content: "a file\n" }).status).toBe(0)
    const over = ws.tool("move_file", { from: "stage/refs", to: "src/refs", overwrite: true })
    expect(over.status, over.stdout).not.toBe(0)
    // A commondir moved in beside HEAD.
    expect(ws.tool("write_file", { path: "stage/commondir", content: "../gd\n" }).status).toBe(0)
    const common = ws.tool("move_file", { from: "stage/commondir", to: "src/commondir" })
    expect(common.status, common.stdout).not.toBe(0)
    userStatus()
    expect(fs.existsSync(marker)).toBe(false)
  })

  it("HEAD moved in last, into a folder that has objects/ and refs/", () => {
    const { ws, marker, userStatus } = committedSrc(cleanups)
    const config = `[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = .\n\tfsmonitor = touch ${marker}\n`
    expect(ws.tool("write_file", { path: "src/config", content: config }).status).toBe(0)
    expect(ws.tool("write_file", { path: "src/objects/.keep", content: "" }).status).toBe(0)
    expect(ws.tool("write_file", { path: "src/refs/.keep", content: "" }).status).toBe(0)
    expect(ws.tool("write_file", { path: "stage/HEAD", content: head }).status).toBe(0)
    const moved = ws.tool("move_file", { from: "stage/HEAD", to: "src/HEAD" })
    expect(moved.status, moved.stdout).not.toBe(0)
    userStatus()
    expect(fs.existsSync(marker)).toBe(false)
    expect(fs.existsSync(path.join(ws.root, "src/HEAD"))).toBe(false)
  })

  it("honest files named HEAD, refs or objects that make no git layout are written and moved", () => {
    const { ws } = committedSrc(cleanups)
    for (const p of ["docs/HEAD", "lib/refs/HEAD", "lib/objects/index.ts", "assets/HEAD/logo.svg"]) {
      const r = ws.tool("write_file", { path: p, content: "honest\n" })
      expect(r.status, `${p}: ${r.stdout}${r.stderr}`).toBe(0)
    }
    expect(ws.tool("move_file", { from: "docs/HEAD", to: "notes/HEAD" }).status).toBe(0)
    expect(fs.readFileSync(path.join(ws.root, "notes/HEAD"), "utf8")).toBe("honest\n")
  })

  it("redo after the agent wrote the rest of the layout: the restore is refused, the user's git status runs nothing", () => {
    const { ws, marker, userStatus } = committedSrc(cleanups)
    const user = (command: string) => spawnSync(process.execPath, [bin, command, "--cwd", ws.root], { encoding: "utf8" })
    expect(ws.tool("write_file", { path: "src/HEAD", content: head }).status).toBe(0)
    expect(user("undo").status).toBe(0)
    expect(fs.existsSync(path.join(ws.root, "src/HEAD"))).toBe(false)
    const config = `[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = .\n\tfsmonitor = touch ${marker}\n`
    expect(ws.tool("write_file", { path: "src/config", content: config }).status).toBe(0)
    expect(ws.tool("write_file", { path: "src/refs/heads/.keep", content: "" }).status).toBe(0)
    expect(ws.tool("write_file", { path: "src/objects/.keep", content: "" }).status).toBe(0)
    const redo = user("redo")
    expect(redo.stdout + redo.stderr).toContain("refused src/HEAD")
    expect(fs.existsSync(path.join(ws.root, "src/HEAD"))).toBe(false)
    userStatus()
    expect(fs.existsSync(marker)).toBe(false)
  })

  it("honest undo and redo of a file named HEAD that makes no layout", () => {
    const { ws } = committedSrc(cleanups)
    const user = (command: string) => spawnSync(process.execPath, [bin, command, "--cwd", ws.root], { encoding: "utf8" })
    expect(ws.tool("write_file", { path: "notes/HEAD", content: "honest\n" }).status).toBe(0)
    expect(user("undo").status).toBe(0)
    expect(fs.existsSync(path.join(ws.root, "notes/HEAD"))).toBe(false)
    const redo = user("redo")
    expect(redo.status, redo.stdout + redo.stderr).toBe(0)
    expect(fs.readFileSync(path.join(ws.root, "notes/HEAD"), "utf8")).toBe("honest\n")
  })
})
