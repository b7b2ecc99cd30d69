/**
 * Help and discovery, below the bundle: every tool's example is a call its Schema accepts (so examples cannot rot),
 * every stated default is a value the field accepts, every command has a help page, colour follows the
 * conventions, wrapping keeps to the width, and which help a command line asks for.
 */
import { Command } from "@effect/cli"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { it } from "@effect/vitest"
import { Effect, Either, HashMap, Schema } from "effect"
import { describe, expect } from "vitest"
import * as Tools from "../../src/domain/core/Tools.js"
import { root } from "../../src/cli/Cli.js"
import * as Completions from "../../src/cli/Completions.js"
import * as Help from "../../src/cli/Help.js"
import * as Layout from "../../src/cli/Layout.js"
import * as ToolsCommand from "../../src/cli/ToolsCommand.js"

describe("the tool catalog's examples and defaults", () => {
  it("every tool's example decodes against that tool's argument Schema, extra fields refused", () => {
    for (const name of Tools.toolNames) {
      const example = Tools.exampleOf(name)
      const decoded = Schema.decodeUnknownEither(Schema.make(Tools.Args[name].ast), { onExcessProperty: "error" })(example)
      expect(Either.isRight(decoded), `${name} ${JSON.stringify(example)}`).toBe(true)
      expect(Either.isRight(Tools.decode(name, example)), `${name} through the edge decoder`).toBe(true)
    }
  })

  it("the decoder is strict enough for that to mean something: a wrong example would fail", () => {
    expect(Either.isLeft(Tools.decode("read_file", { ...Tools.exampleOf("read_file"), offset: 0 }))).toBe(true)
    expect(Either.isLeft(Tools.decode("git_commit", { message: "x" }))).toBe(true)
  })

  it("every default the catalog states is a value its field accepts", () => {
    let seen = 0
    for (const entry of ToolsCommand.catalog()) {
      for (const arg of entry.arguments) {
        if (!("default" in arg)) continue
        seen += 1
        const args = { ...entry.example.args, [arg.name]: arg.default }
        expect(Either.isRight(Tools.decode(entry.name, args)), `${entry.name}.${arg.name} = ${JSON.stringify(arg.default)}`).toBe(true)
      }
    }
    expect(seen).toBeGreaterThan(5)
  })

  it("the entries say type, required/optional and default, and an example command in shell quotes", () => {
    const sql = ToolsCommand.entryOf("sql_query")
    expect(sql.arguments.find((a) => a.name === "sql")).toMatchObject({ type: "string", required: true })
    expect(sql.arguments.find((a) => a.name === "max_rows")).toMatchObject({ type: "integer >= 1", required: false, default: 200 })
    expect(sql.arguments.find((a) => a.name === "max_cell")).toMatchObject({ type: "integer 16..20000", default: 120 })
    expect(ToolsCommand.entryOf("git_commit").arguments.find((a) => a.name === "paths")).toMatchObject({ type: "string[]", required: true })
    expect(ToolsCommand.entryOf("read_file").example.command).toBe(`minicode tool read_file '${JSON.stringify(Tools.exampleOf("read_file"))}'`)
    expect(ToolsCommand.typeOf({ anyOf: [{ type: "string" }, { type: "null" }] })).toBe("string | null")
  })
})

