/**
 * Help and discovery in the shipped CLI (dist/bin.js): every help page has a purpose, a usage line and examples,
 * keeps to the width, never doubles a command word nor says "A user-defined piece of text"; the top page carries
 * the exit codes; `tools [--json]` and `tool NAME --help` come from the catalog; colour follows NO_COLOR,
 * FORCE_COLOR, TERM=dumb and whether stdout is a terminal; the completion scripts work.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import { Effect } from "effect"
import { spawnSync, type SpawnSyncReturns } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Tools from "../../src/domain/core/Tools.js"
import { runCli } from "../support/Cli.js"
import { root } from "../../src/cli/Cli.js"
import * as Help from "../../src/cli/Help.js"

const bin = path.resolve("dist/bin.js")
const home = fs.mkdtempSync(path.join(os.tmpdir(), "minicode-help-home-"))
const ws = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "minicode-help-ws-")))
afterAll(() => {
  fs.rmSync(home, { recursive: true, force: true })
  fs.rmSync(ws, { recursive: true, force: true })
})

// Piped, with no colour or width settings of the test runner's terminal leaking in.
const baseEnv = (): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(home, ".config") }
  for (const key of ["NO_COLOR", "FORCE_COLOR", "COLUMNS", "TERM"]) delete env[key]
  return env
}
/**
 * The CLI's answer to `args` (with `extra` in its environment): one process per distinct command line and environment
 * for the whole file, since a help page is the same every time it is asked (the tests share outputs instead of
 * starting the CLI again per assertion).
 */
const answers = new Map<string, SpawnSyncReturns<string>>()
const minicode = (args: ReadonlyArray<string>, extra: NodeJS.ProcessEnv = {}) => {
  const key = JSON.stringify([args, extra])
  const known = answers.get(key)
  if (known !== undefined) return known
  const out = spawnSync(process.execPath, [bin, ...args], { encoding: "utf8", cwd: ws, env: { ...baseEnv(), ...extra } })
  answers.set(key, out)
  return out
}

/** The same, without blocking the test worker (test/support/Cli.ts). */
const minicodeAsync = (args: ReadonlyArray<string>) => runCli(bin, args, { cwd: ws, env: baseEnv() })

const ansi = new RegExp(`${String.fromCharCode(27)}\\[`)
const widest = (text: string) => Math.max(...text.split("\n").map((l) => l.length))

/** The shape every help page has. */
const looksLikeHelp = (text: string, width: number, name: string) => {
  expect(text, name).toMatch(/^minicode.* - \S/)
  expect(text, name).toMatch(/\nUsage:\n {2}minicode/)
  expect(text, name).toMatch(/\nExamples:\n {2}\$ minicode /)
  expect(text, name).not.toContain("user-defined piece of text")
  expect(text, name).not.toMatch(/\b(\w+) \1\b/)
  expect(text, name).not.toMatch(ansi)
  expect(widest(text), name).toBeLessThanOrEqual(width)
}

/** Each page as the CLI renders it (Help.show: `Help.render` of the page's items, then a newline), in process. */
const rendered = new Map<Help.Page, (width: number) => string>()
beforeAll(async () => {
  for (const page of Help.pages) {
    const items = await Effect.runPromise(Help.itemsOf(root.descriptor, page.path).pipe(Effect.provide(NodeContext.layer)))
    rendered.set(page, (width) => `${Help.render({ width, colour: false }, page, items)}\n`)
  }
})

