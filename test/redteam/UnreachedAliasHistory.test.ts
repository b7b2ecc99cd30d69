/**
 * Red team (issue 19), a HOLE: a protected-name symlink that only an unreachable commit holds. The git tools'
 * protection of a protected symlink's target (`.env -> keys/prod` makes `keys/prod` a secret at that revision,
 * GoneAliasHistory.test.ts) is computed over the history refs and reflogs reach. The user's `git stash -u` of
 * `.env -> keys/prod` and `keys/prod`, then `git stash drop`, leaves both only in unreachable commits: git_show
 * `<stash>^3:keys/prod`, the untracked-files commit's patch, even a 4-digit prefix of its id (an attacker can try
 * all 65 536) printed the key. Bash could not (the store is hidden from it); the git tools could.
 *
 * Invariant: git_show shows only commits the secret walk saw (a ref or a reflog reaches them), never a tree or blob
 * named by its id; what refs reach, stashes and reflogs included, is shown as before, secrets hidden.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { attackFile, attackWorkspace, served } from "./support/Attack.js"
import { title } from "../support/Sandbox.js"

const canary = "UNREACHEDALIASCANARY"
const cleanups = attackFile()

const shown = (r: { readonly stdout: string; readonly stderr: string }) => r.stdout + r.stderr

/** The ids of the commits and trees no ref reaches, as `git fsck` lists them. */
const unreachable = (git: (...args: Array<string>) => string) =>
  git("fsck", "--unreachable", "--no-reflogs")
    .split("\n")
    .map((l) => /^unreachable (commit|tree) ([0-9a-f]+)$/.exec(l))
    .flatMap((m) => (m === null ? [] : [{ kind: m[1] ?? "", id: m[2] ?? "" }]))

describe(title("a protected symlink only an unreachable commit holds: its target through git_show"), () => {
  it("a dropped stash -u of .env -> keys/prod: no revision of it, by id or prefix, prints the key", async () => {
    const ws = attackWorkspace(cleanups)
    fs.mkdirSync(path.join(ws.root, "keys"))
    fs.writeFileSync(path.join(ws.root, "keys/prod"), `K=${canary}\n`)
    fs.symlinkSync("keys/prod", path.join(ws.root, ".env"))
    ws.git("stash", "push", "-q", "-u")
    ws.git("stash", "drop", "-q")
    expect(fs.existsSync(path.join(ws.root, "keys"))).toBe(false)
    const objects = unreachable(ws.git)
    expect(objects.filter((o) => o.kind === "commit").length).toBeGreaterThanOrEqual(2)
    const revs = objects.flatMap((o) =>
      o.kind === "commit" ? [o.id, o.id.slice(0, 4), `${o.id}:keys/prod`, `${o.id}^3`, `${o.id}^3:keys/prod`, `HEAD..${o.id}`, `${o.id}^!`] : [o.id, `${o.id}:keys/prod`, `${o.id}:prod`]
    )
    // The first revision through the built CLI, every one through one mcp serve (a CLI process each cost ~0.35 CPU-s).
    expect(shown(ws.tool("git_show", { rev: revs[0] ?? "" }))).not.toContain(canary)
    const s = await served(cleanups, ws.root)
    for (const rev of revs) expect((await s.call("git_show", { rev })).text, rev).not.toContain(canary)
    await s.close()
    const stash = objects.find((o) => o.kind === "commit")?.id ?? ""
    expect(shown(ws.tool("git_show", { rev: stash }))).toMatch(/no branch, tag or reflog reaches/)
  }, 120_000)

  it("honest: a stash kept, reflog entries, a tag and HEAD: are shown, HEAD: lists the tree", () => {
    const ws = attackWorkspace(cleanups)
    fs.writeFileSync(path.join(ws.root, "a.txt"), "stashed change\n")
    ws.git("stash", "push", "-q")
    fs.writeFileSync(path.join(ws.root, "b.txt"), "second\n")
    ws.git("add", "b.txt")
    ws.git("commit", "-q", "-m", "second")
    ws.git("tag", "-a", "v1", "-m", "release one")
    ws.git("commit", "-q", "--amend", "-m", "second, amended")
    expect(shown(ws.tool("git_show", { rev: "stash@{0}" }))).toContain("stashed change")
    expect(shown(ws.tool("git_show", { rev: "HEAD@{1}" }))).toContain("second")
    expect(shown(ws.tool("git_show", { rev: "v1" }))).toContain("release one")
    expect(shown(ws.tool("git_show", { rev: "v1:b.txt" }))).toContain("second")
    expect(shown(ws.tool("git_show", { rev: "HEAD:" }))).toContain("b.txt")
    expect(shown(ws.tool("git_show", { rev: "HEAD~1..HEAD" }))).toContain("second, amended")
    expect(shown(ws.tool("git_show", { rev: ":a.txt" }))).toContain("a")
  }, 120_000)
})
