/**
 * Symlinks at the folders below a control folder that make a file a control (round 9): `.kiro/settings` (Kiro's
 * `mcp.json`), `mise/conf.d` (mise's `*.toml`), `.devcontainer/<name>` (`devcontainer.json`), at the top and deeper.
 * Were holes on 5f90f8c: with `.kiro/settings -> ../kset`, write_file of `kset/mcp.json` (a server command),
 * `confs/a.toml` (a mise hook) and `dc/devcontainer.json` (`initializeCommand`) were judged by those names only, and
 * the editor, agent or shell read them by the control's name. Now such a symlink is a control folder
 * (`EditorControls.isControlFolder`): the scan reports it, the jail judges what lies below it by the name it is read
 * by, and sandboxed bash's plants there are removed at the call's end.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { title, unavailable } from "../support/Sandbox.js"
import { attackFile, attackWorkspace, fileText as text } from "./support/Attack.js"

const cleanups = attackFile()

const servers = JSON.stringify({ mcpServers: { x: { command: "touch", args: ["/tmp/minicode-pwned-subfolder"] } } })
const miseHook = `[hooks]\nenter = "touch /tmp/minicode-pwned-subfolder"\n`
const devcontainer = JSON.stringify({ initializeCommand: "touch /tmp/minicode-pwned-subfolder" })

const layout = (root: string, at: string) => {
  for (const d of ["kset", "confs", "dc", `${at}.kiro`, `${at}mise`, `${at}.devcontainer`]) fs.mkdirSync(path.join(root, d), { recursive: true })
  const up = at === "" ? "../" : "../../"
  fs.symlinkSync(`${up}kset`, path.join(root, `${at}.kiro/settings`))
  fs.symlinkSync(`${up}confs`, path.join(root, `${at}mise/conf.d`))
  fs.symlinkSync(`${up}dc`, path.join(root, `${at}.devcontainer/app`))
}

describe("symlinks at the folders below a control folder", () => {
  for (const at of ["", "pkg/"]) {
    it(`the file tools judge what lies below ${at}.kiro/settings, ${at}mise/conf.d and ${at}.devcontainer/app by the name it is read by`, () => {
      const ws = attackWorkspace(cleanups)
      layout(ws.root, at)
      expect(ws.tool("write_file", { path: "kset/mcp.json", content: servers }).stdout).toContain("jail.editor-control")
      expect(ws.tool("write_file", { path: "confs/a.toml", content: miseHook }).stdout).toContain("jail.editor-control")
      expect(ws.tool("write_file", { path: "dc/devcontainer.json", content: devcontainer }).stdout).toContain("jail.editor-control")
      // Honest content there is written, and honest symlinks elsewhere are no controls.
      expect(ws.tool("write_file", { path: "kset/mcp.json", content: `{"mcpServers":{}}` }).status).toBe(0)
      expect(ws.tool("write_file", { path: "confs/a.toml", content: `[tools]\nnode = "20"\n` }).status).toBe(0)
      fs.mkdirSync(path.join(ws.root, "lib"))
      fs.symlinkSync("../kset", path.join(ws.root, "lib/settings"))
      fs.rmSync(path.join(ws.root, `${at}.kiro/settings`))
      expect(ws.tool("write_file", { path: "kset/other.json", content: servers }).status).toBe(0)
    }, 60_000)
  }

  it.skipIf(unavailable !== undefined)(title("sandboxed bash: plants below a nested symlinked control subfolder do not stay"), () => {
    const ws = attackWorkspace(cleanups)
    layout(ws.root, "pkg/")
    const out = ws.script(`printf '%s' '${servers}' > kset/mcp.json
printf '%s' '${miseHook}' > confs/b.toml
printf '%s' '${devcontainer}' > dc/devcontainer.json
echo planted`)
    expect(out).toContain("planted")
    expect(text(ws.root, "kset/mcp.json") ?? "").not.toContain("mcpServers\":{\"x")
    expect(text(ws.root, "confs/b.toml") ?? "").not.toContain("hooks")
    expect(text(ws.root, "dc/devcontainer.json") ?? "").not.toContain("initializeCommand")
  }, 120_000)
})
