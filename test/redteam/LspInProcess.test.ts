/**
 * Red team (issue 19): language servers run in-process (`MINICODE_LSP_BROKER=off`) by a long-lived session
 * (`mcp serve`), sandboxed. The stand-in server (support/lsp-file-reader.mjs) answers every hover with every file
 * its sandbox lets it read.
 *
 * Was a hole: bwrap fixes its masks when a server starts, so a server started before `.env` (or `config/prod.env`,
 * `deep/a/b/c/d/e/f/g/id_rsa`) existed read it on a later hover, and the agent got its content. The broker restarted
 * its servers when what the sandbox hides changed; the in-process servers did not. Both now share that restart
 * (app/LspRenewal.ts `renewed`). And a masked `.env` replaced by a rename (an editor's save) is another file, which
 * the running sandbox's mount no longer covers: that counts as a change too.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { bin, connect, makeGitWorkspace, textOf } from "../serve/support/McpServeHarness.js"
import { title, unavailable } from "../support/Sandbox.js"
import { attackFile } from "./support/Attack.js"

const reader = path.resolve(import.meta.dirname, "support/lsp-file-reader.mjs")
const cleanups = attackFile()

const late: Record<string, string> = {
  ".env": "TOKEN=LATEDOTENV",
  "config/prod.env": "KEY=LATEPRODENV",
  "deep/a/b/c/d/e/f/g/id_rsa": "LATEDEEPKEY"
}

describe.skipIf(unavailable !== undefined)(title("in-process language servers of a long session"), () => {
  it("a secret created after a server started never reaches a later hover (MINICODE_LSP_BROKER=off)", async () => {
    const ws = makeGitWorkspace()
    cleanups.push(ws.cleanup)
    const home = path.join(ws.parent, "home")
    fs.mkdirSync(home)
    const env = { HOME: home, XDG_CONFIG_HOME: path.join(home, ".config"), MINICODE_LSP_BROKER: "off" }
    const add = spawnSync(process.execPath, [bin, "config", "lsp", "add", ".txt", "--global", "--command", process.execPath, "--arg", reader], {
      env: { ...process.env, ...env },
      encoding: "utf8"
    })
    expect(add.status, add.stderr).toBe(0)
    fs.writeFileSync(path.join(ws.root, "a.txt"), "hello\n")
    fs.writeFileSync(path.join(ws.root, ".envrc"), "export TOKEN=EARLY\n")
    const { client, close } = await connect(ws.root, ["--allow-all"], undefined, env)
    cleanups.push(close)
    const hover = async () => textOf(await client.callTool({ name: "lsp_hover", arguments: { path: "a.txt", line: 1, character: 1 } }, undefined, { timeout: 60_000 }))
    const first = await hover()
    expect(first).toContain("hover of a.txt")
    expect(first).not.toContain("EARLY")
    // Saved as editors do: a new file renamed over the masked one.
    fs.writeFileSync(path.join(ws.root, "envrc.tmp"), "export TOKEN=RENAMEDENVRC\n")
    fs.renameSync(path.join(ws.root, "envrc.tmp"), path.join(ws.root, ".envrc"))
    // The attack has teeth: a plain file made at the same time is read by the same server.
    fs.writeFileSync(path.join(ws.root, "plain.txt"), "NOWPLAIN\n")
    const renamed = await hover()
    expect(renamed).toContain("NOWPLAIN")
    expect(renamed).not.toContain("RENAMEDENVRC")
    for (const [p, content] of Object.entries(late)) {
      fs.mkdirSync(path.dirname(path.join(ws.root, p)), { recursive: true })
      fs.writeFileSync(path.join(ws.root, p), `${content}\n`)
    }
    fs.writeFileSync(path.join(ws.root, "deep/a/b/c/d/e/f/g/plain.txt"), "LATEPLAIN\n")
    const second = await hover()
    expect(second).toContain("LATEPLAIN")
    for (const content of Object.values(late)) expect(second).not.toContain(content)
  }, 120_000)
})
