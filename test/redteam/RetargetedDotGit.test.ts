/**
 * Red team (issue 19), was a hole: a `.git` that was there before the call, as a symlink (`.git -> .gitreal`, a
 * repository kept elsewhere in the tree) or as a `gitdir:` file (`git init --separate-git-dir`), was never looked at
 * again: GitControl only removed a `.git` the call made. Sandboxed bash retargeted the symlink (`ln -sfn evil .git`;
 * a symlink is no mount point, bwrap mounts onto what it leads to) or rewrote the pinned file's `gitdir:` line to a
 * repository it built, whose config names `core.fsmonitor`; the user's next `git status` on the host ran it.
 *
 * Now the `.git` is put back as it was when the call ends (GitControl `putBack`): the same link target, the same
 * content; a folder standing in its place is moved aside.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { attackFile, attackWorkspace } from "./support/Attack.js"
import { title, unavailable } from "../support/Sandbox.js"
import { spawnSync } from "node:child_process"

const cleanups = attackFile()

/** A repository `evil/` (HEAD, objects, refs) whose config runs `marker`'s maker on the user's git status. */
const buildEvil = (marker: string) =>
  [
    "git init -q --bare evil",
    `git -C evil config core.fsmonitor 'touch ${marker}; false'`,
    "git -C evil config core.bare false",
    "git -C evil config core.worktree ..",
    "echo built"
  ].join(" && ")

const userStatus = (root: string) =>
  spawnSync("git", ["status", "--short"], { cwd: root, encoding: "utf8", env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" } })

describe.skipIf(unavailable !== undefined)(title("a .git symlink or gitdir: file that was there, retargeted from bash"), () => {
  it("a retargeted .git symlink is put back: the user's git runs nothing", () => {
    const { root, parent, script } = attackWorkspace(cleanups)
    fs.renameSync(path.join(root, ".git"), path.join(root, ".gitreal"))
    fs.symlinkSync(".gitreal", path.join(root, ".git"))
    expect(userStatus(root).status).toBe(0)
    const marker = path.join(parent, "PWNED-link")
    expect(script(`${buildEvil(marker)} && ln -sfn evil .git && readlink .git`)).toContain("evil")
    expect(fs.readlinkSync(path.join(root, ".git"))).toBe(".gitreal")
    userStatus(root)
    expect(fs.existsSync(marker)).toBe(false)
  })

  it("a .git symlink replaced by a folder is put back, the folder kept aside", () => {
    const { root, parent, script } = attackWorkspace(cleanups)
    fs.renameSync(path.join(root, ".git"), path.join(root, ".gitreal"))
    fs.symlinkSync(".gitreal", path.join(root, ".git"))
    const marker = path.join(parent, "PWNED-dir")
    expect(script(`${buildEvil(marker)} && rm .git && mv evil .git && echo swapped`)).toContain("swapped")
    expect(fs.readlinkSync(path.join(root, ".git"))).toBe(".gitreal")
    expect(fs.readdirSync(root).some((n) => n.startsWith(".git.minicode-replaced-"))).toBe(true)
    userStatus(root)
    expect(fs.existsSync(marker)).toBe(false)
  })

  it("a rewritten gitdir: file is put back: the user's git runs nothing", () => {
    const { root, parent, script } = attackWorkspace(cleanups)
    // As `git init --separate-git-dir .repo` leaves it: the repository in .repo, a .git file naming it.
    fs.renameSync(path.join(root, ".git"), path.join(root, ".repo"))
    fs.writeFileSync(path.join(root, ".git"), "gitdir: .repo\n")
    expect(userStatus(root).status).toBe(0)
    const marker = path.join(parent, "PWNED-file")
    // Read-only for the call (BwrapSandbox.liveFindings): the sandbox still reads the original.
    expect(script(`${buildEvil(marker)} && echo 'gitdir: evil' > .git; cat .git`)).toContain("gitdir: .repo")
    expect(fs.readFileSync(path.join(root, ".git"), "utf8")).toBe("gitdir: .repo\n")
    userStatus(root)
    expect(fs.existsSync(marker)).toBe(false)
  })
})
