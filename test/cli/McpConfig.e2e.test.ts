/**
 * `minicode mcp config` on the BUILT binary, as a user runs it: the command every `--for CLIENT` snippet prints is
 * spawned exactly as printed, from a folder outside the project, by the SDK's real client, and answers read_file;
 * `--write` merges into real files in a scratch HOME and workspace, keeping modes, links and other entries.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import * as toml from "toml"
import { describe, expect, it } from "vitest"
import { clients, type Client as ClientName } from "../../src/domain/mcp/McpClientConfig.js"
import { textOf } from "../serve/support/McpServeHarness.js"
import { scratchFolders } from "../support/Scratch.js"

const bin = path.resolve("dist/bin.js")
const repo = path.resolve(".")

const tmp = scratchFolders()

/** A workspace, a HOME and a folder to run from, all outside the repository. */
const setup = () => {
  const workspace = tmp("ws")
  fs.writeFileSync(path.join(workspace, "hello.txt"), "hello from the workspace\n")
  const home = tmp("home")
  const elsewhere = tmp("elsewhere")
  for (const dir of [workspace, home, elsewhere]) expect(path.relative(repo, dir).startsWith("..")).toBe(true)
  return { workspace, home, elsewhere }
}

const baseEnv = (home: string): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home }
  delete env["CODEX_HOME"]
  delete env["XDG_CONFIG_HOME"]
  delete env["APPDATA"]
  return env
}

const minicode = (args: ReadonlyArray<string>, options: { cwd: string; env: NodeJS.ProcessEnv; umask?: string }) =>
  options.umask === undefined
    ? spawnSync(process.execPath, [bin, ...args], { encoding: "utf8", cwd: options.cwd, env: options.env })
    : spawnSync("/bin/sh", ["-c", `umask ${options.umask}; exec "$0" "$@"`, process.execPath, bin, ...args], { encoding: "utf8", cwd: options.cwd, env: options.env })

const record = (u: unknown): Record<string, unknown> => {
  if (typeof u !== "object" || u === null || Array.isArray(u)) return expect.fail(`not an object: ${JSON.stringify(u)}`)
  return Object.fromEntries(Object.entries(u))
}
const strings = (u: unknown): ReadonlyArray<string> =>
  Array.isArray(u) && u.every((x): x is string => typeof x === "string") ? u : expect.fail(`not an array of strings: ${JSON.stringify(u)}`)

/** Splits the words of a POSIX shell line as printed (plain words and '…' with '\'' inside). */
const shellWords = (line: string): ReadonlyArray<string> => {
  const words: Array<string> = []
  let word: string | undefined
  for (let i = 0; i < line.length; i++) {
    const c = line[i] ?? ""
    if (c === " ") {
      if (word !== undefined) words.push(word)
      word = undefined
    } else if (c === "'") {
      const end = line.indexOf("'", i + 1)
      word = (word ?? "") + line.slice(i + 1, end)
      i = end
    } else if (c === "\\") {
      word = (word ?? "") + (line[i + 1] ?? "")
      i++
    } else word = (word ?? "") + c
  }
  if (word !== undefined) words.push(word)
  return words
}

/** The command line a client would start, read from what `mcp config --for CLIENT` printed, in that client's format. */
const printedCommand = (client: ClientName, out: string): ReadonlyArray<string> => {
  if (client === "claude-code") {
    const line = out.split("\n").find((l) => l.startsWith("claude mcp add minicode -- ")) ?? expect.fail(out)
    return shellWords(line.slice("claude mcp add minicode -- ".length))
  }
  if (client === "codex") {
    const entry = record(record(record(toml.parse(out))["mcp_servers"])["minicode"])
    return [String(entry["command"]), ...strings(entry["args"])]
  }
  const parsed = record(JSON.parse(out.split("\n").filter((l) => !l.startsWith("#")).join("\n")))
  const key = client === "vscode" ? "servers" : client === "opencode" ? "mcp" : client === "zed" ? "context_servers" : "mcpServers"
  const entry = record(record(parsed[key])["minicode"])
  return client === "opencode" ? strings(entry["command"]) : [String(entry["command"]), ...strings(entry["args"])]
}

/** Starts `command` exactly as given with the SDK's stdio client, from `cwd`, and reads hello.txt through it. */
const readThrough = async (command: ReadonlyArray<string>, cwd: string, env?: Record<string, string>) => {
  const [exe, ...args] = command
  const transport = new StdioClientTransport({ command: exe ?? "", args, cwd, stderr: "pipe", ...(env === undefined ? {} : { env }) })
  const client = new Client({ name: "minicode-config-e2e", version: "1.0.0" })
  await client.connect(transport)
  try {
    return textOf(await client.callTool({ name: "read_file", arguments: { path: "hello.txt" } }))
  } finally {
    await client.close()
  }
}

