/**
 * Red team 8, git's configuration naming a path through a symlink in the workspace (`core.hooksPath = hooks` with
 * `hooks -> realhooks`, an `include.path` that is a symlink): the sandbox masks what the link leads to, but no mount
 * can pin the link itself, so sandboxed bash retargeted it (`ln -sfn evil hooks`) to a folder it planted, and the
 * user's own `git commit` on the host during the call ran the planted hook (was a hole on 1f02486). Now a writable
 * call refuses to start in such a repository (GitControl.liveControls `links`), saying which link and what to do.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { title, unavailable } from "../support/Sandbox.js"
import { attackFile, attackWorkspace } from "./support/Attack.js"

const cleanups = attackFile()

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** The user's own git on the host, without global or system configuration. */
const userGit = (root: string, ...args: Array<string>) =>
  spawnSync("git", ["-c", "user.name=U", "-c", "user.email=u@example.com", ...args], {
    cwd: root,
    encoding: "utf8",
    env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" }
  })

describe.skipIf(unavailable !== undefined)(title("a configured git path through a symlink a call could retarget"), () => {
  it("core.hooksPath through a symlink, include.path a symlink: nothing planted runs in the user's git during the call", async () => {
    for (const variant of ["hooks", "include"] as const) {
      const ws = attackWorkspace(cleanups)
      const marker = path.join(ws.parent, "PWNED")
      if (variant === "hooks") {
        fs.mkdirSync(path.join(ws.root, "realhooks"))
        fs.symlinkSync("realhooks", path.join(ws.root, "hooks"))
        ws.git("config", "core.hooksPath", "hooks")
      } else {
        fs.mkdirSync(path.join(ws.root, "cfg"))
        fs.writeFileSync(path.join(ws.root, "cfg/real.gitconfig"), "[color]\n\tui = auto\n")
        fs.symlinkSync("cfg/real.gitconfig", path.join(ws.root, "inc.gitconfig"))
        ws.git("config", "include.path", "../inc.gitconfig")
      }
      ws.git("add", "-A")
      ws.git("commit", "-q", "-m", "layout")
      const plant =
        variant === "hooks"
          ? `mkdir -p evil && printf '#!/bin/sh\\ntouch ${marker}\\n' > evil/pre-commit && chmod +x evil/pre-commit && ln -sfn evil hooks && echo planted`
          : `printf '[core]\\n\\tfsmonitor = "touch ${marker}; false"\\n' > evil.gitconfig && ln -sfn evil.gitconfig inc.gitconfig && echo planted`
      expect(ws.tool("write_file", { path: "s.sh", content: `${plant}\nsleep 6\n` }).status).toBe(0)
      const call = ws.toolAsync("bash", { command: "sh s.sh" })
      await sleep(4_000)
      fs.appendFileSync(path.join(ws.root, "a.txt"), "more\n")
      userGit(ws.root, "status", "--short")
      userGit(ws.root, "commit", "-q", "-am", "user")
      const r = await call
      expect(fs.existsSync(marker), `${variant}: ${r.stdout}`).toBe(false)
      // Live sandbox: the link is read-only ("symlink" in its error); staged bash: the merge refuses its retarget.
      expect(r.stdout).toMatch(/symlink|refused (hooks|inc\.gitconfig) \(jail\.git-internals\)/)
      expect(fs.readlinkSync(path.join(ws.root, variant === "hooks" ? "hooks" : "inc.gitconfig"))).toBe(variant === "hooks" ? "realhooks" : "cfg/real.gitconfig")
      // The file tools never retarget or remove the link either.
      expect(ws.tool("delete_file", { path: variant === "hooks" ? "hooks" : "inc.gitconfig" }).status).not.toBe(0)
    }
  }, 180_000)
})
