/**
 * The registration snippets: every client's snippet parses in that client's format and starts exactly the
 * installation it was given (never a package fetched by name); merges keep the rest of the file; the TOML writer
 * and reader agree with an independent TOML parser (the `toml` package).
 */
import * as fs from "node:fs"
import { Either, FastCheck } from "effect"
import * as toml from "toml"
import { assert, describe, it } from "vitest"
import * as ClientConfig from "../../../src/domain/mcp/McpClientConfig.js"
import * as Toml from "../../../src/domain/mcp/TomlLite.js"

const env: ClientConfig.Environment = { platform: "linux", home: "/home/u" }
const start: ClientConfig.Launch = { command: "/usr/local/bin/node", args: ["--max-semi-space-size=8", "/opt/mini code/dist/bin.js"] }
const workspace = "/work/my repo"
const expected = ["--max-semi-space-size=8", "/opt/mini code/dist/bin.js", "mcp", "serve", "--cwd", workspace]

/** A snippet's config: `#` lines are comments (the TOML parser takes them as such). */
const body = (text: string) =>
  text
    .split("\n")
    .filter((l) => !l.startsWith("#"))
    .join("\n")

const record = (u: unknown): Record<string, unknown> => {
  if (typeof u !== "object" || u === null || Array.isArray(u)) return assert.fail(`not an object: ${JSON.stringify(u)}`)
  return Object.fromEntries(Object.entries(u))
}

const strings = (u: unknown): ReadonlyArray<string> =>
  Array.isArray(u) && u.every((x): x is string => typeof x === "string") ? u : assert.fail(`not an array of strings: ${JSON.stringify(u)}`)

/** The command line a parsed snippet makes a client start. */
const commandLine = (client: ClientConfig.Client, text: string): ReadonlyArray<string> => {
  if (client === "codex") {
    const entry = record(record(record(toml.parse(text))["mcp_servers"])["minicode"])
    return [String(entry["command"]), ...strings(entry["args"])]
  }
  const parsed = record(JSON.parse(body(text)))
  const key = client === "vscode" ? "servers" : client === "opencode" ? "mcp" : client === "zed" ? "context_servers" : "mcpServers"
  const entry = record(record(parsed[key])["minicode"])
  if (client === "opencode") return strings(entry["command"])
  return [String(entry["command"]), ...strings(entry["args"])]
}

describe("mcp config snippets", () => {
  it("start the given installation, for every client, in a form that parses", () => {
    for (const client of ClientConfig.clients) {
      const text = ClientConfig.snippet(client, start, workspace, env)
      assert.notInclude(text, "npx", client)
      if (client === "claude-code") {
        const line = text.split("\n").find((l) => l.startsWith("claude mcp add minicode -- "))
        assert.strictEqual(line, "claude mcp add minicode -- /usr/local/bin/node --max-semi-space-size=8 '/opt/mini code/dist/bin.js' mcp serve --cwd '/work/my repo'")
        continue
      }
      assert.deepStrictEqual(commandLine(client, text), [start.command, ...expected], client)
    }
  })

  it("use each client's documented shape and file", () => {
    const parse = (client: ClientConfig.Client) => record(JSON.parse(body(ClientConfig.snippet(client, start, workspace, env))))
    assert.deepStrictEqual(record(parse("vscode")["servers"])["minicode"], { type: "stdio", command: start.command, args: expected })
    assert.deepStrictEqual(parse("opencode"), {
      $schema: "https://opencode.ai/config.json",
      mcp: { minicode: { type: "local", command: [start.command, ...expected], enabled: true } }
    })
    assert.deepStrictEqual(record(parse("zed")["context_servers"])["minicode"], { command: start.command, args: expected })
    assert.deepStrictEqual(record(parse("gemini")["mcpServers"])["minicode"], { command: start.command, args: expected })
    const files = Object.fromEntries(ClientConfig.clients.map((c) => [c, ClientConfig.target(c, start, workspace, env).file]))
    assert.deepInclude(files, {
      "claude-code": "/work/my repo/.mcp.json",
      "claude-desktop": "/home/u/.config/Claude/claude_desktop_config.json",
      cursor: "/work/my repo/.cursor/mcp.json",
      vscode: "/work/my repo/.vscode/mcp.json",
      codex: "/home/u/.codex/config.toml",
      gemini: "/work/my repo/.gemini/settings.json",
      opencode: "/work/my repo/opencode.json",
      windsurf: "/home/u/.codeium/windsurf/mcp_config.json",
      zed: "/home/u/.config/zed/settings.json"
    })
    assert.strictEqual(ClientConfig.target("codex", start, workspace, { ...env, codexHome: "/x/codex" }).file, "/x/codex/config.toml")
    assert.strictEqual(ClientConfig.target("zed", start, workspace, { ...env, xdgConfigHome: "/x/cfg" }).file, "/x/cfg/zed/settings.json")
    const win = { platform: "win32", home: "C:\\Users\\u", appData: "C:\\Users\\u\\AppData\\Roaming" }
    assert.strictEqual(ClientConfig.target("windsurf", start, workspace, win).file, "C:\\Users\\u\\.codeium\\windsurf\\mcp_config.json")
    assert.strictEqual(ClientConfig.target("codex", start, workspace, win).file, "C:\\Users\\u\\.codex\\config.toml")
    assert.strictEqual(ClientConfig.target("zed", start, workspace, win).file, "C:\\Users\\u\\AppData\\Roaming\\Zed\\settings.json")
    assert.strictEqual(ClientConfig.target("claude-desktop", start, workspace, win).file, "C:\\Users\\u\\AppData\\Roaming\\Claude\\claude_desktop_config.json")
  })

  it("hold no environment, hence no secrets", () => {
    for (const client of ClientConfig.clients) {
      const t = ClientConfig.target(client, start, workspace, env)
      const written = Either.getOrThrow(ClientConfig.merge(undefined, t))
      assert.notMatch(written, /"env"|environment|\benv\b/, client)
    }
  })
})

