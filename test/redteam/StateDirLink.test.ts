/**
 * Red team (issue 19), was a hole: the repository decided where minicode's own state goes. A checkout that ships
 * `.minicode` as a symlink (`.minicode -> ../elsewhere`, committed like any other link) makes the first tool call
 * write its `state.db` into an existing `../elsewhere/` (the journal, with the snapshots of every file a tool changes) and a
 * `.gitignore` there: files created outside the workspace (invariant 2). Pointed at a folder inside the workspace
 * instead, the journal becomes an ordinary file the file tools and bash can read and edit (the jail protects the
 * name `.minicode`, not the folder it leads to).
 *
 * Suggested fix: src/adapters/fs/StateDir.ts `prepare` (and SqliteJournalFiles, which opens the database by path):
 * refuse, or set aside, a `.minicode` that is not a real folder (lstat, no symlink on the way), and open the
 * journal beneath a descriptor held with O_NOFOLLOW.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { attackFile, attackWorkspace } from "./support/Attack.js"

const cleanups = attackFile()

describe("a .minicode symlink shipped by the repository", () => {
  it("a tool call never creates minicode's state outside the workspace", () => {
    const { root, parent, tool } = attackWorkspace(cleanups)
    // An existing folder outside (a dangling link makes the call fail instead).
    const elsewhere = path.join(parent, "elsewhere")
    fs.mkdirSync(elsewhere)
    fs.symlinkSync("../elsewhere", path.join(root, ".minicode"))
    tool("write_file", { path: "b.txt", content: "b\n" })
    expect(fs.readdirSync(elsewhere)).toEqual([])
  })

  it("pointed inside the workspace, the journal is not readable as an ordinary file", () => {
    const { root, tool } = attackWorkspace(cleanups)
    fs.mkdirSync(path.join(root, "st"))
    fs.symlinkSync("st", path.join(root, ".minicode"))
    tool("write_file", { path: "b.txt", content: "JOURNALCANARY\n" })
    tool("write_file", { path: "b.txt", content: "b\n" })
    const read = tool("grep", { pattern: "JOURNALCANARY", path: "st" })
    const listed = tool("list_dir", { path: "st" })
    expect(listed.stdout).not.toContain("state.db")
    expect(read.stdout).not.toContain("state.db")
  })
})
