/**
 * `--help`, written by minicode: one table of commands (each with a one-line purpose and examples), the arguments
 * and options read from the @effect/cli definitions themselves (their own descriptions, whether optional or
 * repeatable), wrapped to the terminal's width and coloured only where `Layout` says so. The top-level page
 * carries the exit-code table. `tool NAME --help` prints that tool's catalog entry (`ToolsCommand`).
 */
import { BuiltInOptions, CliConfig, CommandDescriptor, CommandDirective, HelpDoc } from "@effect/cli"
import type { Span } from "@effect/cli/HelpDoc/Span"
import { Effect } from "effect"
import { UsageError } from "../domain/core/Errors.js"
import * as ExitCode from "./ExitCode.js"
import * as Layout from "./Layout.js"
import * as ToolsCommand from "./ToolsCommand.js"

export interface Page {
  /** The words after `minicode`. */
  readonly path: ReadonlyArray<string>
  readonly purpose: string
  readonly examples: ReadonlyArray<string>
  /** A group only chooses a subcommand: `minicode config` alone shows this page. */
  readonly group?: boolean
  /** A usage line to show instead of the one built from the arguments (for options that exclude each other). */
  readonly usage?: string
  readonly notes?: ReadonlyArray<string>
}

const call = `'{"path":"src/index.ts"}'`