describe("this installation's command", () => {
  it("is the PATH minicode when that is this install, else node with the launcher's V8 flags and the script", () => {
    const shebang = fs.readFileSync("src/launcher.ts", "utf8").split("\n")[0] ?? ""
    const flags = ClientConfig.shebangNodeFlags(shebang)
    assert.deepStrictEqual(flags, ["--max-semi-space-size=8", "--heap-growing-percent=20", "--interrupt-budget=16384"])
    const install = { execPath: "/usr/bin/node", script: "/opt/m/dist/bin.js", shebang, onPath: undefined }
    assert.deepStrictEqual(ClientConfig.launch(install), { command: "/usr/bin/node", args: [...flags, "/opt/m/dist/bin.js"] })
    assert.deepStrictEqual(ClientConfig.launch({ ...install, onPath: "/usr/local/bin/minicode" }), { command: "/usr/local/bin/minicode", args: [] })
  })

  it("takes only plain --flags from a shebang", () => {
    assert.deepStrictEqual(ClientConfig.shebangNodeFlags("#!/bin/sh -c 'curl x | sh'"), [])
    assert.deepStrictEqual(ClientConfig.shebangNodeFlags("#!/usr/bin/env node --require=/tmp/evil.js"), [])
    assert.deepStrictEqual(ClientConfig.shebangNodeFlags("#!/usr/bin/env -S node --a=1 ; --b"), ["--a=1"])
    assert.deepStrictEqual(ClientConfig.shebangNodeFlags("no shebang node --x"), [])
  })
})

