/**
 * End to end: the scopes reach staged bash (issue 41, MINICODE_BASH_STAGED=1). Under `mcp serve --scope git=read`
 * a `git commit` via bash changes nothing in `.git` (its changes are refused at the merge, `scope.git-read`) while
 * its other files merge; under `--scope files=read` no change of bash reaches the workspace. With `git=write`, the
 * same commit lands. Skipped with the reason where bwrap or overlayfs in a user namespace is unavailable.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { beforeAll, describe, expect, it } from "vitest"
import { unavailable as noSandbox } from "../support/Sandbox.js"
import { connect, ensureBuilt, textOf, workspaces, makeGitWorkspace } from "./support/McpServeHarness.js"

const overlayMissing = (): string | undefined => {
  if (noSandbox !== undefined) return noSandbox
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "minicode-ovl-probe-"))
  for (const n of ["l", "u", "w", "m"]) fs.mkdirSync(path.join(dir, n))
  spawnSync("unshare", ["-Urm", "sh", "-c", 'cd "$1" && mount -t overlay overlay -o lowerdir=l,upperdir=u,workdir=w,userxattr m && touch m/f', "p", dir])
  const ok = fs.existsSync(path.join(dir, "u", "f"))
  spawnSync("rm", ["-rf", dir])
  return ok ? undefined : "overlayfs in a user namespace is unavailable"
}
const missing = overlayMissing()

const { cleanups, workspace } = workspaces(makeGitWorkspace)
beforeAll(() => ensureBuilt(), 120_000)

const server = async (root: string, flags: ReadonlyArray<string>) => {
  const state = fs.mkdtempSync(path.join(os.tmpdir(), "minicode-staged-state-"))
  cleanups.push(() => fs.rmSync(state, { recursive: true, force: true }))
  const s = await connect(root, ["--allow-all", ...flags], undefined, { MINICODE_BASH_STAGED: "1", XDG_STATE_HOME: state })
  cleanups.push(() => s.close().catch(() => undefined))
  return s
}

const commit = "echo two > b.txt && git add b.txt && git -c user.name=t -c user.email=t@example.com commit -qm two"

describe.skipIf(missing !== undefined)(`mcp serve: scopes reach staged bash${missing === undefined ? "" : ` [skipped: ${missing}]`}`, () => {
  it("git=read: the commit's changes under .git are refused, b.txt merges; git=write: the commit lands", { timeout: 240_000 }, async () => {
    const ws = workspace()
    fs.writeFileSync(path.join(ws.root, "a.txt"), "a\n")
    ws.git("add", "a.txt")
    ws.git("commit", "-q", "-m", "one")
    const head = ws.git("rev-parse", "HEAD")
    const read = await server(ws.root, ["--scope", "git=read"])
    const refused = textOf(await read.client.callTool({ name: "bash", arguments: { command: commit } }, undefined, { timeout: 120_000 }))
    expect(refused).toContain("scope.git-read")
    expect(ws.git("rev-parse", "HEAD")).toBe(head)
    expect(ws.git("status", "--porcelain")).toContain("?? b.txt")
    await read.close()
    const write = await server(ws.root, ["--scope", "git=write"])
    const landed = textOf(await write.client.callTool({ name: "bash", arguments: { command: commit } }, undefined, { timeout: 120_000 }))
    expect(landed).not.toContain("scope.git-read")
    expect(ws.git("log", "--format=%s")).toBe("two\none\n")
  })

  it("files=read: no change of bash reaches the workspace", { timeout: 240_000 }, async () => {
    const ws = workspace()
    const { client } = await server(ws.root, ["--scope", "files=read"])
    const text = textOf(await client.callTool({ name: "bash", arguments: { command: "echo x > new.txt && mkdir -p d && echo y > d/y" } }, undefined, { timeout: 120_000 }))
    expect(text).toContain("scope.files-read")
    expect(fs.existsSync(path.join(ws.root, "new.txt"))).toBe(false)
    expect(fs.existsSync(path.join(ws.root, "d"))).toBe(false)
  })
})