/** Every command, in the order the top-level help lists them. */
export const pages: ReadonlyArray<Page> = [
  {
    path: [],
    purpose: "A tool kernel for AI coding agents: deterministic gates between the model and your machine.",
    group: true,
    examples: ["minicode tools", `minicode tool read_file ${call}`, "minicode mcp config --for claude-code --write", "minicode doctor"]
  },
  {
    path: ["tool"],
    purpose: "Run one tool call through the chain (permission, jail, bash guard, validation) and print its result.",
    examples: [`minicode tool read_file ${call}`, `minicode --work-mode BUILD tool bash '{"command":"npm test"}'`, "minicode tool read_file --help"],
    notes: ["`minicode tool NAME --help` shows the tool's arguments and an example; `minicode tools` lists every tool."]
  },
  {
    path: ["tools"],
    purpose: "List every tool with its scope, capability, arguments (types, defaults) and an example call.",
    examples: ["minicode tools", "minicode tools --json"]
  },
  { path: ["policy"], purpose: "Explain decisions and check them in CI.", group: true, examples: [`minicode policy explain read_file ${call}`] },
  {
    path: ["policy", "explain"],
    purpose: "Decide a call without running it: decision, stage, rule and reason (exit 3 when it would not run).",
    examples: [`minicode policy explain bash '{"command":"rm -rf /"}'`, `minicode policy explain --work-mode BUILD write_file '{"path":"a.txt","content":"x"}'`]
  },
  {
    path: ["policy", "conformance"],
    purpose: "Check expected decisions (JSON lines) against the gates; exits 1 on any failure.",
    examples: ["minicode policy conformance cases.jsonl", "minicode policy conformance cases.jsonl --junit report.xml"]
  },
  {
    path: ["doctor"],
    purpose: "Show versions, workspace and config files, and probe each configured server.",
    examples: ["minicode doctor", "minicode doctor --json"]
  },
  { path: ["config"], purpose: "Edit minicode's configuration: MCP servers, SQL connections, language servers.", group: true, examples: ["minicode config mcp list"] },
  { path: ["config", "mcp"], purpose: "MCP servers minicode connects to (the mcp_* tools).", group: true, examples: ["minicode config mcp list"] },
  {
    path: ["config", "mcp", "add"],
    purpose: "Add (or replace) an MCP server: a program to spawn (stdio) or an HTTP endpoint.",
    usage: "minicode config mcp add ID (--command CMD | --url URL) [options]",
    examples: [
      "minicode config mcp add fs --command npx --args -y,@modelcontextprotocol/server-filesystem,.",
      "minicode config mcp add docs --url https://mcp.example.com/mcp --header Authorization=Bearer-xyz"
    ]
  },
  { path: ["config", "mcp", "list"], purpose: "List the configured MCP servers (header and env values masked).", examples: ["minicode config mcp list --json"] },
  { path: ["config", "mcp", "remove"], purpose: "Remove an MCP server.", examples: ["minicode config mcp remove fs"] },
  {
    path: ["config", "mcp", "login"],
    purpose: "Sign in to an HTTP MCP server (OAuth) through a browser.",
    examples: ["minicode config mcp login docs", "minicode config mcp login docs --client-id my-app"]
  },
  { path: ["config", "mcp", "logout"], purpose: "Forget the tokens of an HTTP MCP server.", examples: ["minicode config mcp logout docs"] },
  { path: ["config", "sql"], purpose: "SQL connections for sql_query and sql_schema.", group: true, examples: ["minicode config sql list"] },
  {
    path: ["config", "sql", "add"],
    purpose: "Add (or replace) an SQL connection: a SQLite file, PostgreSQL or MySQL/MariaDB.",
    usage: "minicode config sql add NAME (--sqlite FILE | --url URL) [options]",
    examples: ["minicode config sql add app --sqlite data/app.db", "minicode config sql add main --url postgres://me:secret@localhost:5432/shop --allow-write"]
  },
  { path: ["config", "sql", "list"], purpose: "List the SQL connections (passwords masked).", examples: ["minicode config sql list --json"] },
  { path: ["config", "sql", "remove"], purpose: "Remove an SQL connection.", examples: ["minicode config sql remove main"] },
  { path: ["config", "lsp"], purpose: "Language servers for the lsp_* tools and the diagnostics after edits.", group: true, examples: ["minicode config lsp list"] },
  {
    path: ["config", "lsp", "add"],
    purpose: "Add (or replace) the language server for a file extension.",
    examples: ["minicode config lsp add .py --command pyright-langserver --args --stdio", "minicode config lsp add .go --command gopls --timeout load=120000"]
  },
  { path: ["config", "lsp", "list"], purpose: "List the configured language servers (env values masked).", examples: ["minicode config lsp list --json"] },
  { path: ["config", "lsp", "remove"], purpose: "Remove the language server of a file extension.", examples: ["minicode config lsp remove .py"] },
  { path: ["mcp"], purpose: "minicode as an MCP server for assistants.", group: true, examples: ["minicode mcp config --for claude-code"] },
  {
    path: ["mcp", "serve"],
    purpose: "Serve minicode's tools over MCP (stdio); every call goes through the whole chain.",
    examples: ["minicode mcp serve --cwd ~/src/app", "minicode mcp serve --scope shell=off --scope git=read"]
  },
  {
    path: ["mcp", "config"],
    purpose: "Print (or --write) what registers this installation's `minicode mcp serve` with an MCP client.",
    examples: ["minicode mcp config --for claude-code", "minicode mcp config --for cursor --write"]
  },
  { path: ["lsp"], purpose: "The LSP broker that keeps the workspace's language servers warm between calls.", group: true, examples: ["minicode lsp status"] },
  { path: ["lsp", "status"], purpose: "Show the workspace's LSP brokers: pid, uptime, memory, socket.", examples: ["minicode lsp status", "minicode lsp status --json"] },
  { path: ["lsp", "stop"], purpose: "Stop the workspace's LSP brokers now (they also stop by themselves when idle).", examples: ["minicode lsp stop"] },
  { path: ["journal"], purpose: "List the journal's records of mutations, before and after their effect.", examples: ["minicode journal", "minicode journal --state unknown --json"] },
  {
    path: ["recover"],
    purpose: "Show the recovery plan of unfinished turns: what is done, what to verify (it never acts).",
    examples: ["minicode recover", "minicode recover --json"]
  },
  {
    path: ["recover", "resolve"],
    purpose: "Record what you found: the effect of record SEQ was applied, or is absent.",
    examples: ["minicode recover resolve 12 applied", "minicode recover resolve 13 absent"]
  },
  { path: ["checkpoints"], purpose: "List the turns whose files can be restored, newest first.", examples: ["minicode checkpoints"] },
  {
    path: ["undo"],
    purpose: "Restore a turn's files as they were before it (paths changed since are refused).",
    examples: ["minicode undo", "minicode undo --turn 3 --session cli"]
  },
  { path: ["redo"], purpose: "Re-apply a turn that was undone.", examples: ["minicode redo"] }
]