describe("help pages", () => {
  // Every page through the CLI at its default width; at 50 columns, every page rendered in process (the CLI's own
  // renderer, proven the same as the CLI's output at 80 columns here and at 50 for the pages below: a process per
  // page and width cost ~40 CLI starts), and COLUMNS=50 through the CLI for a top page, a group and a leaf.
  const narrowThroughCli = new Set(["", "config", "config mcp add"])
  for (const page of Help.pages) {
    const name = ["minicode", ...page.path, "--help"].join(" ")
    it(`${name}: purpose, usage, examples, within 80 and 50 columns, no colour when piped`, () => {
      const out = minicode([...page.path, "--help"])
      expect(out.status, out.stderr).toBe(0)
      expect(out.stderr).toBe("")
      looksLikeHelp(out.stdout, 80, name)
      expect(out.stdout).toContain(page.purpose.split(" ").slice(0, 3).join(" "))
      const render = rendered.get(page)
      expect(render, name).toBeDefined()
      if (render === undefined) return
      expect(out.stdout, `${name}: the CLI's page is the renderer's`).toBe(render(80))
      looksLikeHelp(render(50), 50, `${name} at 50 columns`)
      if (narrowThroughCli.has(page.path.join(" "))) {
        const narrow = minicode([...page.path, "--help"], { COLUMNS: "50" })
        expect(narrow.stdout, `${name} with COLUMNS=50`).toBe(render(50))
        looksLikeHelp(narrow.stdout, 50, `${name} with COLUMNS=50`)
      }
    })
  }

  it("the narrow-width check has teeth: a page rendered at 80 columns is wider than 50", () => {
    const top = Help.pageOf([])
    const render = top === undefined ? undefined : rendered.get(top)
    expect(render).toBeDefined()
    if (render !== undefined) expect(widest(render(80))).toBeGreaterThan(50)
  })

  it("the top page lists every command, the global options and the exit-code table", () => {
    const out = minicode(["--help"]).stdout
    for (const command of ["tool", "tools", "config mcp add", "mcp serve", "recover resolve", "undo"]) expect(out).toContain(`  ${command}  `)
    for (const flag of ["--json", "--debug", "--completions SHELL", "--version"]) expect(out).toContain(flag)
    const table = out.slice(out.indexOf("Exit codes:"))
    for (const code of ["0", "1", "2", "3", "4", "130"]) expect(table).toMatch(new RegExp(`\\n {2}${code} +\\S`))
    expect(table).toMatch(/2 +a wrong command/)
    expect(table).toMatch(/4 +the journal holds calls whose outcome is unknown/)
  })

  it("options say what they are: optional repeatable flags are not shown as required, arguments by their own words", () => {
    const add = minicode(["config", "mcp", "add", "--help"]).stdout
    expect(add).toMatch(/--header VALUE +Repeatable\. K=V HTTP header/)
    expect(add).not.toMatch(/Required\. Repeatable/)
    expect(add).toMatch(/\n {2}ID +Server id: letters/)
    expect(add).toContain("minicode config mcp add ID (--command CMD | --url URL) [options]")
    const lsp = minicode(["config", "lsp", "add", "--help"]).stdout
    expect(lsp).toMatch(/--command VALUE +Required\. The server program/)
    const tool = minicode(["tool", "--help"]).stdout
    expect(tool).toMatch(/minicode tool NAME \[ARGS_JSON\] \[options\]/)
    expect(tool).toMatch(/--sandbox auto\|bwrap\|none/)
  })

  it("a group alone shows its page; an unknown command under it is a usage error that names it", () => {
    const group = minicode(["config"])
    expect(group.status).toBe(0)
    expect(group.stdout).toMatch(/Commands:\n {2}mcp +MCP servers/)
    const top = minicode([])
    expect(top.status).toBe(0)
    expect(top.stdout).toContain("Exit codes:")
    const unknown = minicode(["config", "nosuch", "--help"])
    expect(unknown.status).toBe(2)
    expect(unknown.stdout).toBe("")
    expect(unknown.stderr).toMatch(/^minicode: unknown command "minicode config nosuch"; `minicode config --help` lists the commands\n$/)
    const deeper = minicode(["config", "mcp", "nosuch"])
    expect(deeper.status).toBe(2)
    expect(deeper.stderr).toContain('unknown command "minicode config mcp nosuch"; `minicode config mcp --help` lists the commands')
    expect(JSON.parse(minicode(["nosuch", "--json"]).stdout)).toEqual({ error: { code: "usage", message: expect.stringContaining('unknown command "minicode nosuch"') } })
  })
})

