/**
 * Red team (issue 19), planted git control files surviving the call: the sandbox puts `.git/commondir` back when a
 * writable call ends (GitControl.leave), after scanning the workspace again. A path longer than PATH_MAX made in the
 * same call (mkdir and cd one level at a time) makes that scan throw ENAMETOOLONG, the finalizer dies before
 * GitControl.leave runs, and the planted `commondir` stays: the user's next `git status` on the host runs the
 * planted fsmonitor, outside any sandbox. Now the scan masks a folder whose entries' paths are too long to look at,
 * and the finalizer looks after the git folders known at the start whatever the scan meets.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { attackFile, attackWorkspace } from "./support/Attack.js"
import { title, unavailable } from "../support/Sandbox.js"

const cleanups = attackFile()

describe.skipIf(unavailable !== undefined)(title("a planted commondir and a path longer than PATH_MAX in one bash call"), () => {
  it("the planted commondir is gone after the call: the user's git status runs nothing", () => {
    const ws = attackWorkspace(cleanups)
    // GNU rm walks with openat, so it removes what Node's rmSync cannot reach by name.
    cleanups.unshift(() => spawnSync("rm", ["-rf", path.join(ws.root, "long")]))
    const marker = path.join(ws.parent, "PWNED")
    const out = ws.script(`mkdir -p evil/hooks && cp -r .git/objects .git/refs .git/HEAD evil/
printf '[core]\\n\\trepositoryformatversion = 0\\n\\tfsmonitor = touch ${marker}\\n' > evil/config
# Read-only for the call now (BwrapSandbox.liveFindings); the one made before it must still go.
echo ../evil > .git/commondir; echo planted
n=$(printf 'd%.0s' $(seq 1 200))
mkdir long && cd long && for i in $(seq 1 25); do mkdir $n && cd $n; done`)
    // Was: the call's result was the finalizer's internal error (ENAMETOOLONG). The script ran, and its result is its own.
    expect(out).toContain("planted")
    expect(out).not.toContain("ENAMETOOLONG")
    // (GitControl also removes the config the call planted in the git folder `commondir` named.)
    const commondir = path.join(ws.root, ".git/commondir")
    const left = fs.existsSync(commondir)
    // The user's own git on the host, later.
    spawnSync("git", ["status", "--short"], { cwd: ws.root, encoding: "utf8", env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" } })
    expect({ commondirLeft: left, fsmonitorRan: fs.existsSync(marker) }).toEqual({ commondirLeft: false, fsmonitorRan: false })
  })
})