const same = (a: ReadonlyArray<string>, b: ReadonlyArray<string>) => a.length === b.length && a.every((w, i) => w === b[i])
export const pageOf = (path: ReadonlyArray<string>): Page | undefined => pages.find((p) => same(p.path, path))
const childrenOf = (path: ReadonlyArray<string>) => pages.filter((p) => p.path.length === path.length + 1 && same(p.path.slice(0, path.length), path))

// ---------------------------------------------------------------------------------------------------------------
// Arguments and options, as @effect/cli defines them

export interface Item {
  /** `--cwd DIR`, `ID`. */
  readonly term: string
  readonly description: string
  readonly optional: boolean
  readonly repeatable: boolean
  /** A flag without a value. */
  readonly switch: boolean
}

const spanText = (span: Span): string => {
  switch (span._tag) {
    case "Text":
    case "URI":
      return span.value
    case "Sequence":
      return spanText(span.left) + spanText(span.right)
    default:
      return spanText(span.value)
  }
}

const paragraphs = (doc: HelpDoc.HelpDoc): ReadonlyArray<string> => {
  switch (doc._tag) {
    case "Paragraph":
    case "Header":
      return [spanText(doc.value)]
    case "Sequence":
      return [...paragraphs(doc.left), ...paragraphs(doc.right)]
    case "Enumeration":
      return doc.elements.flatMap(paragraphs)
    case "DescriptionList":
      return doc.definitions.flatMap(([term, d]) => [spanText(term), ...paragraphs(d)])
    case "Empty":
      return []
  }
}

/** A help document (a parser's error) as plain text. */
export const plainText = (doc: HelpDoc.HelpDoc): string => paragraphs(doc).join(" ").trim()

/** Each section's definitions, in order: `ARGUMENTS` and `OPTIONS` are the ones help reads. */
const sections = (doc: HelpDoc.HelpDoc, into: Map<string, Array<readonly [string, ReadonlyArray<string>]>>, current: { name: string }) => {
  switch (doc._tag) {
    case "Header":
      current.name = spanText(doc.value)
      return
    case "Sequence":
      sections(doc.left, into, current)
      sections(doc.right, into, current)
      return
    case "DescriptionList": {
      const list = into.get(current.name) ?? []
      for (const [term, d] of doc.definitions) list.push([spanText(term), paragraphs(d)])
      into.set(current.name, list)
      return
    }
    default:
      return
  }
}