describe("colour", () => {
  const page = ["config", "mcp", "add", "--help"]
  it("none when piped, nor with NO_COLOR or TERM=dumb; FORCE_COLOR turns it on even when piped", () => {
    expect(minicode(page).stdout).not.toMatch(ansi)
    expect(minicode(page, { NO_COLOR: "1" }).stdout).not.toMatch(ansi)
    expect(minicode(page, { TERM: "dumb" }).stdout).not.toMatch(ansi)
    expect(minicode(page, { FORCE_COLOR: "0" }).stdout).not.toMatch(ansi)
    const forced = minicode(page, { FORCE_COLOR: "1" }).stdout
    expect(forced).toMatch(ansi)
    // Colour changes no text: without the escapes it is the plain page.
    expect(forced.replace(new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "g"), "")).toBe(minicode(page).stdout)
    expect(minicode(["tool", "read_file", "--help"], { FORCE_COLOR: "1" }).stdout).toMatch(ansi)
    expect(minicode(["tools"], { FORCE_COLOR: "false" }).stdout).not.toMatch(ansi)
  })
})

describe("colour on a terminal", () => {
  // `script` gives the command a pseudo-terminal of 70 columns.
  const onTerminal = (extra: NodeJS.ProcessEnv) =>
    spawnSync("script", ["-qec", `stty cols 70; "${process.execPath}" "${bin}" config mcp add --help`, "/dev/null"], {
      encoding: "utf8",
      cwd: ws,
      env: { ...baseEnv(), TERM: "xterm", ...extra }
    })
  const available = spawnSync("script", ["--version"]).status === 0
  it.skipIf(!available)("a terminal gets colour and its own width, unless NO_COLOR or TERM=dumb", () => {
    const tty = onTerminal({})
    expect(tty.status, tty.stderr).toBe(0)
    expect(tty.stdout).toMatch(ansi)
    const plain = tty.stdout.replace(new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m|\r`, "g"), "")
    expect(widest(plain)).toBeLessThanOrEqual(70)
    expect(widest(plain)).toBeGreaterThan(60)
    expect(onTerminal({ NO_COLOR: "1" }).stdout).not.toMatch(ansi)
    expect(onTerminal({ TERM: "dumb" }).stdout).not.toMatch(ansi)
  })
})

describe("minicode tools and tool NAME --help", () => {
  it("tools --json: every tool with scope, capability, typed arguments and an example", () => {
    const out = minicode(["tools", "--json"])
    expect(out.status, out.stderr).toBe(0)
    const list: unknown = JSON.parse(out.stdout)
    expect(Array.isArray(list)).toBe(true)
    if (!Array.isArray(list)) return
    expect(list.map((e: { name: string }) => e.name)).toEqual([...Tools.toolNames])
    for (const entry of list) {
      expect(entry).toMatchObject({
        name: expect.any(String),
        title: expect.any(String),
        description: expect.any(String),
        scope: expect.stringMatching(/^(files|search|shell|git|lsp|sql|mcp)$/),
        capability: expect.stringMatching(/^(read|write|exec|network|external)$/),
        mutates: expect.any(Boolean),
        gated: expect.any(Boolean),
        arguments: expect.any(Array),
        example: { args: expect.any(Object), command: expect.stringMatching(new RegExp(`^minicode tool ${entry.name} '\\{`)) }
      })
      for (const arg of entry.arguments) {
        expect(arg).toMatchObject({ name: expect.any(String), type: expect.any(String), required: expect.any(Boolean), description: expect.any(String) })
      }
    }
    const hover = list.find((e: { name: string }) => e.name === "lsp_hover")
    expect(hover.arguments.map((a: { name: string; required: boolean }) => `${a.name}:${a.required}`)).toEqual(["path:true", "line:false", "character:false", "symbol:false"])
    const bash = list.find((e: { name: string }) => e.name === "bash")
    expect(bash.arguments.find((a: { name: string }) => a.name === "timeout_ms")).toMatchObject({ type: "integer 1..3600000", default: 120000 })
  })

  it("tools: every tool by scope, within the width", () => {
    const out = minicode(["tools"])
    expect(out.status).toBe(0)
    for (const name of Tools.toolNames) expect(out.stdout).toMatch(new RegExp(`^${name} - `, "m"))
    for (const scope of ["files", "search", "shell", "git", "lsp", "sql", "mcp"]) expect(out.stdout).toContain(`== ${scope} ==`)
    expect(widest(out.stdout)).toBeLessThanOrEqual(80)
    expect(widest(minicode(["tools"], { COLUMNS: "60" }).stdout)).toBeLessThanOrEqual(60)
  })

  it("tool NAME --help prints that tool's entry (and --json the entry as JSON)", () => {
    const out = minicode(["tool", "lsp_references", "--help"])
    expect(out.status, out.stderr).toBe(0)
    expect(out.stdout).toMatch(/^lsp_references - Find references\n/)
    expect(out.stdout).toMatch(/scope lsp, capability read, read-only/)
    expect(out.stdout).toMatch(/\n {2}path +string, required\. File to ask about/)
    expect(out.stdout).toMatch(/\n {2}include_declaration +boolean, optional, default false\./)
    expect(out.stdout).toMatch(/Example:\n {2}\$ minicode tool lsp_references '\{/)
    expect(widest(out.stdout)).toBeLessThanOrEqual(80)
    const json = JSON.parse(minicode(["tool", "sql_query", "--help", "--json"]).stdout)
    expect(json).toMatchObject({ name: "sql_query", scope: "sql", capability: "read" })
  })

  it("an example, even spread over lines, is one command the shell and the chain accept", () => {
    const text = minicode(["tool", "edit_file", "--help"]).stdout
    const example = text.slice(text.indexOf("Example:\n") + "Example:\n".length).replace(/^ {2}\$ /, "").trimEnd()
    expect(example.split("\n").length).toBeGreaterThan(1)
    const script = example.replace(/^minicode tool /, `"${process.execPath}" "${bin}" policy explain `)
    const run = spawnSync("bash", ["-c", script], { encoding: "utf8", cwd: ws, env: baseEnv() })
    // Decoded and decided (DISCUSS refuses a write): neither a JSON nor an argument error.
    expect(run.status, run.stderr).toBe(3)
    expect(run.stdout).toMatch(/^deny \(/)
  })

  it("an unknown tool is a usage error (exit 2) with a sentence that says what to do; an MCP tool name points to mcp_list", () => {
    const out = minicode(["tool", "no_such_tool", "--help"])
    expect(out.status).toBe(2)
    expect(out.stdout).toBe("")
    expect(out.stderr).toBe('minicode: unknown tool "no_such_tool"\n`minicode tools` lists every tool with its arguments\n')
    const json = minicode(["tool", "no_such_tool", "--help", "--json"])
    expect(json.status).toBe(2)
    expect(JSON.parse(json.stdout)).toEqual({ error: { code: "usage", message: expect.stringContaining('unknown tool "no_such_tool"') } })
    const dynamic = minicode(["tool", "github.search_issues", "--help"])
    expect(dynamic.status).toBe(2)
    expect(dynamic.stderr).toContain(`minicode tool mcp_list '{"server":"github"}'`)
  })
})

