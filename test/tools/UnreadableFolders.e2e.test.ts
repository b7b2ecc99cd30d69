/**
 * Issue 40, item 5: a folder grep or glob cannot list is said, as every other cap is: "[N folders could not be
 * read, not searched: …]" (grep, both engines: rg's errors and the own walk's) and "…, not listed: …" (glob). Was
 * nothing: the folders were skipped without a word, and "no matches" read as "there are none".
 *
 * Root reads any folder whatever its mode, so when the tests run as root the CLI and `mcp serve` run as uid 65534
 * through setpriv (as test/redteam/UnreadableFolder.test.ts does), over a workspace that user owns: `locked/` is
 * mode 000, `half/` 644 (listed, not entered: its file cannot be opened, its sub-folder not listed).
 */
import { spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { bin, ensureBuilt } from "../serve/support/McpServeHarness.js"

const root = process.getuid?.() === 0
const setpriv = spawnSync("setpriv", ["--version"]).status === 0
const hasRg = spawnSync("rg", ["--version"], { stdio: "ignore" }).status === 0

let parent: string
let ws: string
let home: string
beforeAll(() => {
  ensureBuilt()
  parent = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "minicode-unlistable-")))
  ws = path.join(parent, "ws")
  home = path.join(parent, "home")
  for (const d of ["ws/locked/inner", "ws/half/sub", "ws/ok", "home"]) fs.mkdirSync(path.join(parent, d), { recursive: true })
  fs.writeFileSync(path.join(ws, "locked/a.txt"), "needle in locked\n")
  fs.writeFileSync(path.join(ws, "locked/inner/deep.txt"), "needle deeper\n")
  fs.writeFileSync(path.join(ws, "half/c.txt"), "needle in half\n")
  fs.writeFileSync(path.join(ws, "half/sub/d.txt"), "needle in half/sub\n")
  fs.writeFileSync(path.join(ws, "ok/b.txt"), "needle in ok\n")
  if (root) {
    fs.chmodSync(parent, 0o755)
    spawnSync("chown", ["-R", "65534:65534", ws, home])
  }
  fs.chmodSync(path.join(ws, "locked"), 0o000)
  fs.chmodSync(path.join(ws, "half"), 0o644)
})
afterAll(() => {
  fs.chmodSync(path.join(ws, "locked"), 0o755)
  fs.chmodSync(path.join(ws, "half"), 0o755)
  fs.rmSync(parent, { recursive: true, force: true })
})

const asUser = (args: ReadonlyArray<string>): ReadonlyArray<string> =>
  root ? ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "env", `HOME=${home}`, process.execPath, bin, ...args] : [process.execPath, bin, ...args]

const run = (argv: ReadonlyArray<string>, env: NodeJS.ProcessEnv, input = "") =>
  new Promise<string>((resolve, reject) => {
    const child = spawn(argv[0] ?? "", argv.slice(1), { env, cwd: ws, stdio: ["pipe", "pipe", "pipe"] })
    let out = ""
    child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d))
    child.on("error", reject)
    child.on("close", () => resolve(out))
    child.stdin.end(input)
  })

const envFor = (engine: "rg" | "node"): NodeJS.ProcessEnv => ({ ...process.env, HOME: home, MINICODE_GREP: engine === "node" ? "node" : "" })

const cli = (tool: string, args: unknown, engine: "rg" | "node") => run(asUser(["tool", tool, JSON.stringify(args), "--cwd", ws]), envFor(engine))

/** `mcp serve` as that user: initialize, then each call in turn; the text of each result. */
const serve = async (calls: ReadonlyArray<{ readonly tool: string; readonly args: unknown }>, engine: "rg" | "node") => {
  const lines = [
    { jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } } },
    { jsonrpc: "2.0", method: "notifications/initialized" },
    ...calls.map((c, i) => ({ jsonrpc: "2.0", id: i + 1, method: "tools/call", params: { name: c.tool, arguments: c.args } }))
  ]
  const out = await run(asUser(["mcp", "serve", "--cwd", ws]), envFor(engine), lines.map((l) => JSON.stringify(l)).join("\n") + "\n")
  const replies = out
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as { id?: number; result?: { content?: Array<{ text?: string }> } })
  return calls.map((_c, i) => replies.find((r) => r.id === i + 1)?.result?.content?.[0]?.text ?? "")
}

const grepWant = [
  "ok/b.txt:1:needle in ok",
  "[1 unreadable file not searched: half/c.txt]",
  "[2 folders could not be read, not searched: half/sub, locked]"
].join("\n")
const globWant = ["half/c.txt", "ok/b.txt", "[2 folders could not be read, not listed: half/sub, locked]"].join("\n")

describe.skipIf(root && !setpriv)("folders grep and glob cannot read are said (built CLI and mcp serve)", () => {
  for (const engine of hasRg ? (["node", "rg"] as const) : (["node"] as const)) {
    it(`grep, ${engine === "node" ? "the own walk" : "rg's path"}, and glob: the CLI`, async () => {
      expect((await cli("grep", { pattern: "needle" }, engine)).trim()).toBe(grepWant)
      expect((await cli("glob", { pattern: "**/*.txt" }, engine)).trim()).toBe(globWant)
      // The folder asked for itself.
      expect((await cli("grep", { pattern: "needle", path: "locked" }, engine)).trim()).toBe("no text matches for /needle/\n[1 folder could not be read, not searched: locked]")
    }, 120_000)

    it(`grep, ${engine === "node" ? "the own walk" : "rg's path"}, and glob: mcp serve`, async () => {
      const [g, gl] = await serve([{ tool: "grep", args: { pattern: "needle" } }, { tool: "glob", args: { pattern: "**/*.txt" } }], engine)
      expect(g).toBe(grepWant)
      expect(gl).toBe(globWant)
    }, 120_000)
  }
})