/** Options every command has, told once on the top-level page. */
const builtIn = /^\(?(-h, --help|--completions|--log-level|--wizard|--version)\b/
const placeholders: Readonly<Record<string, string>> = { directory: "DIR", file: "FILE", text: "VALUE", integer: "N", "integer...": "N", "text...": "VALUE" }
/** The line @effect/cli gives an argument with no description of its own. */
const bareText = "A user-defined piece of text."

const itemOf = ([rawTerm, texts]: readonly [string, ReadonlyArray<string>], kind: "argument" | "option"): Item => {
  const optional = texts.some((t) => t.startsWith("This setting is optional"))
  const repeatable = texts.some((t) => /^This (option|argument) may be repeated/.test(t))
  const own = texts.filter((t) => !/^This (setting|option|argument) /.test(t))
  // The first paragraph is the value's type ("A directory.", "One of the following: …"); keep it only when it is all.
  const kept = own.length > 1 ? own.slice(1) : own.filter((t) => t !== bareText)
  if (kind === "argument") {
    return { term: rawTerm.replace(/^<(.*)>$/, "$1"), description: kept.join(" "), optional, repeatable, switch: false }
  }
  const [name = rawTerm, ...rest] = rawTerm.trim().split(" ")
  const value = rest.join(" ").replace(/\s*\|\s*/g, "|").replace(/\.\.\.$/, "")
  const shown = placeholders[value] ?? value
  return { term: shown === "" ? name : `${name} ${shown}`, description: kept.join(" "), optional, repeatable, switch: shown === "" }
}

/** The arguments and options of the command at `path`, from @effect/cli's own help for it. */
export const itemsOf = <A>(root: CommandDescriptor.Command<A>, path: ReadonlyArray<string>) =>
  CommandDescriptor.parse(root, ["minicode", ...path, "--help"], CliConfig.defaultConfig).pipe(
    Effect.map((directive) => {
      const found = new Map<string, Array<readonly [string, ReadonlyArray<string>]>>()
      if (CommandDirective.isBuiltIn(directive) && BuiltInOptions.isShowHelp(directive.option)) sections(directive.option.helpDoc, found, { name: "" })
      return {
        args: (found.get("ARGUMENTS") ?? []).map((d) => itemOf(d, "argument")),
        options: (found.get("OPTIONS") ?? []).filter(([term]) => !builtIn.test(term)).map((d) => itemOf(d, "option"))
      }
    }),
    Effect.orElseSucceed(() => ({ args: [] as ReadonlyArray<Item>, options: [] as ReadonlyArray<Item> }))
  )

// ---------------------------------------------------------------------------------------------------------------
// Rendering

const block = (style: Layout.Style, title: string, lines: ReadonlyArray<string>) => (lines.length === 0 ? [] : ["", Layout.heading(style, title), ...lines])

const examplesOf = (style: Layout.Style, page: Page) => page.examples.flatMap((e) => Layout.wrapCommand(e, style.width, "  $ ", "      "))

const usageOf = (page: Page, items: { readonly args: ReadonlyArray<Item>; readonly options: ReadonlyArray<Item> }) => {
  if (page.usage !== undefined) return page.usage
  const name = ["minicode", ...page.path].join(" ")
  if (page.group === true) return page.path.length === 0 ? `${name} COMMAND [options]` : `${name} COMMAND`
  const args = items.args.map((a) => (a.optional ? `[${a.term}]` : a.term))
  const required = items.options.filter((o) => !o.optional && !o.repeatable && !o.switch).map((o) => o.term)
  return [name, ...args, ...required, ...(items.options.length > required.length ? ["[options]"] : [])].join(" ")
}

const optionLine = (o: Item) =>
  [
    o.optional || o.switch || o.repeatable ? "" : "Required.",
    o.repeatable ? "Repeatable." : "",
    o.description.replace(/ \(repeatable\)|repeatable; |; repeatable| \(repeatable; /g, (m) => (m.startsWith(" (repeatable;") ? " (" : ""))
  ]
    .filter((s) => s !== "")
    .join(" ")

const globalOptions: ReadonlyArray<readonly [string, string]> = [
  ["-h, --help", "This help; `minicode COMMAND --help` for a command, `minicode tool NAME --help` for a tool."],
  ["--version", "Print the version."],
  ["--json", "Machine-readable output (results, and errors as {\"error\":{\"code\",\"message\"}}); before or after the command."],
  ["--debug", "Stack traces for internal errors (or MINICODE_DEBUG=1)."],
  ["--completions SHELL", "Print a completion script for bash, zsh or fish: `minicode --completions bash > ~/.local/share/bash-completion/completions/minicode`."]
]

const exitCodes = (style: Layout.Style) => Layout.definitions(style, ExitCode.table.map(([n, , what]) => [String(n), what] as const), 2, (_s, t) => t)

/** The help page of `page`. */
export const render = (style: Layout.Style, page: Page, items: { readonly args: ReadonlyArray<Item>; readonly options: ReadonlyArray<Item> }): string => {
  const name = ["minicode", ...page.path].join(" ")
  const top = page.path.length === 0
  const children = top ? pages.filter((p) => p.path.length > 0) : childrenOf(page.path)
  const lines = [
    ...Layout.wrap(`${name} - ${page.purpose}`, style.width),
    ...block(style, "Usage:", Layout.wrapCommand(usageOf(page, items), style.width, "  ", "      ")),
    ...block(style, "Arguments:", Layout.definitions(style, items.args.map((a) => [a.term, a.description]))),
    ...block(style, "Options:", Layout.definitions(style, items.options.map((o) => [o.term, optionLine(o)]))),
    ...block(
      style,
      "Commands:",
      Layout.definitions(
        style,
        children.map((c) => [`${"  ".repeat(Math.max(0, c.path.length - page.path.length - 1))}${c.path.slice(page.path.length).join(" ")}`, c.purpose])
      )
    ),
    ...(top ? block(style, "Global options:", Layout.definitions(style, globalOptions)) : []),
    ...block(style, "Examples:", examplesOf(style, page)),
    ...(page.notes ?? []).flatMap((n) => ["", ...Layout.wrap(n, style.width)]),
    ...(top
      ? [
          ...block(style, "Exit codes:", exitCodes(style)),
          "",
          ...Layout.wrap(
            "Colour: only when stdout is a terminal; NO_COLOR or TERM=dumb turn it off, FORCE_COLOR turns it on. Lines wrap to the terminal's width.",
            style.width
          )
        ]
      : [])
  ]
  return lines.join("\n")
}

// ---------------------------------------------------------------------------------------------------------------
// Which help the command line asks for

export type Request =
  | { readonly _tag: "Page"; readonly page: Page }
  | { readonly _tag: "Tool"; readonly name: string }
  | { readonly _tag: "Unknown"; readonly words: ReadonlyArray<string>; readonly near: Page }

/** Options whose value is the next word (so that value is not read as a command or tool name). */
const takesValue = new Set([
  ...["--cwd", "--work-mode", "--permission-mode", "--policy", "--sandbox", "--turn", "--session", "--state", "--junit", "--for"],
  ...["--command", "--args", "--arg", "--env", "--url", "--header", "--timeout", "--timeout-ms", "--sqlite", "--scope"],
  ...["--client-id", "--client-secret", "--ask-timeout", "--log-level", "--completions"]
])

/** The command `words` (the command line after `minicode`) names: the deepest page its leading words reach. */
export const pageFor = (words: ReadonlyArray<string>): Page | undefined => {
  const end = words.indexOf("--")
  const before = end === -1 ? words : words.slice(0, end)
  const positional = before.filter((w, i) => !w.startsWith("-") && !takesValue.has(before[i - 1] ?? ""))
  let page = pageOf([]) ?? pages[0]
  for (const word of positional) {
    const next = page === undefined ? undefined : pageOf([...page.path, word])
    if (next === undefined) break
    page = next
  }
  return page
}

/**
 * The help `words` (the command line after `minicode`) asks for: with `--help`/`-h` anywhere before `--`, or a
 * group command given alone (`minicode`, `minicode config`); or an unknown subcommand of a group. Nothing when the
 * command should run.
 */
export const request = (words: ReadonlyArray<string>): Request | undefined => {
  const end = words.indexOf("--")
  const before = end === -1 ? words : words.slice(0, end)
  // As @effect/cli reads it: `-h` anywhere is help, even after an option that takes a value.
  const asked = before.includes("--help") || before.includes("-h")
  const positional = before.filter((w, i) => !w.startsWith("-") && !takesValue.has(before[i - 1] ?? ""))
  let page = pageOf([]) ?? pages[0]
  if (page === undefined) return undefined
  let used = 0
  for (const word of positional) {
    const next = pageOf([...page.path, word])
    if (next === undefined) break
    page = next
    used += 1
  }
  const rest = positional.slice(used)
  if (asked && same(page.path, ["tool"]) && rest[0] !== undefined) return { _tag: "Tool", name: rest[0] }
  // A word a group does not know (`minicode config nosuch`, with or without --help): say so, and where to look.
  if (page.group === true && rest[0] !== undefined) {
    return { _tag: "Unknown", words: [...page.path, rest[0]], near: page }
  }
  if (asked) return { _tag: "Page", page }
  return page.group === true && before.length === used && words.length === used ? { _tag: "Page", page } : undefined
}

/** Print the help `req` asks for; an unknown command or tool is a usage error (exit 2) that says what to do. */
export const show = <A>(root: CommandDescriptor.Command<A>, req: Request, style: Layout.Style, asJson: boolean) => {
  switch (req._tag) {
    case "Tool":
      return ToolsCommand.toolHelp(req.name, style, asJson)
    case "Unknown":
      return Effect.fail(
        new UsageError({
          reason: `unknown command "minicode ${req.words.join(" ")}"; \`${["minicode", ...req.near.path, "--help"].join(" ")}\` lists the commands`
        })
      )
    case "Page":
      return itemsOf(root, req.page.path).pipe(
        Effect.flatMap((items) => Effect.sync(() => process.stdout.write(`${render(style, req.page, items)}\n`)))
      )
  }
}