describe("help pages", () => {
  it("every command @effect/cli knows at the top level has a page, and every page a purpose and an example", () => {
    const names = [...HashMap.keys(Command.getSubcommands(root))].sort()
    const tops = Help.pages.filter((p) => p.path.length === 1).map((p) => p.path[0]).sort()
    expect(tops).toEqual(names)
    for (const page of Help.pages) {
      expect(page.purpose, page.path.join(" ")).toMatch(/^\S.*\.$/)
      expect(page.purpose.length, page.path.join(" ")).toBeLessThanOrEqual(120)
      expect(page.examples.length, page.path.join(" ")).toBeGreaterThan(0)
      for (const e of page.examples) expect(e.startsWith("minicode ")).toBe(true)
    }
  })

  it.effect("pages and commands match at every depth: each command has a page, each page a command", () =>
    Effect.gen(function* () {
      // The completion script names every command path (`cmd="minicode__config__mcp__add"`).
      const script = yield* Command.getBashCompletions(root, "minicode")
      const commands = new Set(script.flatMap((l) => /cmd="minicode__([^"]+)"/.exec(l)?.[1]?.split("__").join(" ") ?? []))
      expect([...commands].sort()).toEqual(Help.pages.filter((p) => p.path.length > 0).map((p) => p.path.join(" ")).sort())
      for (const page of Help.pages) {
        const items = yield* Help.itemsOf(root.descriptor, page.path)
        if (page.group !== true && page.path.length > 0) expect(items.options.length + items.args.length, page.path.join(" ")).toBeGreaterThan(0)
        for (const item of [...items.args, ...items.options]) expect(item.term, page.path.join(" ")).not.toMatch(/^\(?-h|--completions|--log-level|--wizard|--version/)
      }
    }).pipe(Effect.provide(NodeContext.layer))
  )

  it("which help a command line asks for", () => {
    const page = (words: ReadonlyArray<string>) => {
      const r = Help.request(words)
      return r?._tag === "Page" ? r.page.path.join(" ") : r?._tag
    }
    expect(page(["--help"])).toBe("")
    expect(page([])).toBe("")
    expect(page(["config"])).toBe("config")
    expect(page(["config", "mcp", "add", "--help"])).toBe("config mcp add")
    expect(page(["config", "mcp", "add", "fs", "-h"])).toBe("config mcp add")
    expect(page(["tool", "--help"])).toBe("tool")
    expect(Help.request(["tool", "--cwd", "/x", "read_file", "--help"])).toEqual({ _tag: "Tool", name: "read_file" })
    expect(Help.request(["config", "nosuch", "--help"])).toMatchObject({ _tag: "Unknown", words: ["config", "nosuch"] })
    expect(Help.request(["config", "mcp", "nosuch"])).toMatchObject({ _tag: "Unknown", words: ["config", "mcp", "nosuch"] })
    expect(Help.request(["nosuch"])).toMatchObject({ _tag: "Unknown", words: ["nosuch"] })
    expect(Help.request(["--log-level", "debug", "doctor"])).toBeUndefined()
    // Commands that run, and help words inside an argument, are left alone.
    expect(Help.request(["tool", "bash", '{"command":"ls --help"}'])).toBeUndefined()
    expect(Help.request(["recover"])).toBeUndefined()
    expect(Help.request(["config", "mcp", "list"])).toBeUndefined()
    expect(Help.request(["--version"])).toBeUndefined()
    expect(Help.request(["tool", "x", "--", "--help"])).toBeUndefined()
  })
})

describe("layout", () => {
  it("colour: FORCE_COLOR wins, then NO_COLOR and TERM=dumb turn it off, else only on a terminal", () => {
    const tty = { isTTY: true }
    const pipe = { isTTY: false }
    expect(Layout.colourOn({}, tty)).toBe(true)
    expect(Layout.colourOn({}, pipe)).toBe(false)
    expect(Layout.colourOn({ NO_COLOR: "1" }, tty)).toBe(false)
    expect(Layout.colourOn({ NO_COLOR: "" }, tty)).toBe(true)
    expect(Layout.colourOn({ TERM: "dumb" }, tty)).toBe(false)
    expect(Layout.colourOn({ FORCE_COLOR: "1" }, pipe)).toBe(true)
    expect(Layout.colourOn({ FORCE_COLOR: "1", NO_COLOR: "1" }, pipe)).toBe(true)
    expect(Layout.colourOn({ FORCE_COLOR: "0" }, tty)).toBe(true)
    expect(Layout.colourOn({ FORCE_COLOR: "0" }, pipe)).toBe(false)
  })

  it("width: the terminal's columns, else COLUMNS, else 80, kept within 40..120", () => {
    expect(Layout.widthOf({}, { isTTY: true, columns: 100 })).toBe(100)
    expect(Layout.widthOf({ COLUMNS: "60" }, { isTTY: false })).toBe(60)
    expect(Layout.widthOf({}, { isTTY: false })).toBe(80)
    expect(Layout.widthOf({}, { isTTY: true, columns: 300 })).toBe(120)
    expect(Layout.widthOf({ COLUMNS: "10" }, {})).toBe(40)
  })

  it("wrapping never passes the width and loses no word", () => {
    const text = "a tool kernel for AI coding agents: deterministic gates between the model and your machine, with averyveryveryverylongwordthatmustbecut"
    for (const width of [40, 57, 80]) {
      const lines = Layout.wrap(text, width, "  ", "    ")
      for (const l of lines) expect(l.length).toBeLessThanOrEqual(width)
      expect(lines.join("").replace(/\s/g, "")).toBe(text.replace(/\s/g, ""))
    }
    const command = Layout.wrapCommand(`minicode tool bash '{"command":"npm run build && npm test"}' --work-mode BUILD --cwd /some/long/path`, 50, "  $ ", "      ")
    for (const l of command) expect(l.length).toBeLessThanOrEqual(50)
    expect(command.slice(0, -1).every((l) => l.endsWith(" \\"))).toBe(true)
    expect(command.join("\n")).toContain(`'{"command":"npm run build && npm test"}'`)
  })
})

describe("completion scripts", () => {
  it("the bash script's nested case labels are written as its loop builds them", () => {
    expect(Completions.repairBash(["            minicode,config,mcp,add)", "            minicode,tool)", '            ",$1")'])).toEqual([
      "            minicode__config__mcp,add)",
      "            minicode,tool)",
      '            ",$1")'
    ])
    expect(Completions.request(["--completions", "bash"])).toBe("bash")
    expect(Completions.request(["--completions=zsh"])).toBe("zsh")
    expect(Completions.request(["tool", "--completions", "bash"])).toBeUndefined()
  })
})