describe("mcp config: the printed command starts this installation", () => {
  it("claude-desktop's command, spawned as printed from a folder outside the project, answers read_file", async () => {
    const { workspace, home, elsewhere } = setup()
    const out = minicode(["mcp", "config", "--for", "claude-desktop", "--cwd", workspace], { cwd: elsewhere, env: baseEnv(home) })
    expect(out.status, out.stderr).toBe(0)
    expect(out.stdout).not.toContain("npx")
    const command = printedCommand("claude-desktop", out.stdout)
    expect(path.isAbsolute(command[0] ?? "")).toBe(true)
    expect(command).toContain(fs.realpathSync(bin))
    expect(command.slice(-4)).toEqual(["mcp", "serve", "--cwd", workspace])
    expect(await readThrough(command, elsewhere)).toContain("hello from the workspace")
  })

  it("every other client's command does too", async () => {
    const { workspace, home, elsewhere } = setup()
    for (const client of clients.filter((c) => c !== "claude-desktop")) {
      const out = minicode(["mcp", "config", "--for", client, "--cwd", workspace], { cwd: elsewhere, env: baseEnv(home) })
      expect(out.status, `${client}: ${out.stderr}`).toBe(0)
      const command = printedCommand(client, out.stdout)
      expect(path.isAbsolute(command[0] ?? ""), client).toBe(true)
      expect(await readThrough(command, elsewhere), client).toContain("hello from the workspace")
    }
  }, 180_000)

  it("prints the minicode on PATH when it is this installation, and never another one", async () => {
    const { workspace, home, elsewhere } = setup()
    const binDir = tmp("bin")
    fs.symlinkSync(bin, path.join(binDir, "minicode"))
    const nodeDir = path.dirname(process.execPath)
    const env = { ...baseEnv(home), PATH: `${binDir}${path.delimiter}${nodeDir}${path.delimiter}/usr/bin${path.delimiter}/bin` }
    const out = minicode(["mcp", "config", "--for", "cursor", "--cwd", workspace], { cwd: elsewhere, env })
    expect(out.status, out.stderr).toBe(0)
    const command = printedCommand("cursor", out.stdout)
    expect(command).toEqual([path.join(binDir, "minicode"), "mcp", "serve", "--cwd", workspace])
    expect(await readThrough(command, elsewhere, { PATH: env["PATH"] ?? "", HOME: home })).toContain("hello from the workspace")

    // Another `minicode` first on PATH (someone else's, or an older install) is not what this install registers.
    const otherDir = tmp("other")
    fs.writeFileSync(path.join(otherDir, "minicode"), "#!/bin/sh\necho not this one\n", { mode: 0o755 })
    const shadowed = minicode(["mcp", "config", "--for", "cursor", "--cwd", workspace], { cwd: elsewhere, env: { ...env, PATH: `${otherDir}${path.delimiter}${env["PATH"]}` } })
    const shadowedCommand = printedCommand("cursor", shadowed.stdout)
    expect(shadowedCommand[0]).toBe(process.execPath)
    expect(shadowedCommand).toContain(fs.realpathSync(bin))
    expect(shadowed.stdout).not.toContain(otherDir)
  })

  it("an unknown client is a usage error that lists the clients", () => {
    const { home, elsewhere } = setup()
    const out = minicode(["mcp", "config", "--for", "emacs"], { cwd: elsewhere, env: baseEnv(home) })
    expect(out.status).not.toBe(0)
    expect(out.status).toBe(2)
    expect(out.stderr).toContain('minicode: --for must be one of claude-code, claude-desktop, cursor, vscode, codex, gemini, opencode, windsurf, zed; got "emacs"')
    for (const c of clients) expect(out.stderr).toContain(c)
  })
})

const mode = (file: string) => fs.statSync(file).mode & 0o777

