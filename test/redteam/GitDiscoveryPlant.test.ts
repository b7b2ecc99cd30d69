/**
 * Red team (issue 19), more of what git's discovery follows that a writable call can plant, each pointing git at a
 * config with an fsmonitor kept where the scan does not take a folder for a git folder (inside a nested
 * repository's `.git`, `n/.git/x`): a `.git` symlink, a `.git` file (`gitdir:`), and a folder holding `HEAD` and a
 * `commondir` (its `config.worktree` giving the work tree). Each time the user's own `git status` in `src/`, later,
 * on the host, must run nothing.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { attackFile, committedSrc } from "./support/Attack.js"
import { title, unavailable } from "../support/Sandbox.js"

const cleanups = attackFile()

/** A workspace with `src/` committed; the marker the planted fsmonitor would make; the layout's planting script. */
const setup = () => {
  const { ws, marker, userStatus } = committedSrc(cleanups)
  const hidden = `git init -q n && mkdir -p n/.git/x/refs/heads n/.git/x/objects && echo 'ref: refs/heads/main' > n/.git/x/HEAD
printf '[core]\\n\\trepositoryformatversion = 1\\n\\tworktree = ${path.join(ws.root, "src")}\\n\\tfsmonitor = touch ${marker}\\n[extensions]\\n\\tworktreeConfig = true\\n' > n/.git/x/config`
  return { ws, marker, hidden, userStatus }
}

describe.skipIf(unavailable !== undefined)(title("what git's discovery follows, planted from bash"), () => {
  it("a .git symlink naming a git folder inside a nested repository's .git is removed", () => {
    const { ws, marker, hidden, userStatus } = setup()
    expect(ws.script(`${hidden}\nln -s ../n/.git/x src/.git && echo planted`)).toContain("planted")
    userStatus()
    expect(fs.existsSync(marker)).toBe(false)
    expect(fs.lstatSync(path.join(ws.root, "src/.git"), { throwIfNoEntry: false })).toBeUndefined()
  })

  it("a .git file (gitdir:) naming a git folder inside a nested repository's .git: that folder's config runs nothing", () => {
    const { ws, marker, hidden, userStatus } = setup()
    expect(ws.script(`${hidden}\necho 'gitdir: ../n/.git/x' > src/.git && echo planted`)).toContain("planted")
    userStatus()
    expect(fs.existsSync(marker)).toBe(false)
  })

  it("a folder made a git folder by HEAD and commondir (its config.worktree naming the work tree) is undone", () => {
    const { ws, marker, hidden, userStatus } = setup()
    const out = ws.script(`${hidden}\necho 'ref: refs/heads/main' > src/HEAD && echo ../n/.git/x > src/commondir
printf '[core]\\n\\tworktree = .\\n' > src/config.worktree && echo planted`)
    expect(out).toContain("planted")
    userStatus()
    expect(fs.existsSync(marker)).toBe(false)
    expect(fs.existsSync(path.join(ws.root, "src/commondir"))).toBe(false)
  })
})
