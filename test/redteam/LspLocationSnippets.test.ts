/**
 * Red team (issue 19), a hole: `lsp_definition` and `lsp_references` print each location's source line, read on the
 * HOST by minicode (tools/LspTools `showLocations`), not by the sandboxed server. That read was judged by name only
 * (`Jail.check`), so a location the server names in protected content under another name was printed: the target of
 * a protected symlink (`.env -> env/development`), a hard link to a protected file (`docs.txt`, a second name of
 * `.npmrc`), a file below a protected folder name linked to a folder (`.ssh -> dotfiles/ssh`), a git folder by
 * another name (`.repo/config` of `git init --separate-git-dir`). read_file refuses each. The server is repository
 * code (typescript-language-server prefers the workspace's own tsserver.js), sandboxed so that it cannot read them,
 * and it need not: it only names the location (support/lsp-pointer.mjs), minicode reads the line for it.
 *
 * The same for lsp_workspace_symbols' anchor: one file per configured extension, read on the host and opened in the
 * server as text (shallowest first, so `prod.txt` beside `.env -> prod.txt` was the one): the server echoes it back.
 *
 * Invariant: no tool output contains a protected file's content, under any other name. Now a location's line is
 * read, and a file is made an anchor, only when read_file would read that file (kernel/ReadJudge.ts). Through the
 * built CLI (allow-all, default sandbox, the LSP broker and in-process).
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { bin, makeGitWorkspace } from "../serve/support/McpServeHarness.js"
import { runCli } from "../support/Cli.js"
import { attackFile } from "./support/Attack.js"

const pointer = path.resolve(import.meta.dirname, "support/lsp-pointer.mjs")
const cleanups = attackFile()

const canaries = ["CANARYALIASTARGET", "CANARYHARDLINK", "CANARYSSHFOLDER", "CANARYREPOCONFIG", "CANARYDOTENV"]

type Workspace = ReturnType<typeof makeGitWorkspace>

/** The stand-in server configured for `.txt` in a private home; the CLI as an agent would call it. */
const setupIn = (ws: Workspace, broker: boolean) => {
  const home = path.join(ws.parent, "home")
  fs.mkdirSync(home, { recursive: true })
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(ws.parent, "config"), MINICODE_LSP_BROKER: broker ? "on" : "off" }
  delete env["XDG_RUNTIME_DIR"]
  delete env["XDG_CACHE_HOME"]
  if (broker) delete env["MINICODE_LSP_BROKER"]
  const add = spawnSync(process.execPath, [bin, "config", "lsp", "add", ".txt", "--global", "--command", process.execPath, "--arg", pointer], { env, encoding: "utf8" })
  expect(add.status, add.stderr).toBe(0)
  const tool = (name: string, args: unknown) =>
    runCli(bin, ["tool", name, JSON.stringify(args), "--cwd", ws.root, "--work-mode", "BUILD", "--policy", "allow-all"], { env, timeoutMs: 90_000 })
  cleanups.push(() => runCli(bin, ["lsp", "stop", "--cwd", ws.root], { env, timeoutMs: 30_000 }))
  return { tool }
}

const setup = (broker: boolean) => {
  const ws = makeGitWorkspace()
  cleanups.push(ws.cleanup)
  const { tool } = setupIn(ws, broker)
  const put = (p: string, content: string) => {
    fs.mkdirSync(path.dirname(path.join(ws.root, p)), { recursive: true })
    fs.writeFileSync(path.join(ws.root, p), content)
  }
  put("a.txt", "hello\n")
  put("plain/visible.txt", "VISIBLEPLAIN\n")
  put("env/development", "KEY=CANARYALIASTARGET\n")
  fs.symlinkSync("env/development", path.join(ws.root, ".env"))
  put(".npmrc", "//registry.example.com/:_authToken=CANARYHARDLINK\n")
  fs.linkSync(path.join(ws.root, ".npmrc"), path.join(ws.root, "docs.txt"))
  put("dotfiles/ssh/notes", "CANARYSSHFOLDER\n")
  fs.symlinkSync("dotfiles/ssh", path.join(ws.root, ".ssh"))
  put(".repo/HEAD", "ref: refs/heads/main\n")
  put(".repo/config", "[remote \"origin\"] url = https://u:CANARYREPOCONFIG@example.com/r.git\n")
  fs.mkdirSync(path.join(ws.root, ".repo/objects"))
  fs.mkdirSync(path.join(ws.root, ".repo/refs"))
  return { ...ws, tool }
}

describe("lsp locations' source lines are read as read_file reads", () => {
  for (const broker of [true, false]) {
    it(`definition and references name protected content under other names (${broker ? "broker" : "in-process"})`, async () => {
      const { tool } = setup(broker)
      // read_file refuses each of them (the invariant the snippets must keep).
      for (const p of ["env/development", "docs.txt", "dotfiles/ssh/notes", ".repo/config"]) {
        const r = await tool("read_file", { path: p })
        expect(r.status, `${p}: ${r.stdout}`).not.toBe(0)
      }
      for (const name of ["lsp_definition", "lsp_references"]) {
        const r = await tool(name, { path: "a.txt", line: 1, character: 1 })
        const out = r.stdout + r.stderr
        expect(r.status, out).toBe(0)
        // Honest work: every location listed, the readable ones with their line.
        expect(out).toContain("plain/visible.txt:1:1  VISIBLEPLAIN")
        expect(out).toContain("a.txt:1:1  hello")
        expect(out).toContain("env/development:1:1")
        expect(out).toContain("docs.txt:1:1")
        for (const c of canaries) expect(out, `${name} printed ${c}`).not.toContain(c)
      }
    }, 120_000)
  }

  it("lsp_workspace_symbols never opens a protected symlink's target as the server's anchor", async () => {
    const ws = makeGitWorkspace()
    cleanups.push(ws.cleanup)
    const { tool } = setupIn(ws, false)
    fs.writeFileSync(path.join(ws.root, "prod.txt"), "KEY=CANARYANCHOR\n")
    fs.symlinkSync("prod.txt", path.join(ws.root, ".env"))
    fs.mkdirSync(path.join(ws.root, "sub"))
    fs.writeFileSync(path.join(ws.root, "sub/b.txt"), "ANCHORPLAIN\n")
    const r = await tool("lsp_workspace_symbols", { query: "opened" })
    const out = r.stdout + r.stderr
    expect(r.status, out).toBe(0)
    // Honest work: the next best file is the anchor, and the server answers from it.
    expect(out).toContain("ANCHORPLAIN")
    expect(out).not.toContain("CANARYANCHOR")
  }, 120_000)
})