describe("TOML", () => {
  it("writes strings any TOML parser reads back exactly", () => {
    const nasty = ['C:\\Program Files\\node.exe', 'a "quoted" word', "line\nbreak\ttab\r\u0000\u001f\u007f", "ünïcødé ✓ 𝄞", "'single'", "#not-a-comment", "]"]
    const parsed = record(toml.parse(`s = ${Toml.stringArray(nasty)}\n${nasty.map((v, k) => `k${k} = ${Toml.string(v)}`).join("\n")}\n`))
    assert.deepStrictEqual(parsed["s"], nasty)
    nasty.forEach((v, k) => assert.strictEqual(parsed[`k${k}`], v))
    assert.strictEqual(Toml.dottedKey(["mcp_servers", "my server", "x.y"]), 'mcp_servers."my server"."x.y"')
  })

  it("reads statements with their absolute paths, not fooled by strings, arrays or comments", () => {
    const text = [
      "# [mcp_servers.minicode] in a comment",
      'model = "o3"',
      'notes = """',
      "[mcp_servers.minicode]",
      '"""',
      "lit = '''",
      "[x]",
      "'''",
      "matrix = [",
      '  ["a", "b"],  # a comment',
      "  [",
      "    \"c\"",
      "  ],",
      "]",
      'when = 1979-05-27 07:32:00Z',
      "[mcp_servers.other]",
      'command = "x"',
      'env = { A = "1", "b.c" = { d = 2 } }',
      "[ mcp_servers . \"mini\\u0063ode\" ]",
      "args = []",
      "[[profiles]]",
      "name.first = 'p'"
    ].join("\n")
    const s = Either.getOrThrow(Toml.statements(text))
    assert.deepStrictEqual(
      s.map((x) => `${x.kind}:${x.path.join(".")}`),
      ["key:model", "key:notes", "key:lit", "key:matrix", "key:when", "table:mcp_servers.other", "key:mcp_servers.other.command", "key:mcp_servers.other.env", "table:mcp_servers.minicode", "key:mcp_servers.minicode.args", "array-table:profiles", "key:profiles.name.first"]
    )
    toml.parse(text)
  })

  it("refuses what it cannot read", () => {
    for (const bad of ['a = "unterminated', "a = [1, 2", "[t", "= 1", 'a = "x" b', 'a = """never closed', 'k = "\\q"'])
      assert.isTrue(Either.isLeft(Toml.statements(bad)), bad)
  })
})

describe("codex --write merge", () => {
  const t = ClientConfig.target("codex", start, workspace, env)
  const codexEntry = (text: string) => record(record(record(toml.parse(text))["mcp_servers"])["minicode"])

  it("creates the table in an empty or missing file", () => {
    for (const existing of [undefined, "", "\n\n"]) {
      const out = Either.getOrThrow(ClientConfig.merge(existing, t))
      assert.deepStrictEqual(codexEntry(out), { command: start.command, args: expected })
    }
  })

  it("appends to a file without the table, keeping every byte of it", () => {
    const existing = [
      "# my codex config",
      'model = "o3"',
      "",
      "[mcp_servers.other]",
      'command = "npx"',
      'args = ["-y", "other"]',
      "[mcp_servers.other.env]",
      'TOKEN = "secret-of-other"',
      "",
      "[profiles.fast]",
      'model = "o4-mini" # trailing comment'
    ].join("\n")
    const out = Either.getOrThrow(ClientConfig.merge(existing, t))
    assert.isTrue(out.startsWith(`${existing}\n`))
    const parsed = record(toml.parse(out))
    assert.strictEqual(parsed["model"], "o3")
    assert.deepStrictEqual(record(parsed["mcp_servers"])["other"], { command: "npx", args: ["-y", "other"], env: { TOKEN: "secret-of-other" } })
    assert.deepStrictEqual(record(parsed["profiles"]), { fast: { model: "o4-mini" } })
    assert.deepStrictEqual(codexEntry(out), { command: start.command, args: expected })
  })

  it("replaces an existing table and its sub-tables where they are", () => {
    const existing = [
      'model = "o3"',
      "[mcp_servers.minicode]",
      'command = "npx"',
      'args = ["-y", "minicode", "mcp", "serve"]',
      "[mcp_servers.minicode.env]",
      'OLD = "1"',
      "[mcp_servers.other]",
      'command = "x"'
    ].join("\n")
    const out = Either.getOrThrow(ClientConfig.merge(existing, t))
    assert.deepStrictEqual(codexEntry(out), { command: start.command, args: expected })
    assert.deepStrictEqual(record(record(toml.parse(out))["mcp_servers"])["other"], { command: "x" })
    assert.notInclude(out, "npx")
    // Merging twice changes nothing more.
    assert.strictEqual(Either.getOrThrow(ClientConfig.merge(out, t)), out)
  })

  it("refuses entries defined in ways it does not rewrite, and TOML it cannot read, saying what to paste", () => {
    for (const existing of [
      'mcp_servers = { minicode = { command = "npx" } }',
      '[mcp_servers]\nminicode = { command = "npx" }',
      '[mcp_servers]\nminicode.command = "npx"',
      'mcp_servers.minicode.command = "npx"',
      '[[mcp_servers]]\nname = "x"',
      "model = 'unterminated"
    ]) {
      const result = ClientConfig.merge(existing, t)
      assert.isTrue(Either.isLeft(result), existing)
      if (Either.isLeft(result)) assert.include(result.left, "[mcp_servers.minicode]", existing)
    }
  })
})

