/**
 * Red team of staged bash (issue 41): a folder git takes for a git folder (`HEAD` beside `objects/` and `refs/`) made
 * in pieces across calls. Each call's merge asks which folders are git folders only among those it changes, and
 * only by what is there once it has changed: a first call leaves `src/config` (an fsmonitor) and `src/hooks/pre-commit`
 * in a folder that is no git folder yet (a plain `config` file is anyone's), a second leaves `HEAD`, `objects/` and
 * `refs/` there, each of which is git's data. The user's next `git status` in `src/` then runs the planted program.
 */
import * as fs from "node:fs"
import { describe, expect, it } from "vitest"
import { attackFile, committedSrc } from "./support/Attack.js"
import { title, unavailable } from "../support/Sandbox.js"

// Staged bash is what this file attacks (MINICODE_BASH_STAGED=1; the CLI and mcp serve this file starts inherit it).
process.env["MINICODE_BASH_STAGED"] = "1"

const cleanups = attackFile()

describe.skipIf(unavailable !== undefined)(title("a git folder's layout made in pieces across staged bash calls"), () => {
  it("instructions first, the layout second: the user's git status in that folder runs nothing", () => {
    const { ws, marker, userStatus } = committedSrc(cleanups)
    const first = ws.script(`cd src && printf '[core]\\n\\trepositoryformatversion = 0\\n\\tbare = false\\n\\tworktree = .\\n\\tfsmonitor = touch ${marker}\\n' > config
mkdir -p hooks && printf '#!/bin/sh\\ntouch ${marker}\\n' > hooks/pre-commit && chmod +x hooks/pre-commit && echo first`)
    expect(first).toContain("first")
    const second = ws.script(`cd src && mkdir -p refs/heads objects && echo 'ref: refs/heads/main' > HEAD && echo second`)
    expect(second).toContain("second")
    expect(second).toContain("staged.git-layout")
    userStatus()
    expect(fs.existsSync(marker)).toBe(false)
  })
  it("the layout first, instructions second: the user's git status in that folder runs nothing", () => {
    const { ws, marker, userStatus } = committedSrc(cleanups)
    expect(ws.script(`cd src && mkdir -p refs/heads objects && echo 'ref: refs/heads/main' > HEAD && echo first`)).toContain("first")
    ws.script(`cd src && printf '[core]\\n\\trepositoryformatversion = 0\\n\\tbare = false\\n\\tworktree = .\\n\\tfsmonitor = touch ${marker}\\n' > config && echo second`)
    userStatus()
    expect(fs.existsSync(marker)).toBe(false)
  })
  it("the layout's pieces one per call, the config in the middle: the user's git status runs nothing", () => {
    const { ws, marker, userStatus } = committedSrc(cleanups)
    ws.script(`cd src && echo 'ref: refs/heads/main' > HEAD && mkdir -p objects && echo first`)
    ws.script(`cd src && printf '[core]\\n\\trepositoryformatversion = 0\\n\\tbare = false\\n\\tworktree = .\\n\\tfsmonitor = touch ${marker}\\n' > config && echo second`)
    ws.script(`cd src && mkdir -p refs/heads && echo third`)
    userStatus()
    expect(fs.existsSync(marker)).toBe(false)
  })
  // git takes HEAD beside a `commondir` for a linked worktree's git folder: objects, refs and config are the named
  // folder's, and with extensions.worktreeConfig the folder's own `config.worktree` gives the work tree.
  const common = (marker: string) => `mkdir -p common/objects common/refs/heads && printf '[core]\\n\\trepositoryformatversion = 1\\n\\tbare = false\\n\\tfsmonitor = touch ${marker}\\n[extensions]\\n\\tworktreeConfig = true\\n' > common/config
printf '[core]\\n\\tworktree = '"$PWD"'/src\\n' > src/config.worktree`
  it("HEAD beside a commondir naming a folder with objects/, refs/ and an fsmonitor config: the user's git status runs nothing", () => {
    const { ws, marker, userStatus } = committedSrc(cleanups)
    expect(ws.script(`${common(marker)}
cd src && echo ../common > commondir && echo 'ref: refs/heads/main' > HEAD && echo one`)).toContain("one")
    userStatus()
    expect(fs.existsSync(marker)).toBe(false)
  })
  it("the commondir in a first call, HEAD in a second: the user's git status runs nothing", () => {
    const { ws, marker, userStatus } = committedSrc(cleanups)
    expect(ws.script(`${common(marker)}
echo ../common > src/commondir && echo first`)).toContain("first")
    expect(ws.script(`echo 'ref: refs/heads/main' > src/HEAD && echo second`)).toContain("second")
    userStatus()
    expect(fs.existsSync(marker)).toBe(false)
  })
  it("an honest bare repository made in a new folder still merges (git init --bare)", () => {
    const { ws } = committedSrc(cleanups)
    expect(ws.script(`git init -q --bare fresh.git && echo made`)).toContain("made")
    expect(fs.readFileSync(`${ws.root}/fresh.git/HEAD`, "utf8")).toContain("ref: refs/heads/")
    expect(fs.statSync(`${ws.root}/fresh.git/objects`).isDirectory()).toBe(true)
  })
})
