/**
 * `minicode mcp config --write` on the BUILT binary installs the guidance where the client reads it: Claude Code's
 * skill (`.claude/skills/minicode/SKILL.md`) and Cursor's rule (`.cursor/rules/minicode.mdc`), each holding the
 * same guidance as the server's instructions (read from the running server with the SDK client); written again
 * the same, never through a link planted out of the workspace, and not at all without --write.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterEach, beforeAll, describe, expect, it } from "vitest"
import { connect, ensureBuilt } from "../serve/support/McpServeHarness.js"

const bin = path.resolve("dist/bin.js")
const scratch: Array<string> = []
afterEach(() => {
  for (const dir of scratch.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
})
beforeAll(() => ensureBuilt(), 120_000)

const tmp = (name: string) => {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `minicode-${name}-`)))
  scratch.push(dir)
  return dir
}

const setup = () => {
  const workspace = tmp("skill-ws")
  const home = tmp("skill-home")
  const elsewhere = tmp("skill-elsewhere")
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(home, ".config") }
  delete env["CODEX_HOME"]
  delete env["APPDATA"]
  const minicode = (...args: ReadonlyArray<string>) => spawnSync(process.execPath, [bin, ...args], { encoding: "utf8", cwd: elsewhere, env })
  return { workspace, home, minicode }
}

/** The guidance lines of the running server's instructions: everything before the line naming this run's scopes. */
const serverGuidance = async (workspace: string): Promise<ReadonlyArray<string>> => {
  const s = await connect(workspace, ["--sandbox", "none"])
  try {
    const text = s.client.getInstructions() ?? ""
    const lines = text.split("\n")
    const end = lines.findIndex((l) => l.startsWith("This server's scopes"))
    expect(end).toBeGreaterThan(5)
    return lines.slice(0, end).filter((l) => l.trim() !== "")
  } finally {
    await s.close()
  }
}

const frontMatter = (text: string): Record<string, string> => {
  const m = /^---\n([\s\S]*?)\n---\n/.exec(text) ?? expect.fail(`no front matter: ${text.slice(0, 200)}`)
  return Object.fromEntries((m[1] ?? "").split("\n").map((l) => [l.slice(0, l.indexOf(":")), l.slice(l.indexOf(":") + 1).trim()]))
}

const mode = (file: string) => fs.statSync(file).mode & 0o777

describe("mcp config --write: the skill and the rules file", () => {
  it("claude-code gets .claude/skills/minicode/SKILL.md with the server's guidance; a second write leaves it the same", async () => {
    const { workspace, minicode } = setup()
    const printed = minicode("mcp", "config", "--for", "claude-code", "--cwd", workspace)
    expect(printed.status, printed.stderr).toBe(0)
    expect(fs.existsSync(path.join(workspace, ".claude"))).toBe(false)

    const out = minicode("mcp", "config", "--for", "claude-code", "--cwd", workspace, "--write")
    expect(out.status, out.stderr).toBe(0)
    const skill = path.join(workspace, ".claude/skills/minicode/SKILL.md")
    expect(out.stdout).toContain(`wrote ${skill}`)
    expect(fs.existsSync(path.join(workspace, ".mcp.json"))).toBe(true)
    const text = fs.readFileSync(skill, "utf8")
    expect(mode(skill)).toBe(0o644)
    const meta = frontMatter(text)
    expect(meta["name"]).toBe("minicode")
    expect(meta["description"]).toMatch(/minicode/)
    for (const line of await serverGuidance(workspace)) expect(text, line).toContain(line)

    const again = minicode("mcp", "config", "--for", "claude-code", "--cwd", workspace, "--write")
    expect(again.status, again.stderr).toBe(0)
    expect(fs.readFileSync(skill, "utf8")).toBe(text)
    expect(fs.readdirSync(path.dirname(skill))).toEqual(["SKILL.md"])
  }, 60_000)

  it("cursor gets .cursor/rules/minicode.mdc, always applied, with the same guidance; other clients get neither", async () => {
    const { workspace, minicode } = setup()
    const out = minicode("mcp", "config", "--for", "cursor", "--cwd", workspace, "--write")
    expect(out.status, out.stderr).toBe(0)
    const rules = path.join(workspace, ".cursor/rules/minicode.mdc")
    expect(out.stdout).toContain(`wrote ${rules}`)
    const text = fs.readFileSync(rules, "utf8")
    expect(frontMatter(text)["alwaysApply"]).toBe("true")
    for (const line of await serverGuidance(workspace)) expect(text, line).toContain(line)
    expect(fs.existsSync(path.join(workspace, ".claude"))).toBe(false)

    const vscode = minicode("mcp", "config", "--for", "vscode", "--cwd", workspace, "--write")
    expect(vscode.status, vscode.stderr).toBe(0)
    expect(vscode.stdout).not.toContain("wrote ")
    expect(fs.existsSync(path.join(workspace, ".claude"))).toBe(false)
  }, 60_000)

  it("never writes the skill through a link a repository plants out of the workspace", () => {
    const { workspace, minicode } = setup()
    const outside = tmp("skill-outside")
    fs.symlinkSync(outside, path.join(workspace, ".claude"))
    const out = minicode("mcp", "config", "--for", "claude-code", "--cwd", workspace, "--write")
    expect(out.status).not.toBe(0)
    expect(out.stderr).toMatch(/SKILL\.md/)
    expect(fs.readdirSync(outside)).toEqual([])
    // Refused before anything was written: the client's config is not half done.
    expect(fs.existsSync(path.join(workspace, ".mcp.json"))).toBe(false)
  })
})