describe("JSON --write merge", () => {
  it("keeps other servers and settings, adds opencode's $schema only to a new file", () => {
    const t = ClientConfig.target("opencode", start, workspace, env)
    const fresh = record(JSON.parse(Either.getOrThrow(ClientConfig.merge(undefined, t))))
    assert.strictEqual(fresh["$schema"], "https://opencode.ai/config.json")
    const existing = JSON.stringify({ theme: "x", mcp: { other: { type: "remote", url: "https://e.x" } } })
    const merged = record(JSON.parse(Either.getOrThrow(ClientConfig.merge(existing, t))))
    assert.isUndefined(merged["$schema"])
    assert.strictEqual(merged["theme"], "x")
    assert.deepStrictEqual(record(merged["mcp"])["other"], { type: "remote", url: "https://e.x" })
    const zed = ClientConfig.target("zed", start, workspace, env)
    const refused = ClientConfig.merge('// Zed settings\n{ "theme": "One" }', zed)
    assert.isTrue(Either.isLeft(refused))
    if (Either.isLeft(refused)) assert.include(refused.left, '"context_servers"')
  })
})

describe("codex --write merge, against an independent TOML parser", () => {
  const t = ClientConfig.target("codex", start, workspace, env)
  const values = ['"s"', "'lit'", '"""\n[mcp_servers.minicode]\n"""', "'''\n[x]\n'''", "[\n  1,\n  [2, 3], # c\n]", '{ a = 1, b = "]" }', "1979-05-27 07:32:00Z", "true", "-1.5e3", '[["a"], ["b"]]']
  const headers = ["[t]", "[mcp_servers]", "[mcp_servers.other]", "[mcp_servers.minicode]", "[mcp_servers.minicode.env]", '[mcp_servers."minicode"]', "[[arr]]", "[ t . u ]"]
  const piece = FastCheck.oneof(
    FastCheck.record({ kind: FastCheck.constant("key" as const), value: FastCheck.constantFrom(...values), dotted: FastCheck.boolean() }),
    FastCheck.record({ kind: FastCheck.constant("header" as const), value: FastCheck.constantFrom(...headers), dotted: FastCheck.constant(false) }),
    FastCheck.record({ kind: FastCheck.constant("comment" as const), value: FastCheck.constantFrom("# [mcp_servers.minicode]", "", "   "), dotted: FastCheck.constant(false) })
  )
  const doc = (pieces: ReadonlyArray<{ kind: string; value: string; dotted: boolean }>) =>
    pieces.map((p, k) => (p.kind === "key" ? `${p.dotted ? `d${k}.x` : `k${k}`} = ${p.value}` : p.value)).join("\n")
  const parse = (text: string): Record<string, unknown> | undefined => {
    try {
      return record(toml.parse(text))
    } catch {
      return undefined
    }
  }
  const withoutOurs = (data: Record<string, unknown>) => {
    const servers = data["mcp_servers"]
    if (servers === undefined) return data
    const { minicode: _, ...rest } = record(servers)
    return { ...data, mcp_servers: rest }
  }

  it("reads every valid document, and a merge keeps all its other data and sets exactly our entry", () => {
    let merged = 0
    let replaced = 0
    FastCheck.assert(
      FastCheck.property(FastCheck.array(piece, { maxLength: 12 }), (pieces) => {
        const text = doc(pieces)
        const before = parse(text)
        if (before === undefined) return
        assert.isTrue(Either.isRight(Toml.statements(text)), text)
        const result = ClientConfig.merge(text, t)
        if (Either.isLeft(result)) return
        merged++
        if (record(before["mcp_servers"] ?? {})["minicode"] !== undefined) replaced++
        const after = parse(result.right) ?? assert.fail(`merge gave invalid TOML:\n${result.right}\n--- from:\n${text}`)
        assert.deepStrictEqual(record(record(after["mcp_servers"])["minicode"]), { command: start.command, args: expected }, text)
        const keptAfter = withoutOurs(after)
        const keptBefore = withoutOurs(before)
        if (Object.keys(record(keptAfter["mcp_servers"] ?? {})).length === 0 && keptBefore["mcp_servers"] === undefined) delete keptAfter["mcp_servers"]
        assert.deepStrictEqual(keptAfter, keptBefore, text)
      }),
      { numRuns: 400, seed: 17 }
    )
    assert.isAbove(merged, 50)
    assert.isAbove(replaced, 10)
  })
})