describe("mcp config --write", () => {
  it("creates project files 644 and user files 600 whatever the umask, each holding a command that works", async () => {
    const { workspace, home, elsewhere } = setup()
    const project: Record<string, string> = {
      "claude-code": ".mcp.json",
      cursor: ".cursor/mcp.json",
      vscode: ".vscode/mcp.json",
      gemini: ".gemini/settings.json",
      opencode: "opencode.json"
    }
    const user: Record<string, string> = {
      "claude-desktop": ".config/Claude/claude_desktop_config.json",
      codex: ".codex/config.toml",
      windsurf: ".codeium/windsurf/mcp_config.json",
      zed: ".config/zed/settings.json"
    }
    for (const client of clients) {
      for (const umask of ["077", "000"]) {
        const rel = project[client] ?? user[client] ?? expect.fail(client)
        const file = path.join(project[client] !== undefined ? workspace : home, rel)
        fs.rmSync(file, { force: true })
        const out = minicode(["mcp", "config", "--for", client, "--cwd", workspace, "--write"], { cwd: elsewhere, env: baseEnv(home), umask })
        expect(out.status, `${client}: ${out.stderr}`).toBe(0)
        expect(out.stdout).toContain(`created ${file}`)
        expect(mode(file), `${client} umask ${umask}`).toBe(project[client] !== undefined ? 0o644 : 0o600)
        const text = fs.readFileSync(file, "utf8")
        expect(text).not.toMatch(/"env"|environment|\benv\b/)
        const command = client === "claude-code" ? printedCommand("claude-desktop", text) : printedCommand(client, text)
        if (umask === "000") expect(await readThrough(command, elsewhere), client).toContain("hello from the workspace")
      }
    }
    expect(fs.readdirSync(workspace).filter((f) => f.includes("minicode-tmp"))).toEqual([])
  }, 240_000)

  it("keeps the mode, the link and every other entry of the file it merges into, and drops the old entry's env", () => {
    const { workspace, home, elsewhere } = setup()
    const desktop = path.join(home, ".config/Claude/claude_desktop_config.json")
    fs.mkdirSync(path.dirname(desktop), { recursive: true })
    fs.writeFileSync(
      desktop,
      JSON.stringify({ globalShortcut: "Ctrl+Space", mcpServers: { other: { command: "x", env: { TOKEN: "other-secret" } }, minicode: { command: "npx", args: ["-y", "minicode"], env: { OLD_TOKEN: "s3cret" } } } })
    )
    fs.chmodSync(desktop, 0o600)
    const out = minicode(["mcp", "config", "--for", "claude-desktop", "--cwd", workspace, "--write"], { cwd: elsewhere, env: baseEnv(home) })
    expect(out.status, out.stderr).toBe(0)
    expect(out.stdout).toContain(`updated ${desktop}`)
    expect(mode(desktop)).toBe(0o600)
    const after = record(JSON.parse(fs.readFileSync(desktop, "utf8")))
    expect(after["globalShortcut"]).toBe("Ctrl+Space")
    expect(record(after["mcpServers"])["other"]).toEqual({ command: "x", env: { TOKEN: "other-secret" } })
    expect(record(record(after["mcpServers"])["minicode"])["env"]).toBeUndefined()
    expect(JSON.stringify(after)).not.toContain("s3cret")

    // A shared project file keeps its (group-readable) mode, and one linked inside the workspace is written where it points.
    const real = path.join(workspace, "config/cursor-mcp.json")
    fs.mkdirSync(path.dirname(real))
    fs.writeFileSync(real, JSON.stringify({ mcpServers: { kept: { command: "y" } } }))
    fs.chmodSync(real, 0o640)
    fs.mkdirSync(path.join(workspace, ".cursor"))
    fs.symlinkSync("../config/cursor-mcp.json", path.join(workspace, ".cursor/mcp.json"))
    const cursor = minicode(["mcp", "config", "--for", "cursor", "--cwd", workspace, "--write"], { cwd: elsewhere, env: baseEnv(home) })
    expect(cursor.status, cursor.stderr).toBe(0)
    expect(fs.lstatSync(path.join(workspace, ".cursor/mcp.json")).isSymbolicLink()).toBe(true)
    expect(mode(real)).toBe(0o640)
    const merged = record(record(JSON.parse(fs.readFileSync(real, "utf8")))["mcpServers"])
    expect(merged["kept"]).toEqual({ command: "y" })
    expect(merged["minicode"]).toBeDefined()
  })

  it("follows a user file's link (dotfiles), but never a link a repository plants out of the workspace, nor anything but a regular file", () => {
    const { workspace, home, elsewhere } = setup()
    const dotfiles = tmp("dotfiles")
    const windsurfReal = path.join(dotfiles, "windsurf.json")
    fs.writeFileSync(windsurfReal, JSON.stringify({ mcpServers: { kept: { command: "z" } } }), { mode: 0o600 })
    fs.mkdirSync(path.join(home, ".codeium/windsurf"), { recursive: true })
    fs.symlinkSync(windsurfReal, path.join(home, ".codeium/windsurf/mcp_config.json"))
    const windsurf = minicode(["mcp", "config", "--for", "windsurf", "--cwd", workspace, "--write"], { cwd: elsewhere, env: baseEnv(home) })
    expect(windsurf.status, windsurf.stderr).toBe(0)
    expect(fs.lstatSync(path.join(home, ".codeium/windsurf/mcp_config.json")).isSymbolicLink()).toBe(true)
    expect(Object.keys(record(record(JSON.parse(fs.readFileSync(windsurfReal, "utf8")))["mcpServers"]))).toEqual(["kept", "minicode"])

    // Planted in the repository: the file itself linked out, its folder linked out, and a link to nothing.
    const victim = path.join(dotfiles, "other-tool.json")
    const victimText = JSON.stringify({ setting: true })
    fs.writeFileSync(victim, victimText)
    fs.symlinkSync(victim, path.join(workspace, ".mcp.json"))
    fs.symlinkSync(dotfiles, path.join(workspace, ".cursor"))
    fs.mkdirSync(path.join(workspace, ".vscode"))
    fs.symlinkSync(path.join(dotfiles, "nothing-here.json"), path.join(workspace, ".vscode/mcp.json"))
    fs.symlinkSync(path.join(dotfiles, "no-such-dir"), path.join(workspace, ".gemini"))
    for (const [client, says] of [["claude-code", "outside the workspace"], ["cursor", "outside the workspace"], ["vscode", "a link to nothing"], ["gemini", "a link to nothing"]] as const) {
      const out = minicode(["mcp", "config", "--for", client, "--cwd", workspace, "--write"], { cwd: elsewhere, env: baseEnv(home) })
      expect(out.status, client).not.toBe(0)
      expect(out.stderr + out.stdout, client).toContain(says)
    }
    // Not a regular file: a FIFO (reading it would hang) and a folder.
    const other = setup()
    expect(spawnSync("mkfifo", [path.join(other.workspace, ".mcp.json")]).status).toBe(0)
    fs.mkdirSync(path.join(other.workspace, "opencode.json"))
    for (const client of ["claude-code", "opencode"]) {
      const out = minicode(["mcp", "config", "--for", client, "--cwd", other.workspace, "--write"], { cwd: elsewhere, env: baseEnv(home) })
      expect(out.status, client).not.toBe(0)
      expect(out.stderr + out.stdout, client).toContain("not a regular file")
    }
    expect(fs.readFileSync(victim, "utf8")).toBe(victimText)
    expect(fs.readdirSync(dotfiles).sort()).toEqual(["other-tool.json", "windsurf.json"])
  })

  it("merges a table into Codex's config.toml without touching the rest, keeping its mode", () => {
    const { workspace, home, elsewhere } = setup()
    const file = path.join(home, ".codex/config.toml")
    fs.mkdirSync(path.dirname(file), { recursive: true })
    const original = '# mine\nmodel = "o3"\n\n[mcp_servers.other]\ncommand = "npx"\nargs = ["-y", "other"]\n\n[mcp_servers.minicode]\ncommand = "npx"\nargs = ["-y", "minicode", "mcp", "serve"]\n[mcp_servers.minicode.env]\nAPI_KEY = "sk-old"\n\n[profiles.fast]\nmodel = "o4-mini"\n'
    fs.writeFileSync(file, original, { mode: 0o640 })
    fs.chmodSync(file, 0o640)
    const out = minicode(["mcp", "config", "--for", "codex", "--cwd", workspace, "--write"], { cwd: elsewhere, env: baseEnv(home) })
    expect(out.status, out.stderr).toBe(0)
    expect(mode(file)).toBe(0o640)
    const text = fs.readFileSync(file, "utf8")
    expect(text.startsWith('# mine\nmodel = "o3"\n\n[mcp_servers.other]\ncommand = "npx"\nargs = ["-y", "other"]\n\n[profiles.fast]\nmodel = "o4-mini"\n')).toBe(true)
    expect(text).not.toContain("sk-old")
    const parsed = record(toml.parse(text))
    expect(record(parsed["mcp_servers"])["other"]).toEqual({ command: "npx", args: ["-y", "other"] })
    expect(printedCommand("codex", text)).toContain(fs.realpathSync(bin))

    // An entry written as an inline table is refused with what to paste, and the file is left as it was.
    const inline = 'mcp_servers = { minicode = { command = "npx" } }\n'
    fs.writeFileSync(file, inline)
    const refused = minicode(["mcp", "config", "--for", "codex", "--cwd", workspace, "--write"], { cwd: elsewhere, env: baseEnv(home) })
    expect(refused.status).not.toBe(0)
    expect(refused.stderr + refused.stdout).toContain("[mcp_servers.minicode]")
    expect(fs.readFileSync(file, "utf8")).toBe(inline)
  })

  it("refuses a config file with comments and leaves it as it was", () => {
    const { workspace, home, elsewhere } = setup()
    const file = path.join(home, ".config/zed/settings.json")
    fs.mkdirSync(path.dirname(file), { recursive: true })
    const original = '// Zed settings\n{\n  "theme": "One Dark"\n}\n'
    fs.writeFileSync(file, original)
    const out = minicode(["mcp", "config", "--for", "zed", "--cwd", workspace, "--write"], { cwd: elsewhere, env: baseEnv(home) })
    expect(out.status).not.toBe(0)
    expect(out.stderr + out.stdout).toContain("comments are not supported")
    expect(out.stderr + out.stdout).toContain('"context_servers"')
    expect(fs.readFileSync(file, "utf8")).toBe(original)
  })
})
