/**
 * Red team (issue 19): an MCP stdio server configured with `--sandbox`, held by a long session (`mcp serve`). The
 * stand-in server (support/mcp-file-reader.mjs) answers every call with every file its sandbox lets it read.
 *
 * Was a hole: bwrap fixes its masks when a server starts, so a server started before `.env` (or `config/prod.env`)
 * existed read it on a later call, and the agent got its content; a masked `.envrc` replaced by a rename (an
 * editor's save) was another file, no longer under the mount. The MCP client now starts such a server again before
 * a call whenever that view changed (SdkMcpTransport `sandboxView`, the language servers' LspRenewal `viewOf`).
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { bin, connect, makeGitWorkspace, textOf } from "../serve/support/McpServeHarness.js"
import { title, unavailable } from "../support/Sandbox.js"
import { attackFile } from "./support/Attack.js"

const reader = path.resolve(import.meta.dirname, "support/mcp-file-reader.mjs")
const cleanups = attackFile()

const late: Record<string, string> = {
  ".env": "TOKEN=LATEDOTENV",
  "config/prod.env": "KEY=LATEPRODENV",
  "deep/a/b/c/id_rsa": "LATEDEEPKEY"
}

const startedOf = (text: string) => /^started (\w+)/.exec(text)?.[1]

describe.skipIf(unavailable !== undefined)(title("sandboxed MCP stdio servers of a long session"), () => {
  it("a secret created after the server started never reaches a later call; an unchanged view keeps the server", async () => {
    const ws = makeGitWorkspace()
    cleanups.push(ws.cleanup)
    const home = path.join(ws.parent, "home")
    fs.mkdirSync(home)
    const env = { HOME: home, XDG_CONFIG_HOME: path.join(home, ".config") }
    const add = spawnSync(process.execPath, [bin, "config", "mcp", "add", "reader", "--global", "--command", process.execPath, "--arg", reader, "--sandbox"], {
      env: { ...process.env, ...env },
      encoding: "utf8"
    })
    expect(add.status, add.stderr).toBe(0)
    fs.writeFileSync(path.join(ws.root, "a.txt"), "hello\n")
    fs.writeFileSync(path.join(ws.root, ".envrc"), "export TOKEN=EARLY\n")
    const { client, close } = await connect(ws.root, ["--allow-all", "--all-tools"], undefined, env)
    cleanups.push(close)
    const dump = async () => {
      const result = await client.callTool({ name: "mcp_call", arguments: { server: "reader", tool: "dump", arguments: {} } }, undefined, { timeout: 60_000 })
      const text = textOf(result)
      expect(startedOf(text), text).toBeDefined()
      return text
    }
    const first = await dump()
    expect(first).toContain("a.txt: hello")
    expect(first).not.toContain("EARLY")
    // Nothing the sandbox hides changed: the same server answers (no restart per call).
    const again = await dump()
    expect(startedOf(again)).toBe(startedOf(first))
    // Saved as editors do: a new file renamed over the masked one.
    fs.writeFileSync(path.join(ws.root, "envrc.tmp"), "export TOKEN=RENAMEDENVRC\n")
    fs.renameSync(path.join(ws.root, "envrc.tmp"), path.join(ws.root, ".envrc"))
    // The attack has teeth: a plain file made at the same time is read by the same kind of call.
    fs.writeFileSync(path.join(ws.root, "plain.txt"), "NOWPLAIN\n")
    const renamed = await dump()
    expect(renamed).toContain("NOWPLAIN")
    expect(renamed).not.toContain("RENAMEDENVRC")
    expect(startedOf(renamed)).not.toBe(startedOf(first))
    for (const [p, content] of Object.entries(late)) {
      fs.mkdirSync(path.dirname(path.join(ws.root, p)), { recursive: true })
      fs.writeFileSync(path.join(ws.root, p), `${content}\n`)
    }
    fs.writeFileSync(path.join(ws.root, "deep/a/b/c/plain.txt"), "LATEPLAIN\n")
    const second = await dump()
    expect(second).toContain("LATEPLAIN")
    for (const content of Object.values(late)) expect(second).not.toContain(content)
  }, 120_000)
})
