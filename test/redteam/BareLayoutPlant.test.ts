/**
 * Red team (issue 19), a repository git finds without any `.git`: git's discovery takes a folder holding `HEAD`,
 * `refs/` and `objects/` for a (bare) git folder before it looks at the parent's `.git` (safe.bareRepository defaults
 * to `all`). Sandboxed bash makes `src/` such a folder, with a `config` (core.worktree = ., core.fsmonitor) and
 * `hooks/pre-commit`. The scan pins a bare store only when `objects/` holds `info/` and `pack/`, and GitControl looks
 * only at `.git` folders, so nothing is put back: the user's next `git status` in `src/` (or an editor's git
 * integration scanning subfolders) runs the planted program on the host, outside any sandbox. Likewise a `.git`
 * symlink (`src/.git -> ../gd`): the scan never follows or pins a symlink, and GitControl expands only a `.git`
 * folder or `gitdir:` file, so the folder it names is never looked after.
 */
import * as fs from "node:fs"
import { describe, expect, it } from "vitest"
import { attackFile, committedSrc } from "./support/Attack.js"
import { title, unavailable } from "../support/Sandbox.js"

const cleanups = attackFile()

describe.skipIf(unavailable !== undefined)(title("a bare repository's layout planted in a workspace folder from bash"), () => {
  it("the user's git status in that folder runs nothing", () => {
    const { ws, marker, userStatus } = committedSrc(cleanups)
    const out = ws.script(`cd src && mkdir -p refs/heads objects hooks && echo 'ref: refs/heads/main' > HEAD
printf '[core]\\n\\trepositoryformatversion = 0\\n\\tbare = false\\n\\tworktree = .\\n\\tfsmonitor = touch ${marker}\\n' > config
printf '#!/bin/sh\\ntouch ${marker}\\n' > hooks/pre-commit && chmod +x hooks/pre-commit && echo planted`)
    expect(out).toContain("planted")
    // The user's own git on the host, later, in src/.
    userStatus()
    expect(fs.existsSync(marker)).toBe(false)
  })
  it("a .git symlink planted in a workspace folder, naming a git folder with an fsmonitor: the user's git status there runs nothing", () => {
    const { ws, marker, userStatus } = committedSrc(cleanups)
    const out = ws.script(`mkdir -p gd/refs/heads gd/objects && echo 'ref: refs/heads/main' > gd/HEAD
printf '[core]\\n\\trepositoryformatversion = 0\\n\\tfsmonitor = touch ${marker}\\n' > gd/config
ln -s ../gd src/.git && echo planted`)
    expect(out).toContain("planted")
    userStatus()
    expect(fs.existsSync(marker)).toBe(false)
  })
})
