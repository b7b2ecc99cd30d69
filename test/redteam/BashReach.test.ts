/**
 * Red team (issue 19): chains of individually allowed calls through the built binary (`minicode tool … --policy
 * allow-all`, default sandbox). Bash runs a script written by write_file, so the guard never sees a literal secret name;
 * the sandbox and the file tools' jail are what must hold. Holes still open are `it.fails` with the chain named.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { runCli } from "../support/Cli.js"
import { bin, gitWorkspaces, snapshot } from "../serve/support/McpServeHarness.js"

const canary = "RTCANARY"
const { workspace } = gitWorkspaces()

const setup = () => {
  const ws = workspace()
  const { root, git } = ws
  fs.writeFileSync(path.join(root, ".env"), `TOKEN=${canary}-ENV\n`)
  fs.writeFileSync(path.join(root, "a.txt"), "a\n")
  fs.writeFileSync(path.join(ws.parent, "outside.txt"), `${canary}-OUTSIDE\n`)
  git("add", "a.txt")
  git("commit", "-q", "-m", "first")
  const tool = (name: string, args: unknown) =>
    spawnSync(process.execPath, [bin, "tool", name, JSON.stringify(args), "--cwd", root, "--work-mode", "BUILD", "--policy", "allow-all", "--json"], {
      encoding: "utf8"
    })
  const script = (body: string) => {
    expect(tool("write_file", { path: "s.sh", content: `${body}\n` }).status).toBe(0)
    return tool("bash", { command: "sh s.sh" })
  }
  const toolAsync = (name: string, args: unknown) =>
    runCli(bin, ["tool", name, JSON.stringify(args), "--cwd", root, "--work-mode", "BUILD", "--policy", "allow-all", "--json"], { timeoutMs: 300_000 })
  const scriptAsync = async (body: string) => {
    expect((await toolAsync("write_file", { path: "s.sh", content: `${body}\n` })).status).toBe(0)
    return toolAsync("bash", { command: "sh s.sh" })
  }
  const outside = () => snapshot(ws.parent, root)
  return { root, parent: ws.parent, git, tool, script, scriptAsync, outside }
}
const output = (r: { stdout: string; stderr: string }) => r.stdout + r.stderr

/**
 * The links the script was to make, in the tree. Staged bash (issue 41) never lets such a link reach the workspace:
 * its merge refuses it with the jail's rule (checked here); the link is then made by hand, as another program or a
 * clone could, and the file tools are tried on it all the same.
 */
const linked = (root: string, r: { stdout: string; stderr: string }, links: ReadonlyArray<readonly [string, string, string]>) => {
  for (const [name, target, rule] of links) {
    const at = path.join(root, name)
    if (fs.lstatSync(at, { throwIfNoEntry: false })?.isSymbolicLink() === true) continue
    expect(output(r)).toContain(`refused ${name} (${rule})`)
    fs.rmSync(at, { recursive: true, force: true })
    fs.symlinkSync(target, at)
  }
}