describe("completion scripts", () => {
  it("bash completes commands at every depth, and flags; zsh and fish scripts are printed", async () => {
    const script = await minicodeAsync(["--completions", "bash"])
    expect(script.status).toBe(0)
    const file = path.join(home, "minicode.bash")
    fs.writeFileSync(file, script.stdout)
    const complete = (words: ReadonlyArray<string>) => {
      const run = spawnSync(
        "bash",
        [
          "-c",
          `source "$0"; COMP_WORDS=(${words.map((w) => `'${w}'`).join(" ")}); COMP_CWORD=${words.length - 1}; _minicode_bash_completions minicode "\${COMP_WORDS[COMP_CWORD]}" "\${COMP_WORDS[COMP_CWORD-1]}"; echo "\${COMPREPLY[@]}"`,
          file
        ],
        { encoding: "utf8" }
      )
      expect(run.stderr).toBe("")
      return run.stdout.trim().split(" ")
    }
    expect(complete(["minicode", "to"])).toEqual(["tool", "tools"])
    expect(complete(["minicode", "config", "m"])).toEqual(["mcp"])
    expect(complete(["minicode", "config", "mcp", "a"])).toEqual(["add"])
    expect(complete(["minicode", "config", "mcp", "add", "--allow-p"])).toEqual(["--allow-private"])
    expect((await minicodeAsync(["--completions", "zsh"])).stdout).toMatch(/^#compdef minicode\n/)
    expect((await minicodeAsync(["--completions", "fish"])).stdout).toMatch(/^complete -c minicode /m)
    // Three CLI starts and four bash runs: more than the default 30 s on a loaded 2-core machine.
  }, 120_000)
})