describe("bash-made links, then file tools", () => {
  it("a hard link to .env made in bash is refused (the secret is a masked mount) and read_file never shows it", () => {
    const { tool, script } = setup()
    expect(output(script("ln .env hl; cp .env cp.txt; cat .env"))).not.toContain(canary)
    for (const p of ["hl", "cp.txt"]) expect(output(tool("read_file", { path: p }))).not.toContain(canary)
  })

  it("a symlink to .env made in bash is refused by read_file and grep", () => {
    const { root, tool, script } = setup()
    linked(root, script("ln -s .env sl; ln -s . loop"), [["sl", ".env", "jail.sensitive"]])
    expect(fs.lstatSync(path.join(root, "sl")).isSymbolicLink()).toBe(true)
    const read = tool("read_file", { path: "sl" })
    expect(read.stdout).toContain("jail.sensitive")
    expect(output(tool("grep", { pattern: canary }))).not.toContain(`${canary}-ENV`)
    expect(output(tool("grep", { pattern: canary, path: "loop" }))).not.toContain(`${canary}-ENV`)
  })

  it("a symlink to a folder outside made in bash: file tools refuse to read or write through it", () => {
    const { root, tool, script, parent, outside } = setup()
    const before = outside()
    linked(root, script(`ln -s ${parent} o; ln -s ${path.join(parent, "outside.txt")} of`), [
      ["o", parent, "jail.symlink-escape"],
      ["of", path.join(parent, "outside.txt"), "jail.symlink-escape"]
    ])
    expect(tool("read_file", { path: "of" }).stdout).toContain("jail.symlink-escape")
    expect(tool("write_file", { path: "o/pwn.txt", content: "x" }).stdout).toContain("jail.symlink-escape")
    expect(output(tool("grep", { pattern: canary, path: "o" }))).not.toContain(`${canary}-OUTSIDE`)
    expect(outside()).toEqual(before)
  })

  it("sql_query on a bash-made symlink to .env or to a file outside is refused by the jail", () => {
    const { root, tool, script, parent } = setup()
    linked(root, script(`ln -s .env e.db; ln -s ${path.join(parent, "outside.txt")} o.db`), [
      ["e.db", ".env", "jail.sensitive"],
      ["o.db", path.join(parent, "outside.txt"), "jail.symlink-escape"]
    ])
    expect(tool("sql_query", { sql: "select 1", connection: "e.db" }).stdout).toContain("jail.sensitive")
    expect(tool("sql_query", { sql: "select 1", connection: "o.db" }).stdout).toContain("jail.symlink-escape")
    expect(tool("sql_query", { sql: "ATTACH DATABASE 'e.db' AS e; SELECT 1" }).stdout).not.toContain(canary)
  })

  it("undo and redo after bash swaps a journaled folder for a symlink outside change nothing outside", () => {
    const { root, tool, script, parent, outside } = setup()
    expect(tool("write_file", { path: "d/f.txt", content: "v1" }).status).toBe(0)
    expect(tool("write_file", { path: "d/f.txt", content: "v2" }).status).toBe(0)
    expect(tool("write_file", { path: "d/g.txt", content: "g" }).status).toBe(0)
    fs.writeFileSync(path.join(parent, "f.txt"), "ORIGINAL\n")
    const before = outside()
    const swapped = script(`mv d d0; ln -s ${parent} d`)
    if (fs.existsSync(path.join(root, "d")) && !fs.lstatSync(path.join(root, "d")).isSymbolicLink()) fs.renameSync(path.join(root, "d"), path.join(root, "d0"))
    linked(root, swapped, [["d", parent, "jail.symlink-escape"]])
    expect(fs.lstatSync(path.join(root, "d")).isSymbolicLink()).toBe(true)
    for (let i = 0; i < 4; i++) spawnSync(process.execPath, [bin, "undo", "--cwd", root], { encoding: "utf8" })
    for (let i = 0; i < 4; i++) spawnSync(process.execPath, [bin, "redo", "--cwd", root], { encoding: "utf8" })
    expect(outside()).toEqual(before)
  }, 120_000)
})

describe("bash reaching secrets the sandbox view does not mask", () => {
  // Was a hole: the sandbox scan skipped node_modules, .venv, target, dist, build…, so a secret inside one was not
  // masked (`write_file s.sh "cat node_modules/x/.env"` then `bash "sh s.sh"` printed it). The scan now covers every
  // folder (adapters/shell/WorkspaceScan.ts).
  it("a .env inside node_modules is not readable from bash", () => {
    const { root, script } = setup()
    fs.mkdirSync(path.join(root, "node_modules/x"), { recursive: true })
    fs.writeFileSync(path.join(root, "node_modules/x/.env"), `K=${canary}-NM\n`)
    expect(output(script("cat node_modules/x/.env"))).not.toContain(`${canary}-NM`)
  })

  // Closed: when the history holds a protected file, bash's sandbox masks the object store (test/redteam/GitObjects).
  it("a committed .env is not readable from bash through git", async () => {
    const { git, scriptAsync } = setup()
    git("add", "-f", ".env")
    git("commit", "-q", "-m", "oops")
    expect(output(await scriptAsync("git show HEAD:.env; git log -p | cat"))).not.toContain(`${canary}-ENV`)
  })
})
